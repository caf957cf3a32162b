import Foundation
import TestSupport
import Testing
import Yams

/// The generated CI files judged by the images their labels point at today (2026-11):
/// `ubuntu-latest` is Ubuntu 26.04, which has no Swift and which setup-swift v2 refuses;
/// `macos-latest` moves to macos-26. Read as YAML, job by job.
@Suite("pipeline init's CI files on today's runner images")
struct CIImageTests {
    /// Why a job of a GitHub workflow would not run on today's images; empty when it would.
    static func gitHubProblems(_ workflow: [String: Any], file: String) -> [String] {
        let jobs = (workflow["jobs"] as? [String: Any]) ?? [:]
        var problems: [String] = []
        for (name, value) in jobs.sorted(by: { $0.key < $1.key }) {
            let job = (value as? [String: Any]) ?? [:]
            let label = "\(job["runs-on"] ?? "")"
            let steps = (job["steps"] as? [[String: Any]]) ?? []
            let uses = steps.compactMap { $0["uses"] as? String }
            let commands = steps.compactMap { $0["run"] as? String }.joined(separator: "\n")
            // A step builds when it runs swift, pipeline test, or a whole pipeline (its test stage).
            let builds = commands.split(separator: "\n").contains { line in
                line.contains("swift ") || line.contains("pipeline test")
                    || (line.contains("pipeline run ") && !line.contains("--only"))
            }
            if label.contains("ubuntu-latest") || label.contains("ubuntu-26") {
                if uses.contains(where: { $0.hasPrefix("swift-actions/setup-swift@") }) {
                    problems.append("\(file): job \(name) uses setup-swift on \(label) (Ubuntu 26.04 refuses it)")
                }
                if builds, job["container"] == nil {
                    problems.append("\(file): job \(name) builds with Swift on \(label), which has none")
                }
                if let image = job["container"] as? String, !image.hasPrefix("swift:") || !image.hasSuffix("-noble") {
                    problems.append("\(file): job \(name) runs in \(image), not the official Swift image")
                }
            }
            if label.hasPrefix("macos") {
                if job["timeout-minutes"] == nil {
                    problems.append("\(file): macOS job \(name) has no timeout-minutes")
                }
                if !["macos-15", "macos-26"].contains(label) {
                    problems.append(
                        "\(file): job \(name) runs on \(label), not an image GitHub offers with Xcode 16/26")
                }
                let developer = ((workflow["env"] as? [String: Any])?["DEVELOPER_DIR"] as? String) ?? ""
                if !developer.hasPrefix("/Applications/Xcode_") {
                    problems.append("\(file): macOS job \(name) selects no Xcode")
                }
            }
            if job["timeout-minutes"] == nil { problems.append("\(file): job \(name) has no timeout-minutes") }
        }
        return problems
    }

    /// Every `secrets.NAME` and OIDC role a value names, anywhere below it.
    static func credentials(in value: Any) -> Set<String> {
        switch value {
        case let text as String:
            var found = Set(text.matches(of: /secrets\.([A-Za-z0-9_]+)/).map { "secret " + String($0.1) })
            if text.hasPrefix("arn:aws") { found.insert("role " + text) }
            return found
        case let map as [String: Any]: return map.values.reduce(into: []) { $0.formUnion(credentials(in: $1)) }
        case let list as [Any]: return list.reduce(into: []) { $0.formUnion(credentials(in: $1)) }
        default: return []
        }
    }

    /// Why the GitHub workflows of one repository would give a credential to a job that must not
    /// hold it; empty when each job holds only its own. A workflow started by a push holds develop's;
    /// one started by a pull request, the merge queue or by hand (accept) runs a pull request's code.
    static func credentialProblems(_ workflows: [String: [String: Any]]) -> [String] {
        var problems: [String] = []
        var reach: [Bool: Set<String>] = [true: [], false: []]
        for (file, workflow) in workflows.sorted(by: { $0.key < $1.key }) {
            // Yams reads the key `on` as the boolean true.
            let events = Set(((workflow["on"] ?? workflow["true"]) as? [String: Any])?.keys.map { $0 } ?? [])
            if events.contains("pull_request_target") {
                problems.append("\(file): pull_request_target runs a fork's code with the repository's secrets")
            }
            let afterMerge = events == ["push"]
            let everyJob = credentials(in: workflow["env"] ?? [:])
            if !everyJob.isEmpty {
                problems.append("\(file): a secret in the workflow's env: every step of every job holds it")
            }
            reach[afterMerge, default: []].formUnion(everyJob)
            for (name, value) in ((workflow["jobs"] as? [String: Any]) ?? [:]).sorted(by: { $0.key < $1.key }) {
                let job = (value as? [String: Any]) ?? [:]
                if !credentials(in: job["env"] ?? [:]).isEmpty {
                    problems.append("\(file): job \(name) has a secret in its env: every step holds it")
                }
                let held = credentials(in: job)
                reach[afterMerge, default: []].formUnion(held)
                let secrets = held.filter { $0.hasPrefix("secret ") }
                if afterMerge, !secrets.isEmpty, job["environment"] == nil {
                    problems.append(
                        "\(file): job \(name) reads develop's keys outside an environment: any workflow a pull request "
                            + "edits can read a repository secret")
                }
                if afterMerge { problems += confirmationProblems(job, named: name, file: file, workflow: workflow) }
                if held.contains(where: { $0.hasPrefix("role ") }),
                    ((job["permissions"] as? [String: Any])?["id-token"] as? String) != "write"
                {
                    problems.append("\(file): job \(name) assumes a role without id-token: write")
                }
            }
        }
        let shared = reach[true, default: []].intersection(reach[false, default: []])
        if !shared.isEmpty {
            problems.append(
                "a pull request's jobs and the post-merge jobs both hold \(shared.sorted().joined(separator: ", "))")
        }
        return problems
    }

