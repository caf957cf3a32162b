import Foundation
import ObjectStorage
import TestSupport
import Testing

/// `pipeline test --build-cache` on the example package, with real `swift build`s in fresh clones
/// (new modification times, as CI's): a change made after the cached commit is compiled (a source
/// and a resource), the results equal a clean build's, a build at another path or with other pins
/// is refused with the reason, a CI run's nodes run the products its build job kept, and what a
/// pull request's job keeps never runs in a post-merge job (folder store and S3).
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
            // Without its .build, which another suite's build may be writing meanwhile.
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            for item in try FileManager.default.contentsOfDirectory(atPath: ExamplePackage.root.path)
            where item != ".build" {
                try FileManager.default.copyItem(
                    at: ExamplePackage.root.appendingPathComponent(item), to: source.appendingPathComponent(item))
            }
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

        func test(
            _ package: URL, _ extra: [String] = [], environment: [String: String] = [:], cache: String? = nil
        ) throws -> PipelineBinary.Result {
            try PipelineBinary.run(
                [
                    "test", "--package-path", package.path, "--build-cache", cache ?? self.cache.path, "--timings",
                    timings.path,
                ] + extra, in: root,
                // A developer's machine unless the test says which CI (the test script runs with CI=true,
                // which alone is a CI whose jobs' trust cannot be told: they restore nothing).
                environment: ["CI": "false"].merging(environment) { $1 })
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

    enum Store: String, CaseIterable, CustomStringConvertible {
        case folder, s3
        var description: String { rawValue }
        static var available: [Store] {
            ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"] == nil ? [.folder] : [.folder, .s3]
        }
    }

    @Test(
        "what a pull request's job keeps never runs in a post-merge job; pull requests restore develop's build",
        arguments: Store.available)
    func trust(store: Store) async throws {
        let team = try Team()
        defer { try? FileManager.default.removeItem(at: team.root) }
        var (cache, credentials) = (team.cache.path, [String: String]())
        if store == .s3 {
            let endpoint = try #require(ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"])
            let bucket = "trust-\(UUID().uuidString.prefix(18).lowercased())"
            let (key, secret) = ("test:tester", "testing")
            try await S3Store(
                S3Settings(
                    endpoint: try #require(URL(string: endpoint)), bucket: bucket,
                    credentials: AWSCredentials(accessKey: key, secret: secret))
            ).createBucket()
            cache = "s3://\(bucket)/build-cache"
            credentials = [
                "AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
                "AWS_REGION": "us-east-1",
            ]
        }
        let gitHub = credentials.merging(["CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1"]) { $1 }
        let develop = gitHub.merging(["GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop"]) { $1 }
        func pullRequest(_ number: Int, branch: String) -> [String: String] {
            gitHub.merging([
                "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/\(number)/merge",
                "GITHUB_HEAD_REF": branch, "GITHUB_BASE_REF": "develop", "GITHUB_RUN_ID": "\(100 + number)",
            ]) { $1 }
        }
        func commit(_ message: String, _ file: String = "README.md") throws -> String {
            let url = team.source.appendingPathComponent(file)
            try (String(contentsOf: url, encoding: .utf8) + "\n" + message + "\n").write(
                to: url, atomically: true, encoding: .utf8)
            try Scratch.git(team.source, "commit", "-q", "-am", message)
            return try Scratch.git(team.source, "rev-parse", "HEAD")
        }
        let marker = team.root.appendingPathComponent("tampered-assertSnapshot-ran")
        try Scratch.git(team.source, "checkout", "-q", "-b", "develop")
        let base = try Scratch.git(team.source, "rev-parse", "HEAD")

        // Develop's job builds and keeps its build, in develop's scope.
        let first = try team.test(try team.checkout("ci/app"), ["--build-only"], environment: develop, cache: cache)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("Build cache: scope branch/develop, reading branch/develop"), "\(first.stderr)")
        #expect(first.stdout.contains("kept \(base.prefix(12))'s build in"), "\(first.stdout)")

        // Pull request 7: its first commit restores develop's build (warm) and keeps its own.
        try Scratch.git(team.source, "checkout", "-q", "-b", "feature/seven")
        let seven = try commit("seven")
        let app = try team.checkout("ci/app")
        try Scratch.git(app, "checkout", "-q", "feature/seven")
        let warm = try team.test(
            app, ["--build-only"], environment: pullRequest(7, branch: "feature/seven"), cache: cache)
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stderr.contains("scope pr/7, reading pr/7, branch/develop"), "\(warm.stderr)")
        #expect(
            warm.stderr.contains("restored the build of ancestor \(base.prefix(12))")
                && warm.stderr.contains("branch/develop"),
            "\(warm.stderr)")
        #expect(warm.stdout.contains("kept \(seven.prefix(12))'s build"), "\(warm.stdout)")

        // Code the pull request runs changes a dependency's checkout: assertSnapshot now writes a
        // file. Its next commit's job builds on it, runs it, and keeps that build in pr/7.
        let assert = app.appendingPathComponent(
            ".build/checkouts/swift-snapshot-testing/Sources/SnapshotTesting/AssertSnapshot.swift")
        let original = try String(contentsOf: assert, encoding: .utf8)
        let tampered = original.replacingOccurrences(
            of: ") {\n  let failure = verifySnapshot(",
            with: ") {\n  FileManager.default.createFile(atPath: \"\(marker.path)\", contents: nil)\n"
                + "  let failure = verifySnapshot(")
        #expect(tampered != original, "assertSnapshot's body was found")
        try tampered.write(to: assert, atomically: true, encoding: .utf8)
        let tamperedCommit = try commit("tampered")
        try Scratch.git(app, "pull", "-q", "--ff-only")
        let pr = try team.test(app, ["--json"], environment: pullRequest(7, branch: "feature/seven"), cache: cache)
        #expect(pr.status == 0, "\(pr.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker.path), "the tampered assertSnapshot ran in its own job")
        #expect(pr.stderr.contains("kept \(tamperedCommit.prefix(12))'s build"), "\(pr.stderr)")
        try FileManager.default.removeItem(at: marker)

        // Merged with a merge commit: the pull request's head is an ancestor of develop. The
        // post-merge job passes over pr/7's entries, says so, and the tampered code never runs.
        try Scratch.git(team.source, "checkout", "-q", "develop")
        try Scratch.git(team.source, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "feature/seven")
        let postMerge = try team.test(try team.checkout("ci/app"), ["--json"], environment: develop, cache: cache)
        #expect(postMerge.status == 0, "\(postMerge.stderr)")
        #expect(
            postMerge.stderr.contains("restored the build of ancestor \(base.prefix(12))"), "\(postMerge.stderr)")
        #expect(
            postMerge.stderr.contains("passed over nearer entries this job does not trust: "), "\(postMerge.stderr)")
        for passed in [tamperedCommit, seven] {
            #expect(postMerge.stderr.contains("\(passed.prefix(12))'s, kept by pr/7"), "\(postMerge.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the pull request's build ran after the merge")
        #expect(try ExamplePackage.report(postMerge).count == ExamplePackage.testCount)

        // Pull request 8, stacked on 7's tampered commit: never 7's entries; develop's, warm.
        try Scratch.git(team.source, "checkout", "-q", "-b", "feature/eight", tamperedCommit)
        _ = try commit("eight")
        let stacked = try team.checkout("ci/app")
        try Scratch.git(stacked, "checkout", "-q", "feature/eight")
        let eight = try team.test(
            stacked, ["--json"], environment: pullRequest(8, branch: "feature/eight"), cache: cache)
        #expect(eight.status == 0, "\(eight.stderr)")
        #expect(eight.stderr.contains("restored the build of ancestor \(base.prefix(12))"), "\(eight.stderr)")
        #expect(eight.stderr.contains("\(tamperedCommit.prefix(12))'s, kept by pr/7"), "\(eight.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "another pull request ran 7's build")
    }
}
