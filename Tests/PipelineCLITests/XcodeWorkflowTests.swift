import Foundation
import TestSupport
import Testing

/// The workflows `pipeline init --xcode` writes for an app tested with xcodebuild, run as written
/// on this Linux machine with a stub `xcodebuild`/`xcrun` on the PATH (Tests/XcodeStub), which
/// plays Xcode on the example app's sources (Examples/XcodeApp) and writes what swift-snapshot-
/// testing writes. The loop, on GitHub Actions (two test machines) then Bitrise (four, its one
/// `parallel:` count): a pull request changes the view (on Bitrise it also adds a snapshot test);
/// the build job builds once; each node pulls the references, runs its part and imports it (a new
/// test rendered as a candidate); the report fails over all nodes; the review page is in the
/// node's artifacts (GitHub) or an HTML report (Bitrise), the JUnit in Bitrise's test results; a
/// reviewer accepts CI's renderings; the re-run passes; the merge (squash on Bitrise) is tested,
/// reported and promoted; the next pull request passes on what develop then holds.
@Suite("the generated Xcode workflows, run as written with a stub xcodebuild: GitHub Actions and Bitrise", .serialized)
struct XcodeWorkflowTests {
    static let stub = Shell.repository.appendingPathComponent("Tests/XcodeStub")
    /// On a Mac (`PIPELINE_TEST_REAL_XCODE=1`, this repository's macOS job) the real xcodebuild runs.
    static let realXcode = ProcessInfo.processInfo.environment["PIPELINE_TEST_REAL_XCODE"] == "1"
    static let destination = "platform=iOS Simulator,name=iPhone 16"

    static func team(_ backend: RefsBackend, log: URL) async throws -> WorkflowTeam {
        let xcode = ["--xcode", "--scheme", "BadgeUI"]
        return try await WorkflowTeam(
            backend,
            app: WorkflowTeam.App(
                source: Shell.repository.appendingPathComponent("Examples/XcodeApp"),
                view: "Sources/BadgeUI/BadgeView.swift", ignored: [".build", "__Snapshots__", "DerivedData"],
                snapshotTests: "Tests/BadgeUITests/BadgeViewTests.swift"),
            setups: [
                WorkflowTeam.Setup(
                    flags: ["--ci", "github", "--nodes", "2"] + xcode,
                    files: [("pipelines", "pipelines"), (".github", ".github")]),
                // Bitrise: init joins the team's own bitrise.yml.
                WorkflowTeam.Setup(
                    flags: ["--ci", "bitrise", "--nodes", "4", "--merge-style", "squash"] + xcode,
                    files: [("bitrise.yml", "bitrise.yml")], existing: [("bitrise.yml", InitCommandTests.teamBitrise)]),
            ],
            record: [
                ["refs", "record", "--all", "--xcode", "--scheme", "BadgeUI", "--destination", destination],
                ["refs", "promote", "--all", "--force", "--yes"],
            ],
            variables: realXcode
                ? [:]
                : [
                    "PATH": stub.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                    "XCODE_STUB_LOG": log.path,
                ])
    }

    static func expect(_ job: CIRunner.Job, passed: Bool, _ what: String) {
        #expect(job.passed == passed, "\(what): \(job.statuses) \(job.output.suffix(3000))")
    }

