import Foundation
import ObjectStorage
import References
import TestSupport
import Testing

/// Where the end-to-end reference tests keep feature and develop: two folders, or two prefixes of
/// a fresh bucket on the S3 test server (when `scripts/test.sh` started it).
enum RefsBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case folder, s3

    static let s3Endpoint = ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"]
    static var available: [RefsBackend] { s3Endpoint == nil ? [.folder] : [.folder, .s3] }
    var description: String { rawValue }

    /// The spec's `references` block, after creating the bucket for S3.
    func references(endpoint: String? = nil) async throws -> String {
        switch self {
        case .folder:
            return "references:\n  feature: store/feature\n  develop: store/develop\n"
        case .s3:
            let bucket = "r-\(UUID().uuidString.prefix(18).lowercased())"
            let settings = S3Settings(
                endpoint: URL(string: Self.s3Endpoint!)!, bucket: bucket,
                credentials: AWSCredentials(accessKey: "test:tester", secret: "testing"))
            try await S3Store(settings).createBucket()
            return "references:\n  feature: s3://\(bucket)/feature\n  develop: s3://\(bucket)/develop\n"
                + "  endpoint: \(endpoint ?? Self.s3Endpoint!)\n"
        }
    }

    static let environment = [
        "AWS_ACCESS_KEY_ID": "test:tester", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_PROFILE": "",
        "CI": "true",
    ]

    /// The two credentials init's files expect, as a CI keeps them: the pull request's (the
    /// server's second user, `test:pr`, which `policy` fences) and develop's.
    static let pullRequestSecrets = [
        "PIPELINE_PR_AWS_ACCESS_KEY_ID": "test:pr", "PIPELINE_PR_AWS_SECRET_ACCESS_KEY": "pr-testing",
    ]
    static let developSecrets = [
        "PIPELINE_DEVELOP_AWS_ACCESS_KEY_ID": "test:tester", "PIPELINE_DEVELOP_AWS_SECRET_ACCESS_KEY": "testing",
    ]

    /// What the pull request's credential may write below `store` (a bucket's prefix, `app`), as
    /// docs/ci.md's bucket policy says: feature's references, the records of every scope but
    /// develop's own and its post-merge job's (`!` denies), and its build-cache scope.
    static func pullRequestPolicy(_ store: String) -> [String: [String]] {
        [
            "test:pr": [
                store + "/feature/", store + "/.pipeline/", "!" + store + "/.pipeline/develop/",
                "!" + store + "/.pipeline/branch/develop/", store + "/build-cache/pr/",
            ]
        ]
    }

    /// A proxy in front of the S3 server enforcing `pullRequestPolicy(store)`, as IAM would.
    static func policyProxy(_ store: String) throws -> FaultProxy {
        try FaultProxy(upstream: URL(string: s3Endpoint!)!, faults: [], policies: pullRequestPolicy(store))
    }
}

/// A repository with two snapshot tests (LoginTests, ProfileTests) whose references sit beside
/// their test files, as swift-snapshot-testing keeps them, and a spec naming the stores.
final class SnapshotRepository: ScratchRepository {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-refs-\(UUID().uuidString)")
    let snapshots: String
    static let snapshots = "Tests/AppTests/__Snapshots__"

    static let promoteOnly = """
        stages:
          - promote:
              from: feature
              to: develop

        """

    /// With `examplePackage`, the repository also holds the example package (its tests in
    /// Tests/ExampleKitTests), so a pipeline's test stage has something real to run.
    init(references: String, stages: String = promoteOnly, examplePackage: Bool = false) throws {
        let folder = examplePackage ? "Tests/ExampleKitTests" : "Tests/AppTests"
        snapshots = "\(folder)/__Snapshots__"
        if examplePackage { try copyExamplePackage() }
        try write(
            "pipelines/post-merge.yml",
            "name: post-merge\ndescription: Test, then promote the changed tests' references.\n"
                + references + stages)
        try write(".gitignore", "store/\n.build/\n")
        if !examplePackage {
            try write("\(folder)/LoginTests.swift", "// login v1\n")
            try write("\(folder)/ProfileTests.swift", "// profile v1\n")
        }
        let images =
            examplePackage
            ? ["ThumbnailTests/test_small.1.png": "thumbnail v1", "SlowRenderingTests/test_render.1.png": "render v1"]
            : ["LoginTests/test_login.1.png": "login v1", "ProfileTests/test_プロフィール 1.png": "profile v1"]
        for (path, content) in images { try write("\(snapshots)/\(path)", content) }
        try git("init", "-q", "-b", "develop")
        try commitAll("initial")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// As the team this is for does: references kept only in storage, ignored by git.
    func keepReferencesOutOfGit() throws {
        try write(".gitignore", "store/\n.build/\n__Snapshots__/\n")
        try git("rm", "-r", "-q", "--cached", snapshots)
        try commitAll("references only in storage")
    }

    func read(_ path: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    func sha(_ revision: String = "HEAD") throws -> String {
        try Git.run(["rev-parse", revision], in: root)
    }

    func pipeline(_ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: root, environment: RefsBackend.environment)
    }

    /// A `--json` report of a reference command.
    func report(_ arguments: String...) throws -> [String: Any] {
        try report(arguments)
    }

    func report(_ arguments: [String]) throws -> [String: Any] {
        let result = try PipelineBinary.run(arguments + ["--json"], in: root, environment: RefsBackend.environment)
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "\(arguments) exited \(result.status): \(result.stderr)"
                ])
        }
        return object
    }
}

