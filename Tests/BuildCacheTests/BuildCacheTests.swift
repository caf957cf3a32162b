import CISystem
import Foundation
import ObjectStorage
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

    /// A package folder with a build tree of its own making (a dependency checked out with git as
    /// SwiftPM does), and a cache in a new store.
    struct Setup {
        let root: URL
        let package: URL
        let folder: StoreLocation
        /// The dependency's repository, and the revision the package pins.
        let numerics: URL
        let revision: String

        init(_ kind: Kind) async throws {
            root = try Scratch.folder("build-cache")
            package = root.appendingPathComponent("pkg")
            numerics = root.appendingPathComponent("swift-numerics")
            try Scratch.write("real", to: numerics.appendingPathComponent("Sources/Real.swift"))
            try Scratch.write("package", to: numerics.appendingPathComponent("Package.swift"))
            try Scratch.git(numerics, "init", "-q")
            try Scratch.git(numerics, "add", "-A")
            try Scratch.git(numerics, "commit", "-q", "-m", "numerics")
            revision = try Scratch.git(numerics, "rev-parse", "HEAD")
            switch kind {
            case .folder:
                folder = StoreLocation(store: FolderStore(root: root.appendingPathComponent("store")), prefix: nil)
            case .s3:
                let endpoint = URL(string: ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"]!)!
                let store = try S3Store(
                    S3Settings(
                        endpoint: endpoint, bucket: "bc-\(UUID().uuidString.prefix(18).lowercased())",
                        credentials: AWSCredentials(accessKey: "test:tester", secret: "testing")))
                try await store.createBucket()
                folder = StoreLocation(store: store, prefix: try ObjectKey("team/cache"))
            }
        }

        func cache(
            _ key: BuildCacheKey? = nil, keep: Int = 3, scope: TrustScope = .branch("main")
        ) throws -> BuildCache {
            var cache = try BuildCache(
                folder: folder, key: key ?? self.key(), package: package,
                variables: ProcessInfo.processInfo.environment, scope: scope)
            cache.keep = keep
            return cache
        }

        func key(toolchain: String = "Swift version 6.3.1", path: String = "/ci/app", pinned: Bool = true)
            -> BuildCacheKey
        {
            BuildCacheKey(
                toolchain: toolchain, triple: "x86_64-unknown-linux-gnu", configuration: "debug",
                flags: BuildCache.hashingFlags, pins: pinned ? ["swift-numerics@\(revision)"] : [], path: path,
                buildSystem: "native")
        }

        /// Writes a build tree: an object file, the dependency's clone and checkout (as SwiftPM
        /// makes them: the checkout borrows the clone's objects) with an old modification time, a
        /// downloaded artifact, and pipeline's own outputs.
        func build(_ marker: String) throws {
            try Scratch.write("object \(marker)", to: package.appendingPathComponent(".build/debug/App.o"))
            let build = package.appendingPathComponent(".build")
            let clone = build.appendingPathComponent("repositories/swift-numerics-1a2b3c4d")
            let checkout = build.appendingPathComponent("checkouts/swift-numerics")
            if !FileManager.default.fileExists(atPath: checkout.path) {
                try FileManager.default.createDirectory(
                    at: clone.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Scratch.git(root, "clone", "-q", "--mirror", numerics.path, clone.path)
                try Scratch.git(root, "clone", "-q", "--shared", clone.path, checkout.path)
            }
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)],
                ofItemAtPath: checkout.appendingPathComponent("Sources/Real.swift").path)
            try Scratch.write("zip", to: build.appendingPathComponent("artifacts/binary/Binary.zip"))
            try Scratch.write("timings", to: build.appendingPathComponent("pipeline/timings.json"))
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
        let saved = try await setup.cache().save(commit: "c1")
        #expect(saved.contains("kept c1's build"), "\(saved)")
        #expect(try await setup.cache().save(commit: "c1").contains("holds c1's build already"))
        try setup.clean()
        // A fresh clone: every file written anew, one of them changed.
        try Scratch.write("let same = 1", to: same)
        try Scratch.write("let changed = 2", to: changed)
        guard
            case .restored(let tree, _, _, let unchanged, let changedCount, _) = try await setup.cache().restore(
                commits: ["c1"])
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
        #expect(setup.read(".build/artifacts/binary/Binary.zip") == nil, "downloads are not kept")
        let checkout = setup.package.appendingPathComponent(".build/checkouts/swift-numerics/Sources/Real.swift")
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
            _ = try await setup.cache().save(commit: commit)
        }
        if case .builtHere(let why) = try await setup.cache().restore(commits: ["c5", "c4", "c3"]) {
            #expect(why.contains("holds a build already"))
        } else {
            Issue.record("a build already here was replaced")
        }
        try setup.clean()
        let restored = try await setup.cache().restore(commits: ["c5", "c4", "c3", "c2", "c1"])
        guard case .restored(let tree, _, _, _, _, _) = restored else {
            Issue.record("nothing restored: \(restored)")
            return
        }
        #expect(tree.commit == "c3")
        #expect(setup.read(".build/debug/App.o") == "object c3")
        try setup.clean()
        guard case .missed(let why) = try await setup.cache().restore(commits: ["c9", "c8"]) else {
            Issue.record("an entry of no ancestor was restored")
            return
        }
        #expect(why.contains("none of HEAD or its last"), "\(why)")
    }

    @Test("a key that differs is refused, saying which part", arguments: Kind.available)
    func keyMiss(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        guard case .missed(let empty) = try await setup.cache().restore(commits: ["c1"]) else {
            Issue.record("an empty cache restored something")
            return
        }
        #expect(empty.contains("holds nothing for scope branch/main"), "\(empty)")
        try setup.build("c1")
        _ = try await setup.cache().save(commit: "c1")
        try setup.clean()
        let other = setup.key(toolchain: "Swift version 6.2", path: "/elsewhere/app")
        guard case .missed(let why) = try await setup.cache(other).restore(commits: ["c1"]) else {
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
        _ = try await setup.cache().save(commit: "c1")
        let store = setup.root.appendingPathComponent("store")
        let hash = setup.key().hash
        let scoped = store.appendingPathComponent("branch/main")
        let records = try FileManager.default.subpathsOfDirectory(atPath: scoped.appendingPathComponent(hash).path)
            .filter { $0.hasPrefix("entries/") && $0.hasSuffix(".json") }
        #expect(records.count == 1)
        // A part changed after its record was written: refused, nothing put in place.
        let parts = scoped.appendingPathComponent("\(hash)/parts/c1")
        let save = try #require(try FileManager.default.contentsOfDirectory(atPath: parts.path).first)
        let part = parts.appendingPathComponent("\(save)/part-aaaa")
        let original = try Data(contentsOf: part)
        try Data("not the archive".utf8).write(to: part)
        try setup.clean()
        let corrupted = try await setup.cache().restore(commits: ["c1"])
        guard case .missed(let why) = corrupted else {
            Issue.record("a part that does not match was restored: \(corrupted)")
            return
        }
        #expect(why.contains("could not be used"), "\(why)")
        #expect(!FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build").path))
        // Parts without their record (a save killed before its record): never restored.
        try original.write(to: part)
        for record in records {
            try FileManager.default.removeItem(at: scoped.appendingPathComponent("\(hash)/\(record)"))
        }
        guard case .missed = try await setup.cache().restore(commits: ["c1"]) else {
            Issue.record("parts without a record were restored")
            return
        }
    }

    @Test("retention keeps the newest entries of each key and scope", arguments: Kind.available)
    func retention(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        for (commit, branch) in [("d1", "develop"), ("f1", "feature/a"), ("d2", "develop"), ("d3", "develop")] {
            try setup.build(commit)
            _ = try await setup.cache(keep: 2, scope: .branch(branch)).save(commit: commit)
            // Saves are told apart by the second they were made in.
            try await Task.sleep(for: .milliseconds(1100))
        }
        let develop = try setup.cache(scope: .branch("develop"))
        let feature = try setup.cache(scope: .branch("feature/a"))
        #expect(Set(try await develop.entries(in: develop.trees, scope: "").map(\.commit)) == ["d2", "d3"])
        #expect(Set(try await feature.entries(in: feature.trees, scope: "").map(\.commit)) == ["f1"])
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
            package: root, configuration: "debug", flags: ["--build-system", "swiftbuild"], buildSystem: "swiftbuild",
            variables: ProcessInfo.processInfo.environment, scratch: root)
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
        let products = try TestProducts(
            folder: setup.folder, key: setup.key(), package: setup.package,
            variables: ProcessInfo.processInfo.environment, scope: .pullRequest("7", base: "main"))
        let kept = try await products.keep(
            runners: [setup.package.appendingPathComponent(".build/debug/AppPackageTests.xctest")],
            configuration: "debug", run: "77", commit: "c1")
        #expect(kept.contains("for CI run 77"), "\(kept)")
        try setup.clean()
        guard case .unavailable(let otherCommit) = await products.fetch(run: "77", commit: "c2") else {
            Issue.record("products of another commit were fetched")
            return
        }
        #expect(otherCommit.contains("built from c1"), "\(otherCommit)")
        let elsewhere = try TestProducts(
            folder: setup.folder, key: setup.key(path: "/other"), package: setup.package,
            variables: ProcessInfo.processInfo.environment, scope: .pullRequest("7", base: "main"))
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
        // Another scope's job with the same run id (a post-merge run) never runs them.
        let develop = try TestProducts(
            folder: setup.folder, key: setup.key(), package: setup.package,
            variables: ProcessInfo.processInfo.environment, scope: .branch("main"))
        guard case .unavailable(let untrusted) = await develop.fetch(run: "77", commit: "c1") else {
            Issue.record("a pull request's products were fetched by a branch's job")
            return
        }
        #expect(untrusted.contains("no test products are kept for CI run 77"), "\(untrusted)")
        guard case .fetched = await products.fetch(run: "77", commit: "c1") else {
            Issue.record("the run's products were not fetched")
            return
        }
        #expect(setup.read(".build/debug/AppPackageTests.xctest") == "tests")
        #expect(setup.read(".build/debug/App_AppTests.resources/badges.json") == "{}")
        #expect(setup.read(".build/debug/App.build/App.o") == nil, "only the products travel")
    }

    @Test("a job reads its own scope and those above it, never a pull request's it is not", arguments: Kind.available)
    func scopes(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let first = TrustScope.pullRequest("7", base: "develop")
        try setup.build("pr7")
        _ = try await setup.cache(scope: first).save(commit: "p1")
        try setup.clean()
        // The post-merge job of develop, on the merge whose second parent is p1: nothing restored.
        let develop = TrustScope.branch("develop")
        guard case .missed(let why) = try await setup.cache(scope: develop).restore(commits: ["m1", "p1", "d0"])
        else {
            Issue.record("develop's job restored a pull request's build")
            return
        }
        #expect(
            why.contains("the nearest entry, p1's, was kept by pr/7, which this job does not trust"), "\(why)")
        #expect(!FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build").path))
        // Another pull request on the same base does not read it either.
        let second = TrustScope.pullRequest("8", base: "develop")
        guard case .missed = try await setup.cache(scope: second).restore(commits: ["p1"]) else {
            Issue.record("a pull request restored another's build")
            return
        }
        // Its own job does; a release reads nothing.
        guard case .restored(_, let scope, _, _, _, _) = try await setup.cache(scope: first).restore(commits: ["p1"])
        else {
            Issue.record("a pull request's own build was not restored")
            return
        }
        #expect(scope == "pr/7")
        try setup.clean()
        guard case .missed(let release) = try await setup.cache(scope: .tag("v1.0")).restore(commits: ["p1"]) else {
            Issue.record("a release restored a build")
            return
        }
        #expect(release.contains("p1's, was kept by pr/7"), "\(release)")
        // Develop's own entry is read by develop's job and by every pull request into develop.
        try setup.build("develop")
        _ = try await setup.cache(scope: develop).save(commit: "d0")
        for reader in [develop, second] {
            try setup.clean()
            guard
                case .restored(let tree, let scope, _, _, _, let passedOver) = try await setup.cache(scope: reader)
                    .restore(
                        commits: ["p2", "p1", "d0"])
            else {
                Issue.record("\(reader) did not restore develop's build")
                continue
            }
            #expect((tree.commit, scope) == ("d0", "branch/develop"))
            #expect(passedOver == ["p1's, kept by pr/7"], "the nearer entry of the other pull request is said")
            #expect(setup.read(".build/debug/App.o") == "object develop")
        }
        // The store holds each scope below its own folder, as bucket policies name them.
        let keys = try await setup.folder.store.list(under: setup.folder.prefix).map(\.key.rawValue)
        let relative = keys.map { key in setup.folder.prefix.map { String(key.dropFirst($0.rawValue.count + 1)) } ?? key
        }
        #expect(relative.allSatisfy { $0.hasPrefix("pr/7/") || $0.hasPrefix("branch/develop/") }, "\(relative)")
    }

    @Test("a dependency checkout that is not its pin's tree refuses the whole entry", arguments: Kind.available)
    func tamperedCheckout(kind: Kind) async throws {
        let setup = try await Setup(kind)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        let checkout = setup.package.appendingPathComponent(".build/checkouts/swift-numerics")
        let tampering: [(String, () throws -> Void)] = [
            (
                "Sources/Real.swift differs from",
                { try Scratch.write("evil", to: checkout.appendingPathComponent("Sources/Real.swift")) }
            ),
            (
                "Sources/Extra.swift is not in",
                { try Scratch.write("evil", to: checkout.appendingPathComponent("Sources/Extra.swift")) }
            ),
            (
                "Package.swift is missing",
                { try FileManager.default.removeItem(at: checkout.appendingPathComponent("Package.swift")) }
            ),
            (
                "Package.swift's executable bit differs",
                {
                    try FileManager.default.setAttributes(
                        [.posixPermissions: 0o755], ofItemAtPath: checkout.appendingPathComponent("Package.swift").path)
                }
            ),
        ]
        for (index, (expected, tamper)) in tampering.enumerated() {
            try? FileManager.default.removeItem(at: setup.package.appendingPathComponent(".build"))
            try setup.build("t\(index)")
            try tamper()
            _ = try await setup.cache().save(commit: "t\(index)")
            try setup.clean()
            guard case .missed(let why) = try await setup.cache().restore(commits: ["t\(index)"]) else {
                Issue.record("a tampered checkout was restored (\(expected))")
                continue
            }
            #expect(
                why.contains("is not restored: its dependency checkout 'swift-numerics' is not the pinned revision"),
                "\(why)")
            #expect(why.contains(expected), "\(why)")
            #expect(!FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build").path))
        }
        // A checkout Package.resolved does not pin.
        try? FileManager.default.removeItem(at: setup.package.appendingPathComponent(".build"))
        try setup.build("unpinned")
        try Scratch.git(
            setup.root, "clone", "-q", setup.numerics.path,
            checkout.deletingLastPathComponent().appendingPathComponent("other").path)
        _ = try await setup.cache().save(commit: "u1")
        try setup.clean()
        guard case .missed(let unpinned) = try await setup.cache().restore(commits: ["u1"]) else {
            Issue.record("an unpinned checkout was restored")
            return
        }
        #expect(unpinned.contains("'other' is pinned by no entry of Package.resolved"), "\(unpinned)")
    }

    @Test("without pins the checkouts are left out and SwiftPM's state with them; the products are restored")
    func unpinnedPackage() async throws {
        let setup = try await Setup(.folder)
        defer { try? FileManager.default.removeItem(at: setup.root) }
        try setup.build("c1")
        let key = setup.key(pinned: false)
        try Scratch.write("{}", to: setup.package.appendingPathComponent(".build/workspace-state.json"))
        _ = try await setup.cache(key).save(commit: "c1")
        try setup.clean()
        guard case .restored = try await setup.cache(key).restore(commits: ["c1"]) else {
            Issue.record("the products were not restored")
            return
        }
        #expect(setup.read(".build/debug/App.o") == "object c1")
        for left in ["checkouts", "repositories", "workspace-state.json"] {
            #expect(
                !FileManager.default.fileExists(atPath: setup.package.appendingPathComponent(".build/\(left)").path),
                "\(left)")
        }
    }
}
