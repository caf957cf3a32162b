import Foundation
import ObjectStorage
import TestSupport
import Testing

/// `pipeline init --ci github`'s workflows on GitHub's own runner code (nektos/act with the real
/// actions/checkout@v4, `ActRunner`), each job in a fresh workspace with the checkout's shallow
/// fetch of the event's commit, for the events GitHub sends: `pull_request` on its
/// `refs/pull/N/merge`, `workflow_dispatch` with inputs on the branch, `merge_group` on a queue
/// entry, and `push` with `before`/`after`, including a push that brings several merges.
@Suite(
    "the generated GitHub workflows under act with the real actions/checkout", .serialized,
    .enabled(if: ActRunner.unavailable == nil, "\(ActRunner.unavailable ?? "")"))
struct ActWorkflowTests {
    /// A team on GitHub: the example package with init's files (`--merge-style squash`), its
    /// references recorded and promoted, hosted on the stand-in as `acme/app`.
    final class Team {
        let scratch: URL
        let dev: URL
        let bare: URL
        let runner: ActRunner
        /// The pull request's secrets (repository secrets) and develop's (the environment's, which
        /// only the push's jobs enter): act gives a run all it is passed, so each event gets its own.
        let secrets: (pullRequest: [String: String], develop: [String: String])
        /// On S3: the proxy enforcing the pull request's bucket policy.
        let proxy: FaultProxy?
        /// On S3: the bucket (feature and develop are `app/feature`, `app/develop`).
        let bucket: String?
        var pullRequests = 0
        /// Each opened branch's pull request number.
        var numbers: [String: Int] = [:]