@Suite("pipeline refs: the team's scripts as commands, on the folder store and on S3", .serialized)
struct RefsCommandTests {
    static let login = "\(SnapshotRepository.snapshots)/LoginTests/test_login.1.png"

    @Test(
        "feature pushed without records (an older pipeline, a team's own script): promote after merges, a later merge's references protected until --force, re-runs copy nothing"
    )
    func promotionWithoutRecords() async throws {
        let repo = try SnapshotRepository(references: try await RefsBackend.folder.references())
        try repo.keepReferencesOutOfGit()
        // What pipeline keeps beside the latest copy is not there: feature is the latest copy alone.
        func push(_ tests: String...) throws -> [String: Any] {
            defer {
                for scope in RecordFiles.scopeFolders(of: repo.root.appendingPathComponent("store/feature")) {
                    try? FileManager.default.removeItem(at: scope.appendingPathComponent(PushArchive.recordsFolder))
                }
            }
            return try repo.report(["refs", "push"] + tests)
        }
        #expect(
            try push("LoginTests", "ProfileTests")["copied"] as? [String]
                == ["LoginTests/test_login.1.png", "ProfileTests/test_プロフィール 1.png"])
        let first = try repo.report("refs", "promote", "LoginTests", "ProfileTests")
        #expect(first["copied"] as? [String] == ["LoginTests/test_login.1.png", "ProfileTests/test_プロフィール 1.png"])
        #expect(first["commit"] as? String == (try repo.sha()))

        // Two branches cut from here change the same reference; a merges first, then b.
        try repo.git("checkout", "-q", "-b", "feature-a")
        try repo.write("Tests/AppTests/LoginTests.swift", "// login a\n")
        try repo.write(Self.login, "login a")
        try repo.commitAll("a")
        _ = try push("LoginTests")
        try repo.git("checkout", "-q", "develop")
        try repo.git("checkout", "-q", "-b", "feature-b")
        try repo.write(Self.login, "login b")
        try repo.write("Tests/AppTests/ProfileTests.swift", "// profile b\n")
        try repo.commitAll("b")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge a", "feature-a")
        let mergeA = try repo.sha()
        let promotedA = try repo.report("refs", "promote")
        #expect(promotedA["tests"] as? [String] == ["LoginTests"], "the merge changed LoginTests only")
        #expect(promotedA["copied"] as? [String] == ["LoginTests/test_login.1.png"])

