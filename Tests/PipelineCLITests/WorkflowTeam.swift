import Foundation
import ObjectStorage
import TestSupport

/// A team adopting pipeline, as the workflow tests play it: its app in a repository pushed to an
/// origin, `pipeline init`'s files for the CIs beside it, a runner (`CIRunner`) whose install step
/// installs the release from a server on 127.0.0.1, and the first recording done as init's next
/// steps say.
final class WorkflowTeam {
    /// What `pipeline init` is run with (the store's flags added), which of the files it wrote go
    /// where in the repository (`from` in init's folder, `to` in the repository), and the team's
    /// own files init finds there first (a bitrise.yml it joins).
    struct Setup {
        let flags: [String]
        let files: [(from: String, to: String)]
        var existing: [(path: String, text: String)] = []
    }

    /// The app: a folder copied into the repository (its `.build` left out), the source file whose
    /// `primary = RGB(…)` a pull request changes, the folders kept out of git, and the test file a
    /// pull request adds a new snapshot test to.
    struct App {
        let source: URL
        let view: String
        let ignored: [String]
        var snapshotTests: String? = nil
    }

    let scratch: URL
    let origin: URL
    let dev: URL
    let runner: CIRunner
    let server: FileServer
    let backend: RefsBackend
    let store: String
    /// On S3: the proxy enforcing the pull request's bucket policy (docs/ci.md).
    let proxy: FaultProxy?
    let app: App
    var pullRequests = 0