    /// Why a post-merge job could not ask GitHub to confirm a pull request's verdict: its token
    /// cannot read runs and pull requests, or a step running pipeline lacks `GITHUB_TOKEN`.
    static func confirmationProblems(_ job: [String: Any], named name: String, file: String, workflow: [String: Any])
        -> [String]
    {
        var problems: [String] = []
        let permissions = (job["permissions"] ?? workflow["permissions"]) as? [String: Any] ?? [:]
        if permissions["actions"] as? String != "read" || permissions["pull-requests"] as? String != "read" {
            problems.append("\(file): job \(name)'s token cannot read GitHub's runs and pull requests")
        }
        for step in (job["steps"] as? [[String: Any]]) ?? [] {
            guard let run = step["run"] as? String, run.contains("pipeline ") else { continue }
            if ((step["env"] as? [String: Any])?["GITHUB_TOKEN"] as? String) != "${{ github.token }}" {
                problems.append("\(file): job \(name) runs pipeline without GITHUB_TOKEN: no verdict can be confirmed")
            }
        }
        return problems
    }

    /// Every combination init writes: each CI, SwiftPM and Xcode, one machine and three, both stores.
    static let combinations: [[String]] = {
        var all: [[String]] = []
        for ci in ["github", "bitrise", "gitlab"] {
            for xcode in [false, true] where !(xcode && ci == "gitlab") {
                for nodes in ["1", "3"] {
                    for store in [["--store", "s3://team-snapshots/app"], ["--store", ".pipeline/storage"]] {
                        all.append(
                            ["--ci", ci, "--nodes", nodes] + store
                                + (xcode ? ["--xcode", "--scheme", "App", "--xcode-version", "16.4"] : []))
                    }
                }
            }
        }
        return all
    }()

    @Test(
        "every generated file: no Linux job runs Swift on ubuntu-latest through setup-swift or without an image; each job holds only its own trust's credentials"
    )
    func lint() throws {
        var problems: [String] = []
        var read = 0
        let roles = [
            "--region", "eu-west-1", "--aws-role-pull-request", "arn:aws:iam::1:role/pr", "--aws-role-develop",
            "arn:aws:iam::1:role/develop",
        ]
        let withRoles = Self.combinations.filter {
            $0[1] == "github" && $0[$0.firstIndex(of: "--store")! + 1].hasPrefix("s3")
        }
        .map { $0 + roles }
        for flags in Self.combinations + withRoles {
            var workflows: [String: [String: Any]] = [:]
            let folder = try Scratch.folder("lint")
            defer { try? FileManager.default.removeItem(at: folder) }
            try Scratch.write("6.2\n", to: folder.appendingPathComponent(".swift-version"))
            let result = try PipelineBinary.run(["init"] + flags, in: folder)
            #expect(result.status == 0, "\(flags): \(result.stderr)")
            for path in InitCommandTests.files[flags[1], default: []] {
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                let parsed = try #require(try Yams.load(yaml: text) as? [String: Any], "\(path) is YAML")
                let file = "\(flags.joined(separator: " ")): \(path)"
                read += 1
                #expect(!text.contains("setup-swift"), "\(file)")
                switch flags[1] {
                case "github":
                    problems += Self.gitHubProblems(parsed, file: file)
                    workflows[file] = parsed
                case "gitlab":
                    problems += Self.gitLabCredentialProblems(
                        parsed, file: file, s3: flags.contains { $0.hasPrefix("s3://") })
                    let image = ((parsed["default"] as? [String: Any])?["image"] as? String) ?? ""
                    if image != "swift:6.2-noble" { problems.append("\(file): the jobs' default image is '\(image)'") }
                    for job in ["report", "promote", "accept"] {
                        if let entry = parsed[job] as? [String: Any],
                            entry["image"] as? String != "buildpack-deps:noble-scm"
                        {
                            problems.append("\(file): \(job) needs no toolchain, yet runs in the Swift image")
                        }
                    }
                default:
                    // Each script that runs pipeline picks the build's own key.
                    if flags.contains(where: { $0.hasPrefix("s3://") }) {
                        let scripts = text.components(separatedBy: "- script@1:").dropFirst()
                        for script in scripts where script.contains("pipeline ") && !script.contains("install pipeline")
                        {
                            if !script.contains("then export AWS_ACCESS_KEY_ID=\"$PIPELINE_PR_AWS_ACCESS_KEY_ID\"") {
                                problems.append("\(file): a script runs pipeline without choosing the build's key")
                            }
                        }
                    }
                    if flags.contains("--xcode") && !text.contains("stack: osx-xcode-16.4.x") {
                        problems.append("\(file): Bitrise's stack is not Xcode 16.4's")
                    }
                }
            }
            problems += Self.credentialProblems(workflows)
            // The Swift the Linux jobs build with is the package's (.swift-version).
            if flags[1] == "github" && !flags.contains("--xcode") {
                let pullRequest = try String(
                    contentsOf: folder.appendingPathComponent(".github/workflows/pipeline-pull-request.yml"),
                    encoding: .utf8)
                #expect(pullRequest.contains("container: swift:6.2-noble"), "\(flags)")
            }
        }
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
        #expect(read == 48, "GitHub's 24 files (SwiftPM and Xcode) and 12 with OIDC roles, Bitrise's 8, GitLab's 4")
    }