        init(_ backend: RefsBackend, nodes: Int = 1) async throws {
            scratch = try Scratch.folder("act")
            dev = scratch.appendingPathComponent("dev")
            let version = String(
                try PipelineBinary.run(["--version"], in: scratch).stdout.dropFirst("pipeline ".count)
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            runner = try ActRunner(root: scratch.appendingPathComponent("github"), version: version)
            var flags = [
                "--action", "\(ActRunner.owner)/pipeline@v\(version)", "--merge-style", "squash", "--nodes", "\(nodes)",
            ]
            switch backend {
            case .folder:
                // A self-hosted runner keeps the folder between jobs.
                flags += ["--store", scratch.appendingPathComponent("store").path]
                secrets = ([:], [:])
                proxy = nil
                bucket = nil
            case .s3:
                let references = try await backend.references()
                let bucket = try #require(references.firstMatch(of: /s3:\/\/([^\/]+)\//)?.output.1)
                let proxy = try RefsBackend.policyProxy("app")
                self.proxy = proxy
                self.bucket = String(bucket)
                flags += ["--store", "s3://\(bucket)/app", "--endpoint", proxy.endpoint.absoluteString]
                secrets = (RefsBackend.pullRequestSecrets, RefsBackend.developSecrets)
            }
            try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
            for item in try FileManager.default.contentsOfDirectory(atPath: ExamplePackage.root.path)
            where item != ".build" {
                try FileManager.default.copyItem(
                    at: ExamplePackage.root.appendingPathComponent(item), to: dev.appendingPathComponent(item))
            }
            try Scratch.write(".build/\n__Snapshots__/\n", to: dev.appendingPathComponent(".gitignore"))
            let initialized = try PipelineBinary.run(["init", "--ci", "github"] + flags, in: dev)
            guard initialized.status == 0 else { throw ActRunner.Failure(description: initialized.stderr) }
            _ = try ActRunner.runOnThisHost(dev)
            try Git.run(["init", "-q", "-b", "develop"], in: dev)
            try Git.run(["add", "-A"], in: dev)
            try Git.run(["commit", "-q", "-m", "The app, and pipeline init's files"], in: dev)
            for command in [["refs", "record", "--all"], ["refs", "promote", "--all", "--force", "--yes"]] {
                let result = try PipelineBinary.run(command, in: dev, environment: RefsBackend.environment)
                guard result.status == 0 else { throw ActRunner.Failure(description: "\(command): \(result.stderr)") }
            }
            bare = try runner.host(dev, name: "app", base: "develop")
            try Git.run(["remote", "add", "origin", bare.path], in: dev)
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        func sha(_ revision: String = "HEAD") throws -> String { try Git.run(["rev-parse", revision], in: dev) }

        /// A branch from develop with `change` made, pushed.
        func branch(_ name: String, _ change: (URL) throws -> Void) throws -> String {
            try Git.run(["checkout", "-q", "-B", name, "develop"], in: dev)
            try change(dev)
            try Git.run(["add", "-A"], in: dev)
            try Git.run(["commit", "-q", "-m", name], in: dev)
            try Git.run(["push", "-q", "-f", "origin", name], in: dev)
            return try sha()
        }

        /// The pull request of `branch`: GitHub's merge of it into develop at `refs/pull/N/merge`;
        /// its number, head and merge commit.
        func pullRequest(_ branch: String) throws -> (number: Int, head: String, merge: String) {
            pullRequests += 1
            numbers[branch] = pullRequests
            let head = try sha(branch)
            try Git.run(["checkout", "-q", "--detach", "develop"], in: dev)
            try Git.run(["merge", "-q", "--no-ff", "-m", "Merge \(head) into develop", branch], in: dev)
            let merge = try sha()
            try Git.run(["push", "-q", "-f", "origin", "HEAD:refs/pull/\(pullRequests)/merge"], in: dev)
            try Git.run(["checkout", "-q", "develop"], in: dev)
            return (pullRequests, head, merge)
        }

        /// The pull request's checks; `fork`: opened from a fork, which GitHub gives no secrets.
        func checks(_ pr: (number: Int, head: String, merge: String), branch: String, fork: Bool = false) throws
            -> ActRunner.Run
        {
            let payload: [String: Any] = [
                "number": pr.number,
                "pull_request": [
                    "number": pr.number,
                    "head": ["ref": branch, "sha": pr.head, "repo": ["fork": fork]],
                    "base": ["ref": "develop", "sha": try sha("develop")],
                ],
            ]
            return try runner.run(
                ".github/workflows/pipeline-pull-request.yml", repository: "app", event: "pull_request", sha: pr.merge,
                ref: "refs/pull/\(pr.number)/merge", payload: payload, secrets: fork ? [:] : secrets.pullRequest,
                in: scratch)
        }

        func accept(branch: String) throws -> ActRunner.Run {
            try run(
                "pipeline-accept.yml", event: "workflow_dispatch", sha: try sha(branch), ref: "refs/heads/\(branch)",
                payload: ["inputs": ["tests": "all", "commit": ""]])
        }

        /// `branch` squashed onto `onto` as GitHub's button (or a merge queue entry) does.
        func squash(_ branch: String, onto: String) throws -> String {
            try Git.run(["checkout", "-q", "--detach", onto], in: dev)
            try Git.run(["merge", "-q", "--squash", branch], in: dev)
            try Git.run(["commit", "-q", "-m", "\(branch) (squashed)"], in: dev)
            let commit = try sha()
            // GitHub lists the pull request as merged by the squash, with its commits (oldest first).
            if let number = numbers[branch] {
                let commits = try Git.run(["rev-list", "--reverse", "develop..\(branch)"], in: dev)
                try runner.recordMerged(
                    commit, repository: "app", pullRequest: number,
                    commits: commits.split(separator: "\n").map(String.init))
            }
            return commit
        }

        /// Develop moved to `commit` in one push, the merged branches deleted; the post-merge run.
        func push(_ commit: String, deleting branches: [String]) throws -> ActRunner.Run {
            let before = try sha("develop")
            try Git.run(["checkout", "-q", "-B", "develop", commit], in: dev)
            try Git.run(["push", "-q", "origin", "develop"] + branches.map { ":\($0)" }, in: dev)
            for branch in branches { try Git.run(["branch", "-q", "-D", branch], in: dev) }
            return try run(
                "pipeline-post-merge.yml", event: "push", sha: commit, ref: "refs/heads/develop",
                payload: ["ref": "refs/heads/develop", "before": before, "after": commit])
        }

        func run(_ file: String, event: String, sha: String, ref: String, payload: [String: Any]) throws
            -> ActRunner.Run
        {
            try runner.run(
                ".github/workflows/\(file)", repository: "app", event: event, sha: sha, ref: ref, payload: payload,
                secrets: event == "push" ? secrets.develop : secrets.pullRequest, in: scratch)
        }
    }

    static func expect(_ run: ActRunner.Run, passed: Bool, _ what: String) {
        #expect(run.passed == passed, "\(what): exit \(run.status)\n\(run.output.suffix(4000))")
    }

    /// Each image link of the summary opens without credentials (S3's presigned links).
    static func expectLinksOpen(_ summary: String) throws {
        let links = summary.matches(of: /<img src="([^"]+)"/).map { String($0.output.1) }
        #expect(links.count == 6, "the two failed image snapshots, three images each (three are text): \(summary)")
        for link in links {
            let fetched = try Shell.run("curl", ["-sf", "-o", "/dev/null", "-w", "%{http_code}", link])
            #expect(fetched.stdout == "200", "\(link)")
        }
    }