        // b pushes its references, then merges (its LoginTests image differs from a's).
        try repo.git("checkout", "-q", "feature-b")
        _ = try push("LoginTests")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge b", "-X", "theirs", "feature-b")
        let refused = try repo.pipeline("refs", "promote")
        #expect(refused.status == 8, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("LoginTests/test_login.1.png, promoted by \(mergeA.prefix(12))"),
            "\(refused.stderr)")
        let preview = try repo.report("refs", "promote", "--dry-run")
        #expect((preview["conflicts"] as? [[String: String]])?.first?["commit"] == mergeA)
        #expect(refused.stderr.contains("re-run with --overwrite to overwrite them"), "\(refused.stderr)")
        let unconfirmed = try repo.pipeline("refs", "promote", "--overwrite")
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stderr.contains("needs confirmation"), "\(unconfirmed.stderr)")
        // Nothing was overwritten: develop still has a's image.
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login a")

        let forced = try repo.report("refs", "promote", "--overwrite", "--yes")
        #expect(forced["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        let again = try repo.report("refs", "promote", "--overwrite", "--yes")
        #expect((again["copied"] as? [String])?.isEmpty == true)
        #expect(again["tests"] as? [String] == ["ProfileTests"], "feature's LoginTests is develop's now: \(again)")
        #expect(again["identical"] as? Int == 1)
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.read(Self.login) == "login b")
    }

    @Test(
        "pull replaces each test's local references, keeps local-only tests, fetches named tests from feature",
        arguments: RefsBackend.available)
    func pull(backend: RefsBackend) async throws {
        let repo = try SnapshotRepository(references: try await backend.references())
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes").status == 0)
        try repo.write(Self.login, "edited locally")
        try repo.write("\(SnapshotRepository.snapshots)/LoginTests/extra.png", "not in develop")
        try repo.write("Tests/AppTests/NewTests.swift", "// new\n")
        try repo.write("\(SnapshotRepository.snapshots)/NewTests/n.png", "recorded, not pushed")
        let preview = try repo.report("refs", "pull", "--dry-run")
        #expect(preview["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect(repo.read(Self.login) == "edited locally", "a dry run writes nothing")

        let pulled = try repo.report("refs", "pull")
        #expect(pulled["deleted"] as? [String] == ["LoginTests/extra.png"])
        #expect((pulled["skipped"] as? [String: String])?["NewTests"] != nil)
        #expect(repo.read(Self.login) == "login v1")
        #expect(repo.read("\(SnapshotRepository.snapshots)/LoginTests/extra.png") == nil)
        #expect(repo.read("\(SnapshotRepository.snapshots)/NewTests/n.png") == "recorded, not pushed")

        try repo.write(Self.login, "under review")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        try repo.write(Self.login, "something else")
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature").status == 0)
        #expect(repo.read(Self.login) == "under review")
        let missing = try repo.pipeline("refs", "pull", "NewTests", "--from", "feature")
        #expect(missing.status == 5)
        #expect(missing.stderr.contains("has no references for 'NewTests'"), "\(missing.stderr)")
    }

    @Test(
        "a first recording: push --all and promote --all --force take every test with references; --force alone fails",
        arguments: RefsBackend.available)
    func everyTest(backend: RefsBackend) async throws {
        let repo = try SnapshotRepository(references: try await backend.references())
        try repo.write("Tests/AppTests/EmptyTests.swift", "// no references\n")
        let alone = try repo.pipeline("refs", "promote", "--force", "--yes")
        #expect(alone.status == 2)
        #expect(
            alone.stderr
                == "error: refs promote --force pushes the checkout's references to feature and develop: name the "
                + "tests, or pass --all (to overwrite develop's later promotions in a merge's promotion: --overwrite)\n"
        )
        #expect(try repo.pipeline("refs", "promote", "--all").status == 2, "--all goes with --force")
        #expect(try repo.pipeline("refs", "push").status == 2, "push names tests or takes --all")

        let promoted = try repo.pipeline("refs", "promote", "--all", "--force", "--yes", "--json")
        #expect(promoted.status == 0, "\(promoted.stderr)")
        let reports = try #require(
            try JSONSerialization.jsonObject(with: Data(promoted.stdout.utf8)) as? [[String: Any]])
        #expect(
            reports.map { $0["tests"] as? [String] } == [
                ["LoginTests", "ProfileTests"], ["LoginTests", "ProfileTests"],
            ])
        #expect(reports.map { ($0["copied"] as? [String])?.count } == [2, 2], "to feature and to develop")
        try repo.write(Self.login, "login v2")
        let pushed = try repo.report("refs", "push", "--all")
        #expect(pushed["tests"] as? [String] == ["LoginTests", "ProfileTests"])
        #expect(pushed["copied"] as? [String] == ["LoginTests/test_login.1.png"])

        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(SnapshotRepository.snapshots))
        let nothing = try repo.pipeline("refs", "push", "--all")
        #expect(nothing.status == 2)
        #expect(
            nothing.stderr.contains("nothing to push to feature: no test has references in "), "\(nothing.stderr)")
        #expect(nothing.stderr.contains("('pipeline refs record --all')"), "\(nothing.stderr)")
    }

    @Test(
        "check-access: each store read, the stores a job writes written, read back and cleared; a store that refuses says so, exit 5",
        arguments: RefsBackend.available)
    func checkAccess(backend: RefsBackend) async throws {
        let repo = try SnapshotRepository(references: try await backend.references())
        #expect(try repo.pipeline("refs", "promote", "--all", "--force", "--yes").status == 0)
        let checked = try repo.pipeline("refs", "check-access", "--write", "feature")
        #expect(checked.status == 0, "\(checked.stderr)")
        let lines = checked.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(checked.stdout)")
        #expect(lines[0].hasPrefix("feature ") && lines[0].hasSuffix(", writes"), "\(checked.stdout)")
        #expect(lines[1].hasPrefix("develop ") && lines[1].contains("reads (") && !lines[1].contains("writes"))
        // The probe is gone again: feature holds what it held.
        let json = try repo.pipeline("refs", "check-access", "--write", "feature", "--write", "develop", "--json")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(results.map { $0["writes"] as? Bool } == [true, true], "\(json.stdout)")
        #expect(
            results[0]["objects"] as? Int
                == lines[0].split(separator: "(")[1].split(separator: " ").first.flatMap { Int($0) })

        switch backend {
        case .folder:
            // A store that cannot take the probe: its folder holds a file where the probe's folder goes.
            try repo.write("store/feature/.pipeline-access", "in the way")
            let refused = try repo.pipeline("refs", "check-access", "--write", "feature")
            #expect(refused.status == 5, "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.contains("feature store/feature: reads ("), "\(refused.stdout)")
            #expect(refused.stdout.contains("cannot write: "), "\(refused.stdout)")
        case .s3:
            // Credentials the server refuses: no store is read, and the secret appears nowhere.
            let denied = try PipelineBinary.run(
                ["refs", "check-access", "--write", "feature"], in: repo.root,
                environment: RefsBackend.environment.merging(["AWS_SECRET_ACCESS_KEY": "wrong-secret-value"]) { $1 })
            #expect(denied.status == 5, "\(denied.stdout) \(denied.stderr)")
            #expect(
                denied.stdout.split(separator: "\n").allSatisfy { $0.contains(": cannot read") }, "\(denied.stdout)")
            #expect(!(denied.stdout + denied.stderr).contains("wrong-secret-value"))
        }
    }

    @Test("orphans: references in develop whose test file is gone", arguments: RefsBackend.available)
    func orphans(backend: RefsBackend) async throws {
        let repo = try SnapshotRepository(references: try await backend.references())
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes").status == 0)
        #expect(try repo.pipeline("refs", "orphans").stdout.contains("No orphaned references"))
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent("Tests/AppTests/ProfileTests.swift"))
        let result = try repo.pipeline("refs", "orphans", "--json")
        let orphans = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(orphans?.map { $0["test"] as? String } == ["ProfileTests"])
        #expect(orphans?.first?["objects"] as? Int == 1)
    }

    @Test("bad names and missing settings: one line each, a distinct exit code, nothing written")
    func badInput() async throws {
        let repo = try SnapshotRepository(references: try await RefsBackend.folder.references())
        let notATest = try repo.pipeline("refs", "push", "Nope")
        #expect(notATest.status == 2)
        #expect(notATest.stderr == "error: 'Nope' is not a test here: no test file Nope.swift in \(repo.root.path)\n")
        try repo.write("Tests/AppTests/EmptyTests.swift", "// no references\n")
        let empty = try repo.pipeline("refs", "push", "EmptyTests")
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("'EmptyTests' is not a test here: it has no local references"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent("store").path))

        try repo.write("pipelines/post-merge.yml", "name: post-merge\ndescription: none\nstages: []\n")
        let unset = try repo.pipeline("refs", "pull")
        #expect(unset.status == 3)
        #expect(unset.stderr.contains("references.develop is not set"), "\(unset.stderr)")
        let secret = "SECRET-not-to-be-printed-19"
        let wrong = try PipelineBinary.run(
            ["refs", "pull", "--develop", "s3://no-bucket/develop", "--endpoint", "http://127.0.0.1:9"],
            in: repo.root, environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": secret])
        #expect(wrong.status == 5)
        #expect(wrong.stderr.hasPrefix("error: http://127.0.0.1:9: "), "\(wrong.stderr)")
        #expect(!(wrong.stdout + wrong.stderr).contains(secret))
    }

    @Test(
        "a hostile store's key leading out of the checkout is refused before anything is written",
        .enabled(if: RefsBackend.s3Endpoint != nil))
    func hostileKey() async throws {
        let proxy = try FaultProxy(
            upstream: URL(string: RefsBackend.s3Endpoint!)!, faults: [],
            evilKey: "develop/LoginTests/../../../../escape.png")
        let repo = try SnapshotRepository(
            references: try await RefsBackend.s3.references(endpoint: proxy.endpoint.absoluteString))
        let before = FileManager.default.subpaths(atPath: repo.root.path)?.sorted()
        let result = try repo.pipeline("refs", "pull")
        #expect(result.status == 5)
        #expect(
            result.stderr.contains("refusing the object key 'develop/LoginTests/../../../../escape.png'"),
            "\(result.stderr)")
        #expect(FileManager.default.subpaths(atPath: repo.root.path)?.sorted() == before)
    }

    @Test(
        "a promotion killed half-way finishes on the next run, copying nothing twice",
        .enabled(if: RefsBackend.s3Endpoint != nil))
    func killed() async throws {
        let proxy = try FaultProxy(
            upstream: URL(string: RefsBackend.s3Endpoint!)!,
            faults: Array(repeating: "delay=0.05", count: 3000))  // every request of the push and the promotion
        let references = try await RefsBackend.s3.references(endpoint: proxy.endpoint.absoluteString)
        let repo = try SnapshotRepository(references: references)
        try repo.write("Tests/AppTests/BigTests.swift", "// big\n")
        for index in 0..<40 {
            try repo.write("\(SnapshotRepository.snapshots)/BigTests/image\(index).png", "image \(index)")
        }
        #expect(try repo.pipeline("refs", "push", "BigTests").status == 0)

        let process = Process()
        process.executableURL = PipelineBinary.url
        process.arguments = ["refs", "promote", "BigTests", "--parallel", "2"]
        process.currentDirectoryURL = repo.root
        process.environment = ProcessInfo.processInfo.environment.merging(RefsBackend.environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let pushes = proxy.requests.count
        try process.run()
        // Killed once some copies have been answered (develop's objects, not its bookkeeping).
        while proxy.requests.dropFirst(pushes).filter({ $0.hasPrefix("PUT ") && $0.contains("/develop/BigTests/") })
            .count < 6, process.isRunning
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let resumed = try repo.report("refs", "promote", "BigTests")
        let copiedBefore = resumed["identical"] as? Int ?? 0
        #expect(copiedBefore >= 6 && copiedBefore < 40, "\(copiedBefore) copied before the kill")
        #expect((resumed["copied"] as? [String])?.count == 40 - copiedBefore)
        let final = try repo.report("refs", "promote", "BigTests")
        #expect(final["identical"] as? Int == 40)
    }

    @Test(
        "a bucket whose ETags are not MD5s (SSE-KMS): pulls check what they read and copy nothing twice, a merge promotes only what its branch changed",
        .enabled(if: RefsBackend.s3Endpoint != nil))
    func kmsETags() async throws {
        let proxy = try FaultProxy(upstream: URL(string: RefsBackend.s3Endpoint!)!, faults: [], kmsETags: true)
        let repo = try SnapshotRepository(
            references: try await RefsBackend.s3.references(endpoint: proxy.endpoint.absoluteString))
        try repo.keepReferencesOutOfGit()
        try repo.write("\(SnapshotRepository.snapshots)/LoginTests/test_logout.1.png", "logout v1")
        let seeded = try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes")
        #expect(seeded.status == 0, "\(seeded.stderr)")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(SnapshotRepository.snapshots))
        let pulled = try repo.report("refs", "pull")
        #expect((pulled["copied"] as? [String])?.count == 3, "\(pulled)")
        #expect(repo.read("\(SnapshotRepository.snapshots)/LoginTests/test_logout.1.png") == "logout v1")
        let again = try repo.report("refs", "pull")
        #expect((again["copied"] as? [String]) == [] && again["identical"] as? Int == 3, "\(again)")

        try repo.git("checkout", "-q", "-b", "feature/login")
        try repo.write("Tests/AppTests/LoginTests.swift", "// login v2\n")
        try repo.write("\(SnapshotRepository.snapshots)/LoginTests/test_login.1.png", "login v2")
        try repo.commitAll("login v2")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge login", "feature/login")
        let promoted = try repo.report("refs", "promote")
        #expect(promoted["copied"] as? [String] == ["LoginTests/test_login.1.png"], "\(promoted)")
        #expect(proxy.requests.contains { $0.hasPrefix("HEAD ") }, "digests read from the objects' metadata")
    }

    @Test(
        "pruneKilledMidway: a prune killed after any of its writes leaves no record naming a file its push lacks, and the next one finishes it"
    )
    func pruneKilledMidway() async throws {
        let repo = try SnapshotRepository(references: try await RefsBackend.folder.references())
        try repo.keepReferencesOutOfGit()
        try repo.git("checkout", "-q", "-b", "feature/x")
        try repo.write("Tests/AppTests/LoginTests.swift", "// login v2\n")
        try repo.write("\(SnapshotRepository.snapshots)/LoginTests/test_login.1.png", "login v2")
        try repo.commitAll("login v2")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge x", "feature/x")
        try FileManager.default.createDirectory(
            at: repo.root.appendingPathComponent("store/develop"), withIntermediateDirectories: true)
        #expect(try repo.pipeline("refs", "promote").status == 0)
        let store = repo.root.appendingPathComponent("store")
        let template = repo.root.appendingPathComponent("template")
        try FileManager.default.copyItem(at: store, to: template)
        func run(_ extra: [String: String]) throws -> Int32 {
            try PipelineBinary.run(
                ["refs", "prune"], in: repo.root, environment: RefsBackend.environment.merging(extra) { $1 }
            ).status
        }
        /// Every record's files, present in its push with the content it names.
        func wholeArchive() throws -> [String] {
            var problems: [String] = []
            let scopes = RecordFiles.scopeFolders(of: store.appendingPathComponent("feature"))
            for scope in scopes {
                let records = scope.appendingPathComponent(".push-records/LoginTests")
                for file in (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? [] {
                    let record =
                        try JSONSerialization.jsonObject(
                            with: try Data(contentsOf: records.appendingPathComponent(file))) as? [String: Any]
                    let commit = String(file.dropLast(".json".count))
                    for name in (record?["files"] as? [String: Any] ?? [:]).keys
                    where !scopes.contains(where: {
                        FileManager.default.fileExists(
                            atPath: $0.appendingPathComponent(".pushes/\(commit)/LoginTests/\(name)").path)
                    }) {
                        problems.append("\(file) names \(name)")
                    }
                }
            }
            return problems
        }
        #expect(
            RecordFiles.scopeFolders(of: template.appendingPathComponent("feature")).contains {
                FileManager.default.fileExists(atPath: $0.appendingPathComponent(".push-records/LoginTests").path)
            }, "the pushes a prune removes are there to begin with")
        let count = repo.root.appendingPathComponent("writes.txt")
        #expect(try run(["PIPELINE_TEST_COUNT_WRITES": count.path]) == 0)
        let writes = try String(contentsOf: count, encoding: .utf8).split(separator: "\n").count
        #expect(writes >= 4, "a marker, a record, files, the marker again: \(writes)")
        for k in 1...writes {
            try FileManager.default.removeItem(at: store)
            try FileManager.default.copyItem(at: template, to: store)
            #expect(try run(["PIPELINE_TEST_KILL_AFTER": String(k)]) != 0, "killed after write \(k)")
            #expect(try wholeArchive().isEmpty, "killed after write \(k)")
            #expect(try run([:]) == 0)
            // Objects, not folders: a folder emptied by a kill between a delete and its tidying holds nothing.
            let left = RecordFiles.scopeFolders(of: store.appendingPathComponent("feature")).flatMap { scope in
                (FileManager.default.subpaths(atPath: scope.path) ?? []).filter { path in
                    var folder: ObjCBool = false
                    return path.hasPrefix(".push")
                        && FileManager.default.fileExists(
                            atPath: scope.appendingPathComponent(path).path, isDirectory: &folder)
                        && !folder.boolValue
                }
            }
            #expect(left.isEmpty, "killed after write \(k), then finished: \(left)")
        }
    }

    @Test("a review stage writes the page for the changed tests as an artifact")
    func reviewStage() async throws {
        let repo = try SnapshotRepository(
            references: try await RefsBackend.folder.references(),
            stages: "stages:\n  - review:\n      output: artifacts/review.html\n")
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes").status == 0)
        try repo.write(Self.login, "login v2")
        try repo.commitAll("new login image")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        let result = try repo.pipeline("run", "post-merge")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "review  passed  \(repo.root.path)/artifacts/review.html: 1 changed, 0 new, 0 removed"),
            "\(result.stdout)")
        let page = repo.read("artifacts/review.html") ?? ""
        #expect(page.contains("<h2>LoginTests/test_login.1.png<span class=\"status changed\">"))
        #expect(
            page.contains("<div class=\"removed\">− login v1</div><div class=\"added\">+ login v2</div>"),
            "the test's references are text, not PNGs: the page shows their line diff")
    }
}
