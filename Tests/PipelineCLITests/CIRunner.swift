import Foundation
import TestSupport
import Yams

/// A CI's runner as the workflow tests play it: one workspace (a clone of the origin repository,
/// its `.build` kept between jobs as a warm runner's cache would, everything else cleaned), the
/// CI's variables, and a workflow file's steps run in order as that CI runs them. Artifacts move
/// between jobs as the CI moves them: GitHub's `upload-artifact`/`download-artifact` and Bitrise's
/// intermediate files (`deploy-to-bitrise-io`'s `pipeline_intermediate_files`, then
/// `pull-intermediate-files`, which names the folder in a variable) are copied through a folder of
/// the runner's. An expression or a step the runner does not know fails the test, so a generated
/// file cannot drift from what it plays.
final class CIRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What one job or workflow did: its steps' exit statuses and output, and the summary written.
    struct Job {
        var statuses: [Int32] = []
        var output = ""
        var summary = ""
        /// The job's own folder: Bitrise's deploy folder is `deploy` in it.
        var home: URL?
        /// Bitrise: what deploy-to-bitrise-io sent to the Tests tab (each run's `test-name` and its
        /// JUnit file) and the HTML reports it found (`<name>/index.html`), read as the step reads them.
        var testResults: [(name: String, junit: URL)] = []
        var htmlReports: [String: URL] = [:]
        /// Bitrise: the cache keys (as written) a restore-cache step found an entry for.
        var cacheRestored: [String] = []
        var passed: Bool { statuses.allSatisfy { $0 == 0 } }
    }

    let workspace: URL
    let scratch: URL
    let origin: URL
    /// The release server's address (127.0.0.1), serving the install script and the tarballs.
    let releases: URL
    /// Variables every step gets (the store's credentials, `CI=true`).
    var variables: [String: String]
    /// The repository's secrets, as GitHub's `secrets` context gives them (Bitrise's secrets exposed
    /// to pull requests, GitLab's unprotected variables: every job's).
    var secrets: [String: String] = [:]
    /// The secrets only develop's jobs get: GitHub's environment's (a job that enters one), Bitrise's
    /// not exposed to pull requests (a build without BITRISE_PULL_REQUEST), GitLab's protected ones
    /// (a pipeline that is not a merge request's).
    var developSecrets: [String: String] = [:]

    /// Where uploaded artifacts and intermediate files are kept between jobs, by name.
    var artifacts: URL { scratch.appendingPathComponent("artifacts") }

    /// Copies `path` of the workspace (a folder's contents, or a file) into the artifact `name`.
    private func upload(_ path: String, as name: String) throws {
        let source = workspace.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: source.path) else { return }
        let target = artifacts.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
    }

    /// Copies the artifact `name` to `target`; a missing artifact fails the job as the CI's step would.
    /// GitHub's artifacts are zip files that keep no file modes: every file arrives as 0644, as it
    /// does on GitHub's runners (an executable loses its bit); Bitrise's intermediate folders
    /// travel as tar archives, which keep them (`keepingModes`).
    private func download(_ name: String, to target: URL, keepingModes: Bool = false) throws {
        let source = artifacts.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw Failure(description: "no artifact \(name) was uploaded")
        }
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
        guard !keepingModes else { return }
        let files = FileManager.default.enumerator(at: target, includingPropertiesForKeys: [.isRegularFileKey])
        while let file = files?.nextObject() as? URL {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        }
    }

    init(origin: URL, scratch: URL, releases: URL, variables: [String: String]) throws {
        self.origin = origin
        self.scratch = scratch
        self.releases = releases
        self.variables = variables
        workspace = scratch.appendingPathComponent("workspace")
        try Git.run(["clone", "-q", origin.path, workspace.path], in: scratch)
        // A CI's clone fetches its commit by id, as GitHub and Bitrise allow.
        try Git.run(["config", "uploadpack.allowAnySHA1InWant", "true"], in: origin)
    }

    /// A fresh runner's checkout of `sha`: nothing but the commit's files (and the build cache).
    /// With `depth`, a shallow clone of that many commits, as Bitrise's git-clone step makes it
    /// (`git fetch --depth=N origin <sha>` into a new repository): nothing else is in it.
    func checkout(_ sha: String, depth: Int? = nil) throws {
        if let depth {
            try? FileManager.default.removeItem(at: workspace.appendingPathComponent(".git"))
            try Git.run(["init", "-q"], in: workspace)
            try Git.run(["remote", "add", "origin", "file://" + origin.path], in: workspace)
            try Git.run(["fetch", "-q", "--no-tags", "--depth=\(depth)", "origin", sha], in: workspace)
        } else {
            try Git.run(
                ["fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/pull/*:refs/pull/*"],
                in: workspace)
        }
        try Git.run(["checkout", "-q", "--force", sha], in: workspace)
        try Git.run(["clean", "-q", "-ffdx", "-e", ".build"], in: workspace)
    }

    /// Runs `command` in the workspace with bash, as a step's shell.
    private func shell(_ script: String, _ environment: [String: String]) throws -> Shell.Result {
        try Shell.run("bash", ["-e", "-c", script], in: workspace, environment: environment)
    }

    // MARK: GitHub Actions

    /// How many jobs a job's matrix makes (GitHub's `strategy.job-total`): the product of its
    /// lists' lengths, 1 without a matrix.
    static func matrixSize(of job: [String: Any]) -> Int {
        let matrix = (job["strategy"] as? [String: Any])?["matrix"] as? [String: Any] ?? [:]
        return matrix.values.compactMap { $0 as? [Any] }.reduce(1) { $0 * $1.count }
    }

    /// Runs `job` of the workflow at `path` (relative to the workspace) on a checkout of `sha`,
    /// with GitHub's variables for `event`, the workflow_dispatch `inputs`, and one entry of the
    /// job's matrix (`node`, the `index`th).
    func gitHub(
        _ path: String, job name: String, sha: String, event: String, payload: [String: Any] = [:],
        inputs: [String: String] = [:], node: (index: Int, value: String)? = nil
    ) throws -> Job {
        let workflow = try yaml(workspace.appendingPathComponent(path))
        let jobs = try field(workflow["jobs"] as? [String: Any], "jobs")
        let job = try field(jobs[name] as? [String: Any], "jobs.\(name)")
        let home = scratch.appendingPathComponent("github-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let summary = home.appendingPathComponent("summary.md")
        let githubPath = home.appendingPathComponent("path")
        let eventFile = home.appendingPathComponent("event.json")
        for file in [summary, githubPath] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        try JSONSerialization.data(withJSONObject: payload).write(to: eventFile)
        let held = job["environment"] == nil ? secrets : secrets.merging(developSecrets) { $1 }
        let contexts = Dictionary(uniqueKeysWithValues: held.map { ("secrets.\($0.key)", $0.value) })
            .merging(inputs.map { ("inputs.\($0.key)", $0.value) }) { $1 }
            .merging([
                "strategy.job-index": "\(node?.index ?? 0)", "strategy.job-total": "\(Self.matrixSize(of: job))",
                "github.action_repository": "your-org/pipeline",
                "github.run_attempt": "1",
                // No API stands in here: the token is empty (act's loop answers GitHub's API).
                "github.token": "",
            ]) { $1 }
            .merging(node.map { ["matrix.node": $0.value] } ?? [:]) { $1 }
        var environment = variables.merging([
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventFile.path,
            "GITHUB_SHA": sha, "GITHUB_RUN_ID": "\(sha.prefix(8))", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_STEP_SUMMARY": summary.path, "GITHUB_PATH": githubPath.path, "GITHUB_WORKSPACE": workspace.path,
            "GITHUB_OUTPUT": home.appendingPathComponent("output").path, "GITHUB_SERVER_URL": releases.absoluteString,
            "RUNNER_TEMP": home.path, "RUNNER_TOOL_CACHE": scratch.appendingPathComponent("tool-cache").path,
        ]) { $1 }
        for level in [workflow["env"], job["env"]] {
            for (key, value) in (level as? [String: String]) ?? [:] {
                environment[key] = try substitute(value, contexts)
            }
        }
        var result = Job()
        for step in try field(job["steps"] as? [[String: Any]], "jobs.\(name).steps") {
            guard result.passed || (step["if"] as? String) == "always()" else { continue }
            // This runner is a self-hosted one: the hosted runner's toolchain step is skipped.
            if (step["if"] as? String) == "runner.environment == 'github-hosted'" { continue }
            var stepEnvironment = environment
            for (key, value) in (step["env"] as? [String: String]) ?? [:] {
                stepEnvironment[key] = try substitute(value, contexts)
            }
            let ran: Shell.Result
            if let uses = step["uses"] as? String {
                let with = try ((step["with"] as? [String: Any]) ?? [:]).mapValues { try substitute("\($0)", contexts) }
                if uses.hasPrefix("actions/checkout@") {
                    try checkout(sha)
                    continue
                } else if uses.hasPrefix("actions/upload-artifact@") {
                    try upload(try field(with["path"], "with.path"), as: try field(with["name"], "with.name"))
                    continue
                } else if uses.hasPrefix("actions/download-artifact@") {
                    let name = try field(with["name"], "with.name")
                    try download(name, to: workspace.appendingPathComponent(with["path"] ?? name))
                    continue
                } else if uses.hasPrefix("your-org/pipeline@") {
                    ran = try action(with: with, environment: stepEnvironment, contexts: contexts)
                } else {
                    throw Failure(description: "\(path): the runner does not know the action \(uses)")
                }
            } else {
                ran = try shell(try substitute(try field(step["run"] as? String, "run"), contexts), stepEnvironment)
            }
            result.statuses.append(ran.status)
            result.output += ran.stdout + ran.stderr
            // GITHUB_PATH's folders come first on PATH for the steps after.
            let added = try String(contentsOf: githubPath, encoding: .utf8).split(separator: "\n").reversed()
            environment["PATH"] = (added.map(String.init) + [variables["PATH"] ?? ""]).joined(separator: ":")
        }
        result.summary = try String(contentsOf: summary, encoding: .utf8)
        return result
    }

    /// The repository's own action.yml, its one step run with `with` as inputs.
    private func action(with: [String: String], environment: [String: String], contexts: [String: String]) throws
        -> Shell.Result
    {
        let action = try yaml(Shell.repository.appendingPathComponent("action.yml"))
        let declared = try field(action["inputs"] as? [String: [String: Any]], "inputs")
        var contexts = contexts
        for (name, input) in declared { contexts["inputs.\(name)"] = with[name] ?? (input["default"] as? String) ?? "" }
        let runs = try field(action["runs"] as? [String: Any], "runs")
        let step = try field((runs["steps"] as? [[String: Any]])?.first, "runs.steps")
        var stepEnvironment = environment
        stepEnvironment["GITHUB_ACTION_PATH"] = Shell.repository.path
        for (key, value) in (step["env"] as? [String: String]) ?? [:] {
            stepEnvironment[key] = try substitute(value, contexts)
        }
        return try shell(try substitute(try field(step["run"] as? String, "run"), contexts), stepEnvironment)
    }

    // MARK: Bitrise

    /// Runs `workflow` of bitrise.yml (its `before_run` first) on a checkout of `sha`, with the
    /// app's and the workflow's env, Bitrise's variables (`extra`), and envman between steps.
    func bitrise(_ workflow: String, sha: String, extra: [String: String]) throws -> Job {
        let file = try yaml(workspace.appendingPathComponent("bitrise.yml"))
        let workflows = try field(file["workflows"] as? [String: Any], "workflows")
        let home = scratch.appendingPathComponent("bitrise-\(UUID().uuidString)")
        let bin = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let envman = home.appendingPathComponent("envman.env")
        // envman: `envman add --key K --value V` keeps K=V for the steps after.
        try Scratch.write(
            "#!/bin/bash\n[ \"$1\" = add ] && [ \"$2\" = --key ] && [ \"$4\" = --value ] "
                + "&& printf '%s=%s\\n' \"$3\" \"$5\" >> \"\(envman.path)\"\n", to: bin.appendingPathComponent("envman")
        )
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent("envman").path)
        let (deploy, reports, tests) = (
            home.appendingPathComponent("deploy"), home.appendingPathComponent("html-reports"),
            home.appendingPathComponent("test-results")
        )
        for folder in [deploy, reports, tests] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let held = extra["BITRISE_PULL_REQUEST"] == nil ? secrets.merging(developSecrets) { $1 } : secrets
        var environment = variables.merging(held) { $1 }.merging(extra) { $1 }.merging([
            "CI": "true", "BITRISE_IO": "true", "HOME": home.path, "BITRISE_DEPLOY_DIR": deploy.path,
            "BITRISE_HTML_REPORT_DIR": reports.path, "BITRISE_TEST_DEPLOY_DIR": tests.path,
            "PATH": bin.path + ":" + (variables["PATH"] ?? ""),
        ]) { $1 }
        let app = (file["app"] as? [String: Any])?["envs"] as? [[String: Any]] ?? []
        for pair in app.flatMap({ $0 }) { environment[pair.key] = "\(pair.value)" }
        var result = Job(home: home)
        func run(_ name: String) throws {
            let definition = try field(workflows[name] as? [String: Any], "workflows.\(name)")
            for before in (definition["before_run"] as? [String]) ?? [] { try run(before) }
            for pair in ((definition["envs"] as? [[String: Any]]) ?? []).flatMap({ $0 }) {
                environment[pair.key] = extra[pair.key] ?? "\(pair.value)"
            }
            for step in try field(definition["steps"] as? [[String: Any]], "workflows.\(name).steps") {
                guard let (id, body) = step.first else { continue }
                let settings = body as? [String: Any] ?? [:]
                guard result.passed || settings["is_always_run"] as? Bool == true else { continue }
                let inputs = (settings["inputs"] as? [[String: Any]] ?? []).flatMap { $0 }
                if id.hasPrefix("git-clone@") {
                    try checkout(sha, depth: 1)
                } else if id.hasPrefix("deploy-to-bitrise-io@") {
                    // `path:VARIABLE` pairs, separated by `|`: kept for the pipeline's later workflows.
                    let files = inputs.first { $0.key == "pipeline_intermediate_files" }?.value as? String ?? ""
                    for pair in files.split(separator: "|") {
                        let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
                        guard parts.count == 2 else { throw Failure(description: "intermediate file \(pair)") }
                        try upload(parts[0], as: "bitrise-" + parts[1])
                    }
                    result.testResults = try Self.bitriseTestResults(in: tests)
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: reports.path)) ?? [] {
                        let page = reports.appendingPathComponent("\(name)/index.html")
                        if FileManager.default.fileExists(atPath: page.path) { result.htmlReports[name] = page }
                    }
                } else if id.hasPrefix("pull-intermediate-files@") {
                    // Each kept file or folder, downloaded, its path in its variable.
                    let kept = (try? FileManager.default.contentsOfDirectory(atPath: artifacts.path)) ?? []
                    for name in kept where name.hasPrefix("bitrise-") {
                        let variable = String(name.dropFirst("bitrise-".count))
                        let target = home.appendingPathComponent("intermediate/\(variable)")
                        try download(name, to: target, keepingModes: true)
                        environment[variable] = target.path
                    }
                } else if id.hasPrefix("restore-cache@") || id.hasPrefix("save-cache@") {
                    // Bitrise's key-based cache, kept in the runner's folder by the key's expansion.
                    let template = try field(inputs.first { $0.key == "key" }?.value as? String, "key")
                    let entry = scratch.appendingPathComponent("bitrise-cache/" + (try cacheKey(template)))
                    if id.hasPrefix("restore-cache@") {
                        guard FileManager.default.fileExists(atPath: entry.path) else { continue }
                        for path in try FileManager.default.contentsOfDirectory(atPath: entry.path) {
                            let saved = entry.appendingPathComponent(path)
                            for name in try FileManager.default.contentsOfDirectory(atPath: saved.path) {
                                let target = workspace.appendingPathComponent(
                                    path.replacingOccurrences(of: "~", with: "/") + "/" + name)
                                try? FileManager.default.removeItem(at: target)
                                try FileManager.default.createDirectory(
                                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                                try FileManager.default.copyItem(at: saved.appendingPathComponent(name), to: target)
                            }
                        }
                        result.cacheRestored.append(template)
                    } else {
                        let paths = try field(inputs.first { $0.key == "paths" }?.value as? String, "paths")
                        for path in paths.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
                        where !path.isEmpty {
                            let source = workspace.appendingPathComponent(path)
                            guard FileManager.default.fileExists(atPath: source.path) else { continue }
                            let saved = entry.appendingPathComponent(path.replacingOccurrences(of: "/", with: "~"))
                            try? FileManager.default.removeItem(at: saved)
                            try FileManager.default.createDirectory(at: saved, withIntermediateDirectories: true)
                            for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
                                try FileManager.default.copyItem(
                                    at: source.appendingPathComponent(name), to: saved.appendingPathComponent(name))
                            }
                        }
                    }
                } else if id.hasPrefix("script@") {
                    let content = try field(inputs.first { $0.key == "content" }?.value as? String, "content")
                    // The CLI gives each step a test results folder of its own, with its step-info.json.
                    let results = tests.appendingPathComponent(UUID().uuidString)
                    try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
                    try Scratch.write(
                        #"{"id": "script", "version": "1"}"#, to: results.appendingPathComponent("step-info.json"))
                    environment["BITRISE_TEST_RESULT_DIR"] = results.path
                    let ran = try Shell.run("bash", ["-c", content], in: workspace, environment: environment)
                    result.statuses.append(ran.status)
                    result.output += ran.stdout + ran.stderr
                    let kept = (try? String(contentsOf: envman, encoding: .utf8)) ?? ""
                    for line in kept.split(separator: "\n") {
                        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                        if parts.count == 2 { environment[parts[0]] = parts[1] }
                    }
                } else {
                    throw Failure(description: "bitrise.yml: the runner does not know the step \(id)")
                }
            }
        }
        try run(workflow)
        return result
    }

    /// A cache step's key as Bitrise expands it: `{{ .OS }}`, `{{ .Arch }}`, and `{{ checksum "GLOB" }}`
    /// (a hash of the workspace's files the glob matches, `**` any folders); any other
    /// template fails the test.
    func cacheKey(_ template: String) throws -> String {
        var key = template.replacingOccurrences(of: "{{ .OS }}", with: "linux")
            .replacingOccurrences(of: "{{ .Arch }}", with: "amd64")
        for match in key.matches(of: /\{\{ checksum "([^"]+)" \}\}/).reversed() {
            let glob = String(match.1)
            let pattern =
                "^"
                + NSRegularExpression.escapedPattern(for: glob)
                .replacingOccurrences(of: "\\*\\*/", with: "(.*/)?")
                .replacingOccurrences(of: "\\*", with: "[^/]*") + "$"
            let regex = try Regex(pattern)
            let files = (FileManager.default.subpaths(atPath: workspace.path) ?? []).filter {
                !$0.hasPrefix(".git/") && $0.wholeMatch(of: regex) != nil
            }.sorted()
            let bytes = files.compactMap {
                FileManager.default.contents(atPath: workspace.appendingPathComponent($0).path)
            }
            // FNV-1a stands in for Bitrise's SHA-256: the key changes when the files do.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes.reduce(Data(), +) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            key.replaceSubrange(match.range, with: String(hash, radix: 16))
        }
        guard !key.contains("{{") else {
            throw Failure(description: "bitrise.yml: a cache key the runner cannot expand: \(template)")
        }
        return key
    }

    /// The test runs deploy-to-bitrise-io sends to the Tests tab, read as it reads them:
    /// `<step folder with step-info.json>/<run>/` holding a JUnit `.xml` and a `test-info.json`
    /// naming the run (`test-name`); a run without that file fails the deploy, as it does there.
    static func bitriseTestResults(in root: URL) throws -> [(name: String, junit: URL)] {
        var found: [(String, URL)] = []
        let manager = FileManager.default
        for step in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] {
            let folder = root.appendingPathComponent(step)
            guard manager.fileExists(atPath: folder.appendingPathComponent("step-info.json").path) else { continue }
            for run in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] {
                let files = (try? manager.contentsOfDirectory(atPath: folder.appendingPathComponent(run).path)) ?? []
                guard let xml = files.first(where: { $0.hasSuffix(".xml") }) else { continue }
                let info = folder.appendingPathComponent("\(run)/test-info.json")
                guard let data = manager.contents(atPath: info.path),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let name = object["test-name"] as? String
                else { throw Failure(description: "\(info.path): no test-info.json with a test-name") }
                found.append((name, folder.appendingPathComponent("\(run)/\(xml)")))
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// The `parallel:` count bitrise.yml's pipelines give `workflow` (an anchor's alias resolved).
    func bitriseParallel(_ workflow: String) throws -> Int? {
        let file = try yaml(workspace.appendingPathComponent("bitrise.yml"))
        let pipelines = (file["pipelines"] as? [String: Any]) ?? [:]
        for case let pipeline as [String: Any] in pipelines.values {
            let workflows = (pipeline["workflows"] as? [String: Any]) ?? [:]
            if let count = (workflows[workflow] as? [String: Any])?["parallel"] as? Int { return count }
        }
        return nil
    }

    // MARK: GitLab

    /// Runs `job` of .gitlab-ci.yml on a checkout of `sha` with gitlabci-local (PyPI's
    /// `gitlabci-local`, `gcil -H`: GitLab's job semantics on this host): the file's and the job's
    /// variables, `before_script` then `script`, with GitLab's own variables (`extra`).
    func gitLab(_ name: String, sha: String, extra: [String: String]) throws -> Job {
        let home = scratch.appendingPathComponent("gitlab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // GitLab's own variables for the job; the file's `variables:`, `default.before_script`
        // and the job's script are gitlabci-local's to read and run, on this host.
        let held =
            extra["CI_PIPELINE_SOURCE"] == "merge_request_event" ? secrets : secrets.merging(developSecrets) { $1 }
        let environment = variables.merging(held) { $1 }.merging([
            "CI": "true", "GITLAB_CI": "true", "CI_COMMIT_SHA": sha, "HOME": home.path,
        ]) { $1 }.merging(extra) { $1 }
        try checkout(sha)
        let ran = try Shell.run(
            "gcil", ["-H", "--no-git-safeties", "--no-color", name], in: workspace, environment: environment)
        return Job(statuses: [ran.status], output: ran.stdout + ran.stderr)
    }

    // MARK: Reading the files

    private func yaml(_ url: URL) throws -> [String: Any] {
        try field(
            try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any], url.lastPathComponent)
    }

    private func field<T>(_ value: T?, _ name: String) throws -> T {
        guard let value else { throw Failure(description: "the workflow has no \(name) of the expected kind") }
        return value
    }

    /// Replaces every `${{ expression }}` by its value; an expression the runner does not know fails.
    private func substitute(_ text: String, _ contexts: [String: String]) throws -> String {
        var result = text
        while let range = result.range(of: #"\$\{\{\s*([^}]*?)\s*\}\}"#, options: .regularExpression) {
            let expression = result[range].dropFirst(3).dropLast(2).trimmingCharacters(in: .whitespaces)
            guard let value = contexts[expression] else {
                throw Failure(description: "the runner does not know the expression \(expression)")
            }
            result.replaceSubrange(range, with: value)
        }
        return result
    }
}