    /// The stub's record of xcodebuild's and xcrun's invocations.
    static func invocations(_ log: URL) throws -> [[String: Any]] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The stub's log: the first recording ran BadgeViewTests' two tests alone, with recording forced.
    static func expectRecording(_ log: URL) throws {
        let recorded = try Self.invocations(log)
        let recording = try #require(
            recorded.first { ($0["arguments"] as? [String])?.contains("-resultBundlePath") == true })
        #expect((recording["environment"] as? [String: String])?["TEST_RUNNER_SNAPSHOT_TESTING_RECORD"] == "all")
        #expect(
            Set((recording["arguments"] as? [String] ?? []).filter { $0.hasPrefix("-only-testing:") }) == [
                "-only-testing:BadgeUITests/BadgeViewTests/testInbox()",
                "-only-testing:BadgeUITests/BadgeViewTests/testDrafts()",
            ], "\(recording)")
    }

    @Test(
        "GitHub (2 nodes) then Bitrise (4): built once, nodes import, a new test rendered, report, accept, re-run, merge, promote",
        arguments: RefsBackend.available)
    func loop(backend: RefsBackend) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("xcode-stub-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let team = try await Self.team(backend, log: log)
        let runner = team.runner

        // The first recording ran only the snapshot tests, with recording forced, through the stub.
        if !Self.realXcode { try Self.expectRecording(log) }

        // GitHub Actions: the pull request, checked out as GitHub's merge commit.
        let workflows = ".github/workflows/"
        let brand = try team.pullRequest("feature/brand", colour: "208, 64, 32")
        let event: [String: Any] = ["pull_request": ["head": ["sha": brand.head], "base": ["ref": "develop"]]]
        func gitHubRun(
            _ file: String, sha: String, event name: String, payload: [String: Any], passes: Bool,
            passedOver: Bool = false
        ) throws {
            let build = try runner.gitHub(workflows + file, job: "build", sha: sha, event: name, payload: payload)
            Self.expect(build, passed: true, "\(file)'s build job")
            #expect(build.output.contains("TEST BUILD SUCCEEDED"), "\(build.output.suffix(2000))")
            // Xcode's package clones: from Bitrise's cache when a restore found them.
            #expect(
                build.output.contains("packages found in SourcePackages") == !build.cacheRestored.isEmpty,
                "\(build.cacheRestored) \(build.output.suffix(2000))")
            #expect(!build.output.contains("verified already: "), "\(build.output.suffix(2000))")
            #expect(
                build.output.contains("verdicts: passed over the record of run") == passedOver,
                "\(build.output.suffix(2000))")
            var nodes: [CIRunner.Job] = []
            for (index, node) in ["1", "2"].enumerated() {
                let ran = try runner.gitHub(
                    workflows + file, job: "test", sha: sha, event: name, payload: payload, node: (index, node))
                #expect(ran.output.contains("Filed node \(node)/2's results"), "\(ran.output.suffix(2000))")
                #expect(!ran.output.contains("build-for-testing"), "node \(node) builds nothing")
                nodes.append(ran)
            }
            #expect(nodes.allSatisfy(\.passed) == passes, "\(nodes.map { $0.output.suffix(1500) })")
            let report = try runner.gitHub(workflows + file, job: "report", sha: sha, event: name, payload: payload)
            Self.expect(report, passed: passes, "\(file)'s report over both nodes")
            if passes, name == "pull_request" {
                #expect(report.output.contains("verdicts: kept this run's verdict"), "\(report.output.suffix(2000))")
            }
            if !passes {
                let failing = try #require(nodes.first { !$0.passed })
                #expect(
                    failing.summary.contains("pipeline refs accept BadgeViewTests --commit \(brand.head)"),
                    "\(failing.summary)")
                let pages = try FileManager.default.contentsOfDirectory(atPath: runner.artifacts.path).filter {
                    FileManager.default.fileExists(
                        atPath: runner.artifacts.appendingPathComponent("\($0)/snapshot-review.html").path)
                }
                #expect(!pages.isEmpty, "the review page is in a node's artifacts")
            }
        }
        try gitHubRun(
            "pipeline-pull-request.yml", sha: brand.merge, event: "pull_request", payload: event, passes: false)
        let accepted = try runner.gitHub(
            workflows + "pipeline-accept.yml", job: "accept", sha: brand.head, event: "workflow_dispatch",
            inputs: ["tests": "all", "commit": ""])
        Self.expect(accepted, passed: true, "the accept job")
        try gitHubRun(
            "pipeline-pull-request.yml", sha: brand.merge, event: "pull_request", payload: event, passes: true)
        let merged = try team.merge("feature/brand")
        // The check's verdict is not taken: nothing here answers GitHub's API to confirm it (act's
        // loop and VerdictTrustTests do), so the merge's tests run, saying why.
        try gitHubRun(
            "pipeline-post-merge.yml", sha: merged, event: "push", payload: [:], passes: true, passedOver: true)
        let promoted = try runner.gitHub(
            workflows + "pipeline-post-merge.yml", job: "promote", sha: merged, event: "push")
        Self.expect(promoted, passed: true, "the promotion after the report")
        #expect(promoted.output.contains("copied 2"), "both references reach develop: \(promoted.output.suffix(2000))")

        // Bitrise, on the develop GitHub's merge left: another colour and a new snapshot test, four
        // nodes (bitrise.yml's one `parallel:` count), squash-merged.
        let nodes = try #require(try runner.bitriseParallel("pipeline-pr-test"))
        #expect(nodes == 4, "init --nodes 4 is bitrise.yml's one count")
        #expect(try runner.bitriseParallel("pipeline-merge-test") == nodes)
        let bitriseFile = try String(
            contentsOf: runner.workspace.appendingPathComponent("bitrise.yml"), encoding: .utf8)
        #expect(bitriseFile.contains("echo the team's deploy"), "init joined the team's bitrise.yml")
        let green = try team.pullRequest("feature/green", colour: "32, 160, 64", newTest: "testArchive")
        var pipelineRun = 200
        @discardableResult func bitriseRun(
            _ test: String, sha: String, extra: [String: String], passes: Bool, passedOver: Bool = false
        ) throws -> CIRunner.Job {
            pipelineRun += 1
            let extra = extra.merging(["BITRISEIO_PIPELINE_ID": "pipeline-\(pipelineRun)"]) { $1 }
            let build = try runner.bitrise("pipeline-build", sha: sha, extra: extra)
            Self.expect(build, passed: true, "Bitrise's build")
            #expect(build.output.contains("TEST BUILD SUCCEEDED"), "\(build.output.suffix(2000))")
            // Xcode's package clones: from Bitrise's cache when a restore found them.
            #expect(
                build.output.contains("packages found in SourcePackages") == !build.cacheRestored.isEmpty,
                "\(build.cacheRestored) \(build.output.suffix(2000))")
            #expect(
                build.output.contains("verdicts: passed over the record of run") == passedOver,
                "\(build.output.suffix(2000))")
            func node(_ index: Int) throws -> CIRunner.Job {
                try runner.bitrise(
                    test, sha: sha,
                    extra: extra.merging([
                        "BITRISE_IO_PARALLEL_INDEX": "\(index)", "BITRISE_IO_PARALLEL_TOTAL": "\(nodes)",
                    ]) { $1 })
            }
            var ran: [CIRunner.Job] = []
            for index in 0..<nodes {
                let node = try node(index)
                #expect(
                    node.output.contains("Filed node \(index + 1)/\(nodes)'s results"), "\(node.output.suffix(2000))")
                // Bitrise's Tests tab gets each node's JUnit, named by its test-info.json.
                #expect(
                    node.testResults.map(\.name) == ["pipeline node \(index + 1) of \(nodes)"],
                    "\(node.testResults) \(node.output.suffix(1500))")
                ran.append(node)
            }
            let junits = try ran.flatMap(\.testResults).map { try String(contentsOf: $0.junit, encoding: .utf8) }
            let cases = junits.map { $0.components(separatedBy: "<testcase ").count - 1 }.reduce(0, +)
            #expect(cases == 5, "every test once over the nodes' JUnit files: \(junits)")
            #expect(ran.allSatisfy(\.passed) == passes, "\(ran.map { $0.output.suffix(1500) })")
            let report = try runner.bitrise("pipeline-report", sha: sha, extra: extra)
            Self.expect(report, passed: passes, "Bitrise's report")
            guard !passes else { return build }
            // The review pages are HTML reports; the new test's card offers its rendering.
            let pages = try ran.flatMap(\.htmlReports).map { try String(contentsOf: $0.value, encoding: .utf8) }
            #expect(pages.contains { $0.contains("BadgeViewTests") }, "the review page is an HTML report")
            #expect(pages.contains { $0.contains("testArchive") }, "the new test's card is on a review page")
            let failing = ran.filter { !$0.passed }
            #expect(failing.contains { $0.output.contains("--commit \(green.head)") })
            #expect(
                failing.contains { $0.output.contains("Rendering 1 new snapshot test for CI's candidates") },
                "\(failing.map { $0.output.suffix(2000) })")
            // The review address reviewers get is the store's copy, not a path on a node's machine.
            let homes = ran.compactMap { $0.home?.path }
            let reviews = (failing.map(\.output) + [report.output]).joined().split(separator: "\n").filter {
                $0.contains("review: ")
            }
            #expect(!reviews.isEmpty, "\(report.output.suffix(2000))")
            #expect(
                reviews.allSatisfy { line in !homes.contains { line.contains($0) } },
                "\(reviews.joined(separator: "\n"))")
            return build
        }
        let pullRequest = [
            "BITRISE_GIT_BRANCH": "feature/green", "BITRISEIO_GIT_BRANCH_DEST": "develop", "BITRISE_PULL_REQUEST": "2",
        ]
        let firstBuild = try bitriseRun("pipeline-pr-test", sha: green.merge, extra: pullRequest, passes: false)
        #expect(firstBuild.cacheRestored.isEmpty, "nothing cached before the first build")
        let accept = try runner.bitrise(
            "pipeline-accept", sha: green.head,
            extra: ["BITRISE_GIT_BRANCH": "feature/green", "TESTS": "all", "BITRISEIO_PIPELINE_ID": "accept-1"])
        Self.expect(accept, passed: true, "Bitrise's accept workflow")
        let rerun = try bitriseRun("pipeline-pr-test", sha: green.merge, extra: pullRequest, passes: true)
        #expect(rerun.cacheRestored.count == 1, "the first build's package clones, saved though it failed")
        let mergedGreen = try team.merge("feature/green", squash: true)
        // Bitrise's build status is not asked: the pull request's verdict is passed over, the tests run.
        try bitriseRun(
            "pipeline-merge-test", sha: mergedGreen, extra: ["BITRISE_GIT_BRANCH": "develop"], passes: true,
            passedOver: true)
        let promote = try runner.bitrise(
            "pipeline-promote", sha: mergedGreen,
            extra: ["BITRISE_GIT_BRANCH": "develop", "BITRISEIO_PIPELINE_ID": "pipeline-204"])
        Self.expect(promote, passed: true, "Bitrise's promotion")
        #expect(
            promote.output.contains("copied 3"),
            "the changed references and the new test's reach develop: \(promote.output.suffix(2000))")

        // The next pull request, changing no view, passes on the references develop now holds.
        let next = try team.pullRequest("feature/notes", colour: nil)
        try bitriseRun(
            "pipeline-pr-test", sha: next.merge,
            extra: [
                "BITRISE_GIT_BRANCH": "feature/notes", "BITRISEIO_GIT_BRANCH_DEST": "develop",
                "BITRISE_PULL_REQUEST": "3",
            ],
            passes: true)

        // Each node's import kept its record in the test history: the nodes' table lists them.
        let history = try PipelineBinary.run(
            ["history", "--json"], in: team.dev, environment: RefsBackend.environment.merging(["CI": "false"]) { $1 })
        #expect(history.status == 0, "\(history.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
        let historyNodes = (report["nodes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(
            (report["records"] as? Int ?? 0) >= 6 && historyNodes.contains("2/2") && historyNodes.contains("4/4"),
            "\(report)")
    }
}