    /// Why a GitLab file would give a job the other trust's variables.
    static func gitLabCredentialProblems(_ file: [String: Any], file name: String, s3: Bool) -> [String] {
        guard s3 else { return [] }
        var problems: [String] = []
        for (job, value) in file.sorted(by: { $0.key < $1.key }) {
            guard let entry = value as? [String: Any], entry["script"] != nil else { continue }
            // Each rule's variables count with the job's own, by the event the rule matches.
            let rules = (entry["rules"] as? [[String: Any]]) ?? []
            for rule in rules {
                let condition = (rule["if"] as? String) ?? ""
                let variables = ((rule["variables"] ?? entry["variables"]) as? [String: Any]) ?? [:]
                let key = (variables["AWS_ACCESS_KEY_ID"] as? String) ?? ""
                let expected =
                    condition.contains("merge_request_event")
                    ? "$PIPELINE_PR_AWS_ACCESS_KEY_ID" : "$PIPELINE_DEVELOP_AWS_ACCESS_KEY_ID"
                if key != expected {
                    problems.append("\(name): job \(job) on '\(condition)' reads '\(key)', not \(expected)")
                }
            }
        }
        return problems
    }

    @Test(
        "the credential lint fails on one key for every job, a secret in a job's env, develop's key outside an environment, a post-merge job that cannot ask GitHub"
    )
    func credentialLintCatchesSharedKeys() throws {
        let pullRequest = try #require(
            try Yams.load(
                yaml: """
                    on: { pull_request: { branches: [develop] } }
                    env:
                      AWS_ACCESS_KEY_ID: ${{ secrets.PIPELINE_AWS_ACCESS_KEY_ID }}
                    jobs:
                      test:
                        env: { AWS_SECRET_ACCESS_KEY: "${{ secrets.PIPELINE_AWS_SECRET_ACCESS_KEY }}" }
                        steps: [{ run: pipeline run pull-request }]
                    """) as? [String: Any])
        let postMerge = try #require(
            try Yams.load(
                yaml: """
                    on: { push: { branches: [develop] } }
                    jobs:
                      test:
                        steps:
                          - run: pipeline run post-merge
                            env: { AWS_ACCESS_KEY_ID: "${{ secrets.PIPELINE_AWS_ACCESS_KEY_ID }}" }
                    """) as? [String: Any])
        let problems = Self.credentialProblems(["pr.yml": pullRequest, "merge.yml": postMerge])
        #expect(problems.contains("pr.yml: a secret in the workflow's env: every step of every job holds it"))
        #expect(problems.contains("pr.yml: job test has a secret in its env: every step holds it"))
        #expect(problems.contains { $0.hasPrefix("merge.yml: job test reads develop's keys outside an environment") })
        #expect(problems.contains("merge.yml: job test's token cannot read GitHub's runs and pull requests"))
        #expect(
            problems.contains("merge.yml: job test runs pipeline without GITHUB_TOKEN: no verdict can be confirmed"))
        #expect(
            problems.contains(
                "a pull request's jobs and the post-merge jobs both hold secret PIPELINE_AWS_ACCESS_KEY_ID"),
            "\(problems)")
    }

    @Test("the lint fails on what init wrote before this round: setup-swift with a constant Swift on ubuntu-latest")
    func lintCatchesTheRetiredRoute() throws {
        let retired = """
            jobs:
              test:
                runs-on: ubuntu-latest
                timeout-minutes: 60
                steps:
                  - uses: actions/checkout@v4
                  - uses: swift-actions/setup-swift@v2
                    if: runner.environment == 'github-hosted'
                    with: { swift-version: "6.1" }
                  - run: pipeline run pull-request
              build:
                runs-on: macos-15
                steps:
                  - run: xcodebuild build-for-testing -scheme App
            """
        let parsed = try #require(try Yams.load(yaml: retired) as? [String: Any])
        let problems = Self.gitHubProblems(parsed, file: "old.yml")
        #expect(problems.contains("old.yml: job test uses setup-swift on ubuntu-latest (Ubuntu 26.04 refuses it)"))
        #expect(problems.contains("old.yml: job test builds with Swift on ubuntu-latest, which has none"))
        #expect(problems.contains("old.yml: macOS job build has no timeout-minutes"))
        #expect(problems.contains("old.yml: macOS job build selects no Xcode"))
    }

    @Test(
        "the Swift version: .swift-version, --swift-version, else this swift never below swift-tools-version; bad ones named"
    )
    func swiftVersion() throws {
        func initialize(_ files: [String: String], _ flags: [String] = []) throws -> (PipelineBinary.Result, String) {
            let folder = try Scratch.folder("swift-version")
            defer { try? FileManager.default.removeItem(at: folder) }
            for (path, text) in files { try Scratch.write(text, to: folder.appendingPathComponent(path)) }
            let result = try PipelineBinary.run(
                ["init", "--ci", "github", "--store", "s3://team-snapshots/app"] + flags, in: folder)
            let workflow = try? String(
                contentsOf: folder.appendingPathComponent(".github/workflows/pipeline-post-merge.yml"), encoding: .utf8)
            return (result, workflow ?? "")
        }
        let manifest = "// swift-tools-version:6.0\nimport PackageDescription\n"
        let (pinned, pinnedFile) = try initialize([".swift-version": "6.2\n", "Package.swift": manifest])
        #expect(pinned.status == 0 && pinnedFile.contains("container: swift:6.2-noble"), "\(pinned.stderr)")
        let (flagged, flaggedFile) = try initialize([".swift-version": "6.2\n"], ["--swift-version", "6.1.2"])
        #expect(flagged.status == 0 && flaggedFile.contains("container: swift:6.1.2-noble"), "\(flagged.stderr)")
        #expect(flaggedFile.hasPrefix("# pipeline init ") && flaggedFile.contains(" --swift-version 6.1.2\n"))
        // A manifest asking for a newer Swift than the toolchain here: its minimum, not this swift's.
        let (future, futureFile) = try initialize(["Package.swift": "// swift-tools-version:9.1\n"])
        #expect(future.status == 0 && futureFile.contains("container: swift:9.1-noble"), "\(future.stderr)")
        // Nothing pinned: this toolchain's major and minor (the image follows its patch releases).
        let here = try Shell.run("swift", ["--version"]).stdout
        let line = try #require(here.firstMatch(of: /Swift version (\d+)\.(\d+)/))
        let (plain, plainFile) = try initialize(["Package.swift": manifest])
        #expect(plain.status == 0 && plainFile.contains("container: swift:\(line.1).\(line.2)-noble"), "\(plainFile)")
        // Swift 5.x runs in Ubuntu 22.04's image (no 24.04 image before 6.0).
        let (older, olderFile) = try initialize([".swift-version": "5.10\n"])
        #expect(older.status == 0 && olderFile.contains("container: swift:5.10-jammy"), "\(older.stderr)")

        let (snapshot, _) = try initialize([".swift-version": "main-snapshot\n"])
        #expect(snapshot.status == 2, "\(snapshot.stderr)")
        #expect(snapshot.stderr.contains(".swift-version:1: 'main-snapshot': a Swift release such as 6.2"))
        let (tooOld, _) = try initialize([".swift-version": "5.5\n"])
        #expect(tooOld.status == 2 && tooOld.stderr.contains("5.7 or newer"), "\(tooOld.stderr)")
        let (xcode, _) = try initialize(
            [:], ["--xcode", "--scheme", "App", "--xcode-version", "15.4"])
        #expect(xcode.status == 2 && xcode.stderr.contains("--xcode-version 15.4"), "\(xcode.stderr)")
    }
}
