import Foundation
import TestSupport
import Testing

/// `pipeline test --build-cache` on the example package, with real `swift build`s in fresh clones
/// (new modification times, as CI's): a change made after the cached commit is compiled (a source
/// and a resource), the results equal a clean build's, a build at another path or with other pins
/// is refused with the reason, and a CI run's nodes run the products its build job kept.
@Suite("The build cache, on real builds", .serialized)
struct BuildCacheCommandTests {
    /// The example package as a repository of its own, and the paths CI checks it out at.
    struct Team {
        let root: URL
        let source: URL
        let cache: URL
        let timings: URL

        init() throws {
            root = try Scratch.folder("build-cache-cli")
            source = root.appendingPathComponent("source")
            cache = root.appendingPathComponent("cache")
            timings = root.appendingPathComponent("timings.json")
            try FileManager.default.copyItem(at: ExamplePackage.root, to: source)
            try? FileManager.default.removeItem(at: source.appendingPathComponent(".build"))
            try Scratch.git(source, "init", "-q")
            try Scratch.git(source, "add", "-A")
            // Its pins, committed as an app's are (whatever the ignore files say).
            try Scratch.git(source, "add", "-f", "Package.resolved")
            try Scratch.git(source, "commit", "-q", "-m", "example")
        }

        /// A fresh clone at `path` (replacing any there): every file gets a new modification time.
        func checkout(_ path: String) throws -> URL {
            let folder = root.appendingPathComponent(path)
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(
                at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Scratch.git(root, "clone", "-q", source.path, folder.path)
            return folder
        }

        func test(_ package: URL, _ extra: [String] = [], environment: [String: String] = [:]) throws
            -> PipelineBinary.Result
        {
            try PipelineBinary.run(
                ["test", "--package-path", package.path, "--build-cache", cache.path, "--timings", timings.path]
                    + extra, in: root, environment: environment)
        }

        /// The failed tests of a `--json` report.
        static func failed(_ result: PipelineBinary.Result) throws -> Set<String> {
            Set(try ExamplePackage.report(result).filter { $0.value["status"] as? String != "passed" }.keys)
        }
    }

    @Test("a restored build compiles what changed, and its results are a clean build's")
    func restoredBuildIsSafe() throws {
        let team = try Team()
        defer { try? FileManager.default.removeItem(at: team.root) }
        // The first run builds clean and keeps its build.
        let first = try team.test(try team.checkout("ci/app"), ["--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("Build cache: nothing restored: the build cache in"), "\(first.stderr)")
        #expect(first.stderr.contains("Build cache: kept "), "\(first.stderr)")
        let cached = try Scratch.git(team.source, "rev-parse", "HEAD")

        // A change of a source (the brand colour every badge is drawn in) and of a resource.
        let brand = team.source.appendingPathComponent("Sources/ExampleKit/BadgeView.swift")
        try String(contentsOf: brand, encoding: .utf8).replacingOccurrences(
            of: "primary = RGB(32, 96, 208)", with: "primary = RGB(200, 16, 16)"
        ).write(to: brand, atomically: true, encoding: .utf8)
        let badges = team.source.appendingPathComponent("Tests/ExampleKitTests/Resources/badges.json")
        try String(contentsOf: badges, encoding: .utf8).replacingOccurrences(of: "Drafts", with: "Draft")
            .write(to: badges, atomically: true, encoding: .utf8)
        try Scratch.git(team.source, "commit", "-q", "-am", "brand colour, badge title")

        // A fresh clone of the change at the same path: the parent's build restored, the change compiled.
        let app = try team.checkout("ci/app")
        let restored = try team.test(app, ["--json"])
        #expect(restored.status == 1, "\(restored.stderr)")
        #expect(
            restored.stderr.contains("Build cache: restored the build of ancestor \(cached.prefix(12))"),
            "\(restored.stderr)")
        let failedRestored = try Team.failed(restored)
        #expect(
            failedRestored.contains("ExampleKitTests.BadgeResourceTests/testBadgesDrawTheirDots"), "\(failedRestored)")
        #expect(failedRestored.contains("ExampleKitTests.BadgeViewTests/testBadgeImage"), "\(failedRestored)")

        // The same commit at another path: the cache refuses it and the build is clean; same results.
        let elsewhere = try team.checkout("elsewhere/app")
        let clean = try team.test(elsewhere, ["--json"])
        #expect(
            clean.stderr.contains("package path ('\(elsewhere.path)' here, '\(app.path)' in the cache)"),
            "\(clean.stderr)")
        #expect(clean.stderr.contains("building clean"), "\(clean.stderr)")
        #expect(try Team.failed(clean) == failedRestored)

        // Other pins (Package.resolved moved, here removed): refused with the reason, built clean.
        let repinned = try team.checkout("ci/app")
        try FileManager.default.removeItem(at: repinned.appendingPathComponent("Package.resolved"))
        let pins = try team.test(repinned, ["--build-only"])
        #expect(pins.status == 0, "\(pins.stderr)")
        #expect(pins.stderr.contains("Package.resolved's pins ("), "\(pins.stderr)")
        #expect(pins.stderr.contains("building clean"), "\(pins.stderr)")
    }

    @Test("a CI run's nodes run the test products its build job kept, without building")
    func oneBuildForNodes() throws {
        let team = try Team()
        defer { try? FileManager.default.removeItem(at: team.root) }
        let ci = ["CI": "true", "GITHUB_RUN_ID": "4242", "GITHUB_REF_NAME": "main"]
        let build = try team.test(try team.checkout("ci/app"), ["--build-only"], environment: ci)
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.stdout.contains("kept the test products of"), "\(build.stdout)")
        #expect(build.stdout.contains("for CI run 4242"), "\(build.stdout)")
        // Each node is a fresh machine: a fresh clone at the same path.
        var ran = 0
        for node in ["1/2", "2/2"] {
            let app = try team.checkout("ci/app")
            let result = try team.test(app, ["--node", node, "--json"], environment: ci)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("fetched CI run 4242's test products"), "\(result.stderr)")
            #expect(!result.stderr.contains("Building the tests"), "\(result.stderr)")
            ran += try ExamplePackage.report(result).count
        }
        #expect(ran == ExamplePackage.testCount)
        // Another run's node finds none and builds, saying why.
        let other = try team.test(
            try team.checkout("ci/app"), ["--node", "2/2", "--list"],
            environment: ci.merging(["GITHUB_RUN_ID": "9"]) { $1 })
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stderr.contains("no test products are kept for CI run 9"), "\(other.stderr)")
        #expect(other.stderr.contains("restored the build of this commit"), "\(other.stderr)")
    }
}
