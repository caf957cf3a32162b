import Foundation
import ReferenceStore
import TestSupport
import Testing

@testable import BuildCache

/// The build cache on a folder store and, when a server is given, on S3 with signature checking
/// (`PIPELINE_TEST_S3_ENDPOINT`): what is saved is what is restored (contents and modification
/// times, pipeline's own outputs left out), the nearest ancestor's entry is the one taken, a key
/// that differs is refused with the part that differs, and nothing half-written is ever restored.
@Suite("The build cache")
struct BuildCacheTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case folder, s3
        var description: String { rawValue }
        static var available: [Kind] {
            ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"] == nil ? [.folder] : [.folder, .s3]
        }
    }

    /// A package folder with a build tree of its own making, and a cache in a new store.
    struct Setup {
        let root: URL
        let package: URL
        let folder: StoreFolder

        init(_ kind: Kind) async throws {
            root = try Scratch.folder("build-cache")
            package = root.appendingPathComponent("pkg")
            switch kind {
            case .folder:
                folder = StoreFolder(store: FolderStore(root: root.appendingPathComponent("store")), prefix: nil)
            case .s3:
                let endpoint = URL(string: ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"]!)!
                let store = try S3Store(
                    S3Settings(
                        endpoint: endpoint, bucket: "bc-\(UUID().uuidString.prefix(18).lowercased())",
                        credentials: AWSCredentials(accessKey: "test:tester", secret: "testing")))
                try await store.createBucket()
                folder = StoreFolder(store: store, prefix: try ObjectKey("team/cache"))
            }
        }

        func cache(_ key: BuildCacheKey = Setup.key(), keep: Int = 3) -> BuildCache {
            var cache = BuildCache(
                folder: folder, key: key, package: package, environment: ProcessInfo.processInfo.environment)
            cache.keep = keep
            return cache
        }

        static func key(toolchain: String = "Swift version 6.3.1", path: String = "/ci/app") -> BuildCacheKey {
            BuildCacheKey(
                toolchain: toolchain, triple: "x86_64-unknown-linux-gnu", configuration: "debug",
                flags: BuildCache.hashingFlags, pins: ["swift-numerics@1234"], path: path, buildSystem: "native")
        }

        /// Writes a build tree: an object file, a checkout with an old modification time, and
        /// pipeline's own outputs.
        func build(_ marker: String) throws {
            try Scratch.write("object \(marker)", to: package.appendingPathComponent(".build/debug/App.o"))
            let checkout = package.appendingPathComponent(".build/checkouts/numerics/Sources/Real.swift")
            try Scratch.write("real", to: checkout)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: checkout.path)
            try Scratch.write("timings", to: package.appendingPathComponent(".build/pipeline/timings.json"))
        }

        func read(_ path: String) -> String? {
            FileManager.default.contents(atPath: package.appendingPathComponent(path).path).map {
                String(decoding: $0, as: UTF8.self)
            }
        }

        /// A fresh checkout: no build folder.
        func clean() throws {
            try FileManager.default.removeItem(at: package.appendingPathComponent(".build"))
        }
    }

    @Test("a saved tree is restored whole, times kept, pipeline's outputs left out", arguments: Kind.available)
    func roundTrip(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        try setup.build("c1")
        let same = setup.package.appendingPathComponent("Sources/App/Same.swift")
        let changed = setup.package.appendingPathComponent("Sources/App/Changed.swift")
        try Scratch.write("let same = 1", to: same)
        try Scratch.write("let changed = 1", to: changed)
        let built = Date(timeIntervalSince1970: 1_700_000_000.123456789)
        for file in [same, changed] {
            try FileManager.default.setAttributes([.modificationDate: built], ofItemAtPath: file.path)
        }
        let builtTime = try #require(try modified(same))
        let saved = try await setup.cache().save(commit: "c1", branch: "main")
        #expect(saved.contains("kept c1's build"), "\(saved)")
        #expect(try await setup.cache().save(commit: "c1", branch: "main").contains("holds c1's build already"))
        try setup.clean()
        // A fresh clone: every file written anew, one of them changed.
        try Scratch.write("let same = 1", to: same)
        try Scratch.write("let changed = 2", to: changed)
        guard
            case .restored(let tree, _, let unchanged, let changedCount) = await setup.cache().restore(commits: ["c1"])
        else {
            Issue.record("nothing restored")
            return
        }
        #expect(tree.commit == "c1")
        #expect((unchanged, changedCount) == (1, 1))
        #expect(try modified(same) == builtTime, "an unchanged file has the time the build saw")
        #expect(
            try modified(changed)!.lexicographicallyPrecedes(builtTime) == false, "a changed file keeps its new time")
        #expect(try modified(changed) != builtTime, "so it is rebuilt")
        #expect(setup.read(".build/debug/App.o") == "object c1")
        #expect(setup.read(".build/pipeline/timings.json") == nil, "pipeline's own outputs are not kept")
        let checkout = setup.package.appendingPathComponent(".build/checkouts/numerics/Sources/Real.swift")
        let time = try FileManager.default.attributesOfItem(atPath: checkout.path)[.modificationDate] as? Date
        #expect(time == Date(timeIntervalSince1970: 1_600_000_000))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: setup.package.path)
        #expect(leftovers.sorted() == [".build", "Sources"], "no staging folder is left: \(leftovers)")
    }

    /// A file's modification time, to the nanosecond (seconds, nanoseconds).
    func modified(_ file: URL) throws -> [Int]? {
        var info = stat()
        guard lstat(file.path, &info) == 0 else { return nil }
        return [info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
    }

    @Test("the nearest ancestor's entry is restored; a build already here is built on", arguments: Kind.available)
    func nearestAncestor(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        for commit in ["c1", "c3"] {
            try setup.build(commit)
            _ = try await setup.cache().save(commit: commit, branch: "main")
        }
        if case .builtHere(let why) = await setup.cache().restore(commits: ["c5", "c4", "c3"]) {
            #expect(why.contains("holds a build already"))
        } else {
            Issue.record("a build already here was replaced")
        }
        try setup.clean()
        let restored = await setup.cache().restore(commits: ["c5", "c4", "c3", "c2", "c1"])
        guard case .restored(let tree, _, _, _) = restored else {
            Issue.record("nothing restored: \(restored)")
            return
        }
        #expect(tree.commit == "c3")
        #expect(setup.read(".build/debug/App.o") == "object c3")
        try setup.clean()
        guard case .missed(let why) = await setup.cache().restore(commits: ["c9", "c8"]) else {
            Issue.record("an entry of no ancestor was restored")
            return
        }
        #expect(why.contains("none of HEAD or its last"), "\(why)")
    }

    @Test("a key that differs is refused, saying which part", arguments: Kind.available)
    func keyMiss(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        guard case .missed(let empty) = await setup.cache().restore(commits: ["c1"]) else {
            Issue.record("an empty cache restored something")
            return
        }
        #expect(empty.contains("is empty"))
        try setup.build("c1")
        _ = try await setup.cache().save(commit: "c1", branch: "main")
        try setup.clean()
        let other = Setup.key(toolchain: "Swift version 6.2", path: "/elsewhere/app")
        guard case .missed(let why) = await setup.cache(other).restore(commits: ["c1"]) else {
            Issue.record("a build of another toolchain and path was restored")
            return
        }
        #expect(why.contains("toolchain ('Swift version 6.2' here, 'Swift version 6.3.1' in the cache)"), "\(why)")
        #expect(why.contains("package path ('/elsewhere/app' here, '/ci/app' in the cache)"), "\(why)")
        #expect(!FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build").path))
    }

    @Test("parts no record names, or a part that does not match its record, are never restored")
    func halfWritten() async throws {
        let setup = try await Setup(.folder)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        try setup.build("c1")
        _ = try await setup.cache().save(commit: "c1", branch: "main")
        let store = setup.root.appendingPathComponent("store")
        let hash = Setup.key().hash
        let records = try FileManager.default.subpathsOfDirectory(atPath: store.appendingPathComponent(hash).path)
            .filter { $0.hasPrefix("entries/") && $0.hasSuffix(".json") }
        #expect(records.count == 1)
        // A part changed after its record was written: refused, nothing put in place.
        let parts = store.appendingPathComponent("\(hash)/parts/c1")
        let save = try #require(try FileManager.default.contentsOfDirectory(atPath: parts.path).first)
        let part = parts.appendingPathComponent("\(save)/part-aaaa")
        let original = try Data(contentsOf: part)
        try Data("not the archive".utf8).write(to: part)
        try setup.clean()
        let corrupted = await setup.cache().restore(commits: ["c1"])
        guard case .missed(let why) = corrupted else {
            Issue.record("a part that does not match was restored: \(corrupted)")
            return
        }
        #expect(why.contains("could not be used"), "\(why)")
        #expect(!FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build").path))
        // Parts without their record (a save killed before its record): never restored.
        try original.write(to: part)
        for record in records {
            try FileManager.default.removeItem(at: store.appendingPathComponent("\(hash)/\(record)"))
        }
        guard case .missed = await setup.cache().restore(commits: ["c1"]) else {
            Issue.record("parts without a record were restored")
            return
        }
    }

    @Test("retention keeps the newest entries of each key and branch", arguments: Kind.available)
    func retention(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        for (commit, branch) in [("d1", "develop"), ("f1", "feature/a"), ("d2", "develop"), ("d3", "develop")] {
            try setup.build(commit)
            _ = try await setup.cache(keep: 2).save(commit: commit, branch: branch)
            // Saves are told apart by the second they were made in.
            try await Task.sleep(for: .milliseconds(1100))
        }
        let entries = try await setup.cache().entries()
        #expect(Set(entries.map(\.commit)) == ["f1", "d2", "d3"])
        let parts = try await setup.folder.store.list(under: nil).map(\.key.rawValue).filter { $0.contains("/parts/") }
        #expect(!parts.contains { $0.contains("/parts/d1/") }, "the removed entry's parts went with it: \(parts)")
    }

    @Test("a key is made of this toolchain, the pins and the path; pins of every Package.resolved format")
    func keyParts() async throws {
        let root = try Scratch.folder("build-cache-key")
        defer { try? FileManager.default.removeItem(at: root) }
        try Scratch.write(
            #"{"pins":[{"identity":"swift-numerics","location":"x","state":{"revision":"abc","version":"1.0.0"}}],"version":2}"#,
            to: root.appendingPathComponent("Package.resolved"))
        let key = try await BuildCacheKey.current(
            package: root, configuration: "debug", flags: ["--build-system", "swiftbuild"],
            environment: ProcessInfo.processInfo.environment, scratch: root)
        #expect(key.toolchain.contains("Swift version"), "\(key.toolchain)")
        #expect(key.triple.contains("-"), "\(key.triple)")
        #expect(key.pins == ["swift-numerics@abc"])
        #expect(key.buildSystem == "swiftbuild")
        #expect(key.path == root.standardizedFileURL.path)
        try Scratch.write(
            #"{"object":{"pins":[{"package":"Numerics","repositoryURL":"x","state":{"revision":"def"}}]},"version":1}"#,
            to: root.appendingPathComponent("Package.resolved"))
        #expect(BuildCacheKey.pins(of: root) == ["Numerics@def"])
        try Scratch.write("not json", to: root.appendingPathComponent("Package.resolved"))
        #expect(BuildCacheKey.pins(of: root).first?.hasPrefix("Package.resolved sha256 ") == true)
        var moved = key
        moved.pins = ["swift-numerics@fff"]
        #expect(moved.hash != key.hash)
        #expect(moved.differences(from: key) == ["Package.resolved's pins (swift-numerics@abc, swift-numerics@fff)"])
    }

    @Test(
        "a CI run's test products: kept, fetched where they match, refused where they do not", arguments: Kind.available
    )
    func products(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let bin = setup.package.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        try Scratch.write("tests", to: bin.appendingPathComponent("AppPackageTests.xctest"))
        try Scratch.write("{}", to: bin.appendingPathComponent("App_AppTests.resources/badges.json"))
        try Scratch.write("object", to: bin.appendingPathComponent("App.build/App.o"))
        try FileManager.default.createSymbolicLink(
            atPath: setup.package.appendingPathComponent(".build/debug").path,
            withDestinationPath: "x86_64-unknown-linux-gnu/debug")
        let products = TestProducts(
            folder: setup.folder, key: Setup.key(), package: setup.package,
            environment: ProcessInfo.processInfo.environment)
        let kept = try await products.keep(
            product: setup.package.appendingPathComponent(".build/debug/AppPackageTests.xctest"),
            configuration: "debug", run: "77", commit: "c1")
        #expect(kept.contains("for CI run 77"), "\(kept)")
        try setup.clean()
        guard case .unavailable(let otherCommit) = await products.fetch(run: "77", commit: "c2") else {
            Issue.record("products of another commit were fetched")
            return
        }
        #expect(otherCommit.contains("built from c1"), "\(otherCommit)")
        let elsewhere = TestProducts(
            folder: setup.folder, key: Setup.key(path: "/other"), package: setup.package,
            environment: ProcessInfo.processInfo.environment)
        guard case .unavailable(let otherPath) = await elsewhere.fetch(run: "77", commit: "c1") else {
            Issue.record("products built at another path were fetched")
            return
        }
        #expect(otherPath.contains("package path"), "\(otherPath)")
        guard case .unavailable(let none) = await products.fetch(run: "78", commit: "c1") else {
            Issue.record("another run's products were fetched")
            return
        }
        #expect(none.contains("no test products are kept for CI run 78"))
        guard case .fetched = await products.fetch(run: "77", commit: "c1") else {
            Issue.record("the run's products were not fetched")
            return
        }
        #expect(setup.read(".build/debug/AppPackageTests.xctest") == "tests")
        #expect(setup.read(".build/debug/App_AppTests.resources/badges.json") == "{}")
        #expect(setup.read(".build/debug/App.build/App.o") == nil, "only the products travel")
    }
}