    /// Each annotation once, one summary section: one owner of the job's report.
    static func expectReportedOnce(_ run: ActRunner.Run) {
        #expect(!run.annotations.isEmpty, "the failing tests are annotated")
        #expect(Set(run.annotations).count == run.annotations.count, "each annotation once: \(run.annotations)")
        #expect(run.summaryHeadings.count == 1, "one summary section: \(run.summaryHeadings)")
    }

    /// The promote stage copied the references of `tests` tests into develop.
    static func expectPromoted(_ run: ActRunner.Run, tests: Int) {
        let line = run.output.split(separator: "\n").first { $0.contains("promote  passed") }
        #expect(line?.contains("promote  passed  \(tests) test(s): copied ") == true, "\(line ?? "no promote line")")
        #expect(line?.contains("copied 0,") == false, "\(line ?? "")")
    }

    static func changeColour(_ dev: URL) throws {
        let url = dev.appendingPathComponent("Sources/ExampleKit/BadgeView.swift")
        let source = try String(contentsOf: url, encoding: .utf8)
        try Data(
            source.replacingOccurrences(
                of: #"primary = RGB\([0-9, ]+\)"#, with: "primary = RGB(208, 64, 32)", options: .regularExpression
            ).utf8
        ).write(to: url)
    }

    static func notes(_ text: String) -> (URL) throws -> Void {
        { dev in try Scratch.write(text + "\n", to: dev.appendingPathComponent("NOTES.md")) }
    }

    @Test(
        "a view change fails with its accept command, the accept workflow, the re-run passes, a squash merge's post-merge job (as generated) promotes, the next pull request passes",
        arguments: RefsBackend.available)
    func loop(backend: RefsBackend) async throws {
        let team = try await Team(backend)
        _ = try team.branch("feature/brand", Self.changeColour)
        let brand = try team.pullRequest("feature/brand")
        let failed = try team.checks(brand, branch: "feature/brand")
        Self.expect(failed, passed: false, "the pull request's snapshots fail")
        #expect(failed.output.contains("install: pipeline "), "the action installed the release from the stand-in")
        #expect(
            failed.output.contains("pipeline refs accept BadgeViewTests --commit \(brand.head)"),
            "the summary's accept command names the branch head")
        #expect(failed.output.contains("#### Snapshots to review"), "the summary's review section")
        Self.expectReportedOnce(failed)
        if backend == .s3 { try Self.expectLinksOpen(failed.output) }

        if backend == .s3 {
            // The same change from a fork: no secrets, so no comparison; the check says so and is not red.
            let fork = try team.checks(brand, branch: "feature/brand", fork: true)
            Self.expect(fork, passed: true, "a fork's pull request")
            #expect(fork.output.contains("Not compared with the references"), "\(fork.output.suffix(2000))")
            #expect(!fork.output.contains("install: pipeline "), "no job that needs the store ran")
        }

        Self.expect(try team.accept(branch: "feature/brand"), passed: true, "the accept workflow")
        Self.expect(try team.checks(brand, branch: "feature/brand"), passed: true, "the re-run on CI's renderings")

        let merged = try team.squash("feature/brand", onto: "develop")
        let postMerge = try team.push(merged, deleting: ["feature/brand"])
        Self.expect(postMerge, passed: true, "the post-merge job")
        // Tested once: the squash onto an unchanged develop has the tree the re-run verified on the
        // merge ref, in another job's workspace; nothing runs, the check's run is named.
        #expect(
            postMerge.output.contains("verified already: ") && postMerge.output.contains("nothing run"),
            "\(postMerge.output.suffix(3000))")
        Self.expectPromoted(postMerge, tests: 2)

        _ = try team.branch("feature/notes", Self.notes("next"))
        let next = try team.pullRequest("feature/notes")
        Self.expect(try team.checks(next, branch: "feature/notes"), passed: true, "the next pull request on develop")