    init(
        _ backend: RefsBackend, app: App, setups: [Setup], record: [[String]], variables extra: [String: String] = [:]
    ) async throws {
        self.backend = backend
        self.app = app
        scratch = try Scratch.folder("workflows")
        origin = scratch.appendingPathComponent("origin.git")
        dev = scratch.appendingPathComponent("dev")
        // The release, as a project serving its own releases lays it out.
        let version = String(
            try PipelineBinary.run(["--version"], in: scratch).stdout.dropFirst("pipeline ".count)
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let releases = scratch.appendingPathComponent("releases")
        let packaged = try Shell.run(
            "bash",
            [
                "scripts/release.sh", "--binary", PipelineBinary.url.path, "--out",
                releases.appendingPathComponent("your-org/pipeline/releases/download/v\(version)").path,
            ])
        guard packaged.status == 0 else { throw CIRunner.Failure(description: packaged.stderr) }
        try FileManager.default.copyItem(
            at: Shell.repository.appendingPathComponent("scripts/install.sh"),
            to: releases.appendingPathComponent("install.sh"))
        server = try FileServer(folder: releases)

        var flags: [String]
        switch backend {
        case .folder:
            store = scratch.appendingPathComponent("store").path
            flags = ["--store", store]
            proxy = nil
        case .s3:
            let bucket = "w-\(UUID().uuidString.prefix(18).lowercased())"
            try await S3Store(
                S3Settings(
                    endpoint: URL(string: RefsBackend.s3Endpoint!)!, bucket: bucket,
                    credentials: AWSCredentials(accessKey: "test:tester", secret: "testing"))
            ).createBucket()
            store = "s3://\(bucket)/app"
            let proxy = try RefsBackend.policyProxy("app")
            self.proxy = proxy
            flags = ["--store", store, "--endpoint", proxy.endpoint.absoluteString]
        }
        try Git.run(["init", "-q", "--bare", "-b", "develop", origin.path], in: scratch)
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        for item in try FileManager.default.contentsOfDirectory(atPath: app.source.path) where item != ".build" {
            try FileManager.default.copyItem(
                at: app.source.appendingPathComponent(item), to: dev.appendingPathComponent(item))
        }
        try Scratch.write(
            app.ignored.map { $0 + "/\n" }.joined(), to: dev.appendingPathComponent(".gitignore"))
        try Git.run(["init", "-q", "-b", "develop"], in: dev)
        // Each CI's files, written by init in a folder of their own (init writes only new files).
        for (index, setup) in setups.enumerated() {
            let folder = scratch.appendingPathComponent("init-\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (path, text) in setup.existing { try Scratch.write(text, to: folder.appendingPathComponent(path)) }
            let initialized = try PipelineBinary.run(["init"] + setup.flags + flags, in: folder)
            guard initialized.status == 0 else { throw CIRunner.Failure(description: initialized.stderr) }
            for (from, to) in setup.files {
                let target = dev.appendingPathComponent(to)
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: folder.appendingPathComponent(from), to: target)
            }
        }
        try Git.run(["add", "-A"], in: dev)
        try Git.run(["commit", "-q", "-m", "The app, and pipeline init's files"], in: dev)
        try Git.run(["remote", "add", "origin", origin.path], in: dev)
        try Git.run(["push", "-q", "origin", "develop"], in: dev)

        var variables = RefsBackend.environment
        variables["PIPELINE_INSTALL_SCRIPT"] = server.address.absoluteString + "/install.sh"
        variables["PIPELINE_RELEASES"] = server.address.absoluteString + "/your-org/pipeline/releases/download"
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        variables.merge(extra) { $1 }
        // The jobs hold the store's keys only as the CI gives each its own (the files map them).
        var jobVariables = variables
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] { jobVariables.removeValue(forKey: name) }
        runner = try CIRunner(origin: origin, scratch: scratch, releases: server.address, variables: jobVariables)
        runner.secrets = RefsBackend.pullRequestSecrets
        runner.developSecrets = RefsBackend.developSecrets

        // The first recording, as init's next steps say, on the runner's checkout of develop.
        try runner.checkout(try Git.run(["rev-parse", "HEAD"], in: dev))
        for command in record {
            let result = try PipelineBinary.run(command, in: runner.workspace, environment: variables)
            guard result.status == 0 else { throw CIRunner.Failure(description: "\(command): \(result.stderr)") }
        }
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A branch changing the brand colour to `colour`, pushed, and the pull request's merge of
    /// it into develop (`refs/pull/N/merge`); the branch head and the merge.
    /// `newTest`: a snapshot test method of that name added to the app's snapshot test file.
    func pullRequest(_ branch: String, colour: String?, newTest: String? = nil) throws -> (head: String, merge: String)
    {
        pullRequests += 1
        try Git.run(["checkout", "-q", "-B", branch, "develop"], in: dev)
        if let newTest, let file = app.snapshotTests {
            let url = dev.appendingPathComponent(file)
            let source = try String(contentsOf: url, encoding: .utf8)
            let method =
                "func \(newTest)() {\n            assertSnapshot(of: BadgeView(title: \"\(newTest)\"), as: .image)\n        }\n\n"
            guard let opening = source.range(of: #"class \w+: XCTestCase \{\n"#, options: .regularExpression) else {
                throw CIRunner.Failure(description: "\(file) has no XCTestCase class")
            }
            try Data(source.replacingCharacters(in: opening, with: source[opening] + "        " + method).utf8)
                .write(to: url)
        }
        if let colour {
            let url = dev.appendingPathComponent(app.view)
            let source = try String(contentsOf: url, encoding: .utf8)
            let changed = source.replacingOccurrences(
                of: #"primary = RGB\([0-9, ]+\)"#, with: "primary = RGB(\(colour))", options: .regularExpression)
            try Data(changed.utf8).write(to: url)
        } else {
            try Scratch.write("# \(branch)\n", to: dev.appendingPathComponent("NOTES.md"))
        }
        try Git.run(["add", "-A"], in: dev)
        try Git.run(["commit", "-q", "-m", "\(branch)"], in: dev)
        let head = try Git.run(["rev-parse", "HEAD"], in: dev)
        try Git.run(["push", "-q", "-f", "origin", branch], in: dev)
        try Git.run(["checkout", "-q", "--detach", "develop"], in: dev)
        try Git.run(["merge", "-q", "--no-ff", "-m", "Merge \(branch) into develop", branch], in: dev)
        let merge = try Git.run(["rev-parse", "HEAD"], in: dev)
        try Git.run(["push", "-q", "-f", "origin", "HEAD:refs/pull/\(pullRequests)/merge"], in: dev)
        try Git.run(["checkout", "-q", "develop"], in: dev)
        return (head, merge)
    }

    /// The branch merged into develop (a merge commit, or with `squash` one new commit on develop),
    /// pushed; develop's head.
    func merge(_ branch: String, squash: Bool = false) throws -> String {
        try Git.run(["checkout", "-q", "develop"], in: dev)
        if squash {
            try Git.run(["merge", "-q", "--squash", branch], in: dev)
            try Git.run(["commit", "-q", "-m", "\(branch) (squashed)"], in: dev)
        } else {
            try Git.run(["merge", "-q", "--no-ff", "-m", "Merge pull request: \(branch)", branch], in: dev)
        }
        try Git.run(["push", "-q", "origin", "develop"], in: dev)
        return try Git.run(["rev-parse", "HEAD"], in: dev)
    }
}