        if let proxy = team.proxy {
            // Every job wrote only where its credential reaches (the proxy enforces the policy)...
            let denied = proxy.requests.filter { $0.contains("-> denied") }
            #expect(denied.isEmpty, "\(denied)")
            #expect(proxy.requests.contains { $0.hasPrefix("PUT ") }, "the jobs wrote through the proxy")
            // ...and the pull request's key cannot write develop's references or records.
            var pullRequestKey = RefsBackend.environment
            pullRequestKey["AWS_ACCESS_KEY_ID"] = "test:pr"
            pullRequestKey["AWS_SECRET_ACCESS_KEY"] = "pr-testing"
            let write = try PipelineBinary.run(
                ["refs", "check-access", "--pipeline", "post-merge", "--write", "develop"], in: team.dev,
                environment: pullRequestKey)
            #expect(
                write.status != 0 && (write.stdout + write.stderr).contains("AccessDenied"),
                "\(write.stdout)\(write.stderr)")
            #expect(proxy.requests.contains { $0.contains("-> denied test:pr") })
        }
        if let bucket = team.bucket {
            // feature and develop hold the team's references only; the tool's records are beside
            // them by scope (develop's ledger needs conditional writes, which this server lacks).
            let store = try S3Store(
                S3Settings(
                    endpoint: URL(string: RefsBackend.s3Endpoint!)!, bucket: bucket,
                    credentials: AWSCredentials(accessKey: "test:tester", secret: "testing")))
            for role in ["app/feature", "app/develop"] {
                let prefix = try ObjectKey(role)
                let keys = try await store.list(under: prefix).map(\.key)
                #expect(!keys.isEmpty, "\(role)")
                let others = keys.filter { $0.relative(to: prefix)?.isReference != true }
                #expect(others.isEmpty, "\(role) holds more than references: \(others)")
            }
            let records = try await store.list(under: try ObjectKey("app/.pipeline")).map(\.key.rawValue)
            #expect(records.contains { $0.hasPrefix("app/.pipeline/pr/1/feature/.candidates/") }, "\(records)")
            // The accept workflow runs on the pull request's branch: its push is in that branch's scope.
            #expect(
                records.contains { $0.hasPrefix("app/.pipeline/branch/feature~brand/feature/.pushes/") }, "\(records)")
        }
    }

    @Test(
        "two machines: the build job, the matrix nodes through the store's queue and the report job fail over both, accept, a squash merge's post-merge (report, then promote)"
    )
    func twoMachines() async throws {
        let team = try await Team(.folder, nodes: 2)
        _ = try team.branch("feature/brand", Self.changeColour)
        let brand = try team.pullRequest("feature/brand")
        let failed = try team.checks(brand, branch: "feature/brand")
        Self.expect(failed, passed: false, "the pull request's snapshots fail on their node")
        for job in ["build", "test-1", "test-2", "report"] {
            #expect(failed.output.contains("[pipeline pull request/\(job)"), "the \(job) job ran")
        }
        // One build for both machines, kept under the pull request's head (the merge commit is no
        // later commit's ancestor). A node runs the build job's products where its checkout is at
        // the build's path (GitHub's runners: /home/runner/work/<repo>/<repo>); act gives each job
        // a workspace of its own, so there each node says why it builds (products are not
        // relocatable: PLATFORM-NOTES) rather than running products built elsewhere.
        let build = failed.job("build")
        #expect(build.contains("kept the test products of"), "\(build.suffix(2000))")
        #expect(build.contains("Build cache: kept \(brand.head.prefix(12))'s build"), "\(build.suffix(2000))")
        for node in ["test-1", "test-2"] {
            let ran = failed.job(node)
            let samePath = ran.contains("test products (") && !ran.contains("Building the tests")
            let saysWhy = ran.contains("test products were built otherwise: package path")
            #expect(samePath || saysWhy, "\(node): the build job's products, or why not: \(ran.suffix(2000))")
        }
        #expect(failed.output.contains("pipeline refs accept BadgeViewTests --commit \(brand.head)"))
        // The re-run after the accept passes; its report job keeps the verdict the nodes keyed.
        Self.expect(try team.accept(branch: "feature/brand"), passed: true, "the accept workflow")
        let green = try team.checks(brand, branch: "feature/brand")
        Self.expect(green, passed: true, "the re-run on CI's renderings, over both nodes")
        #expect(
            green.job("report").contains("verdicts: kept this run's verdict"), "\(green.job("report").suffix(2000))")
        let postMerge = try team.push(try team.squash("feature/brand", onto: "develop"), deleting: ["feature/brand"])
        Self.expect(postMerge, passed: true, "the post-merge run: build, nodes, report, promote")
        // The squash has the verified tree: no build, no test on either node, the check's report.
        #expect(postMerge.job("build").contains("Nothing built: the tree was verified already."))
        for job in ["test-1", "test-2", "report"] {
            #expect(postMerge.job(job).contains("verified already: "), "\(job): \(postMerge.job(job).suffix(2000))")
        }
        #expect(postMerge.output.contains("[pipeline post-merge/promote"), "the promote job ran after the report")
        Self.expectPromoted(postMerge, tests: 2)
    }

    @Test(
        "a merge queue: two stacked entries (a changed rendering, a new snapshot test drawn in it); the second's check fails naming its pull request, is accepted on its branch and passes; one push brings both and promotes both"
    )
    func mergeQueue() async throws {
        let team = try await Team(.folder)
        _ = try team.branch("feature/brand", Self.changeColour)
        _ = try team.branch("feature/new-test") { dev in
            try Scratch.write(
                """
                import ExampleKit
                import SnapshotTesting
                import XCTest

                final class WelcomeTests: XCTestCase {
                    func testWelcome() {
                        assertSnapshot(of: BadgeView(title: "Welcome", count: 1).layout, as: .lines)
                    }
                }

                """, to: dev.appendingPathComponent("Tests/ExampleKitTests/WelcomeTests.swift"))
        }
        // Each pull request fails on its new renderings and is accepted from CI; the queue's checks
        // then run on what was accepted (the single machine's loop covers the re-run).
        for branch in ["feature/brand", "feature/new-test"] {
            let pr = try team.pullRequest(branch)
            Self.expect(try team.checks(pr, branch: branch), passed: false, "\(branch): new renderings to accept")
            Self.expect(try team.accept(branch: branch), passed: true, "\(branch): accepted")
        }
        // The queue: each entry squashed onto the one before it, checked at its temporary branch.
        let base = try team.sha("develop")
        var entries: [String] = []
        for (index, branch) in ["feature/brand", "feature/new-test"].enumerated() {
            let entry = try team.squash(branch, onto: entries.last ?? base)
            let queueRef = "gh-readonly-queue/develop/pr-\(index + 1)-\(entry)"
            try Git.run(["push", "-q", "origin", "\(entry):refs/heads/\(queueRef)"], in: team.dev)
            let payload: [String: Any] = [
                "merge_group": [
                    "head_sha": entry, "head_ref": "refs/heads/\(queueRef)", "base_sha": entries.last ?? base,
                    "base_ref": "refs/heads/develop",
                ]
            ]
            let check = try team.run(
                "pipeline-pull-request.yml", event: "merge_group", sha: entry, ref: "refs/heads/\(queueRef)",
                payload: payload)
            if index == 0 {
                Self.expect(check, passed: true, "the queue's check of entry 1 (\(branch))")
            } else {
                // The entries interact: stacked on the brand colour, the new test renders otherwise
                // than its pull request accepted. The check names the pull request, and its accept
                // command the branch's head (a queue commit is never the branch's)…
                Self.expect(check, passed: false, "entry 2 renders the new test in entry 1's colour")
                let head = try team.sha(branch)
                #expect(check.output.contains("pull request #2"), "\(check.output.suffix(3000))")
                #expect(check.output.contains("pipeline refs accept WelcomeTests --commit \(head)"))
                // …so accepting on the branch, then re-running the queue's check, passes.
                Self.expect(try team.accept(branch: branch), passed: true, "\(branch): accepted on the new base")
                Self.expect(
                    try team.run(
                        "pipeline-pull-request.yml", event: "merge_group", sha: entry, ref: "refs/heads/\(queueRef)",
                        payload: payload),
                    passed: true, "the queue's check of entry 2, re-run")
            }
            entries.append(entry)
        }
        let postMerge = try team.push(entries[1], deleting: ["feature/brand", "feature/new-test"])
        Self.expect(postMerge, passed: true, "one push bringing both entries")
        #expect(postMerge.output.contains("(range)"), "the push's whole range is compared")
        Self.expectPromoted(postMerge, tests: 3)

        _ = try team.branch("feature/notes", Self.notes("after the queue"))
        let next = try team.pullRequest("feature/notes")
        Self.expect(try team.checks(next, branch: "feature/notes"), passed: true, "the next pull request on develop")
    }
}
