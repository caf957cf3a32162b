import Foundation
import ObjectStorage
import TestSupport
import Testing

/// The CI files `pipeline init` writes for Bitrise and GitLab, run as written: each step of
/// bitrise.yml (its git-clone step a checkout of the origin) and each GitLab job's script, in a
/// runner's checkout of the origin repository with that CI's variables, the install step
/// installing the release tarball from a server on 127.0.0.1. The loop: a pull request changes a
/// view and fails with its review, a reviewer accepts CI's renderings with the accept job, the
/// re-run passes, the merge's post-merge run tests and promotes, and the next pull request passes
/// on develop's new references. GitHub's files run on GitHub's own runner code instead
/// (`ActWorkflowTests`); the macOS Xcode workflows in `XcodeWorkflowTests`.
@Suite("the generated CI files, run as written: Bitrise and GitLab", .serialized)
struct WorkflowTests {
    /// The example package with pipeline init's files for Bitrise and GitLab, its first
    /// references recorded and promoted.
    static func team(_ backend: RefsBackend) async throws -> WorkflowTeam {
        try await WorkflowTeam(
            backend,
            app: WorkflowTeam.App(
                source: ExamplePackage.root, view: "Sources/ExampleKit/BadgeView.swift",
                ignored: [".build", "__Snapshots__"]),
            setups: [
                WorkflowTeam.Setup(
                    flags: ["--ci", "bitrise"], files: [("pipelines", "pipelines"), ("bitrise.yml", "bitrise.yml")]),
                WorkflowTeam.Setup(flags: ["--ci", "gitlab"], files: [(".gitlab-ci.yml", ".gitlab-ci.yml")]),
            ],
            record: [["refs", "record", "--all"], ["refs", "promote", "--all", "--force", "--yes"]])
    }

    static func expect(_ job: CIRunner.Job, passed: Bool, _ what: String) {
        #expect(job.passed == passed, "\(what): \(job.statuses) \(job.output.suffix(3000))")
    }

    @Test(
        "Bitrise, then GitLab: a view change fails with its review, the accept job takes CI's renderings, the re-run passes, the merge promotes",
        arguments: RefsBackend.available)
    func loop(backend: RefsBackend) async throws {
        let team = try await Self.team(backend)
        let runner = team.runner

        // Bitrise: a pull request changing the brand colour.
        let bitrise = ["BITRISE_GIT_BRANCH": "feature/green", "BITRISEIO_GIT_BRANCH_DEST": "develop"]
        let green = try team.pullRequest("feature/green", colour: "32, 160, 64")
        let pullRequest = bitrise.merging(["BITRISE_PULL_REQUEST": "2", "BITRISE_BUILD_NUMBER": "201"]) { $1 }
        let red = try runner.bitrise("pipeline-pull-request", sha: green.merge, extra: pullRequest)
        Self.expect(red, passed: false, "Bitrise's pull request fails its snapshots")
        #expect(red.output.contains("install: pipeline "), "the install script installed the release")
        #expect(red.output.contains("--commit \(green.head)"), "keyed by the branch head: \(red.output.suffix(2000))")
        // Bitrise's own places: the JUnit for the Tests tab, the review page as an HTML report.
        #expect(red.testResults.map(\.name) == ["pipeline node 1 of 1"], "\(red.testResults)")
        let junit = try String(contentsOf: try #require(red.testResults.first).junit, encoding: .utf8)
        #expect(junit.contains("<testcase ") && junit.contains("<failure"), "\(junit)")
        let page = try #require(red.htmlReports["snapshot-review-node-1"], "\(red.htmlReports)")
        #expect(try String(contentsOf: page, encoding: .utf8).contains("data:image/png;base64,"))
        let accept = try runner.bitrise(
            "pipeline-accept", sha: green.head,
            extra: bitrise.merging(["TESTS": "all", "BITRISE_BUILD_NUMBER": "202"]) { $1 })
        Self.expect(accept, passed: true, "Bitrise's accept workflow")
        let again = try runner.bitrise(
            "pipeline-pull-request", sha: green.merge,
            extra: pullRequest.merging(["BITRISE_BUILD_NUMBER": "203"]) { $1 })
        Self.expect(again, passed: true, "Bitrise's re-run")
        // The packages SwiftPM resolved in the first run, kept by Bitrise's cache for the next (saved
        // whatever the first's verdict).
        #expect(red.cacheRestored.isEmpty && again.cacheRestored.count == 1, "\(again.cacheRestored)")
        let mergedGreen = try team.merge("feature/green")
        let promoted = try runner.bitrise(
            "pipeline-post-merge", sha: mergedGreen,
            extra: ["BITRISE_GIT_BRANCH": "develop", "BITRISE_BUILD_NUMBER": "204"])
        Self.expect(promoted, passed: true, "Bitrise's post-merge")

        // GitLab, on the folder store: a merge request's pipeline runs on the branch head.
        if backend == .folder {
            let blue = try team.pullRequest("feature/blue", colour: "32, 64, 208")
            let request = [
                "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop",
                "CI_MERGE_REQUEST_IID": "4", "CI_PIPELINE_ID": "301",
            ]
            let failing = try runner.gitLab("pull-request", sha: blue.head, extra: request)
            Self.expect(failing, passed: false, "GitLab's merge request fails its snapshots")
            #expect(failing.output.contains("--commit \(blue.head)"), "\(failing.output.suffix(2000))")
            let manual = try runner.gitLab("accept", sha: blue.head, extra: request.merging(["TESTS": "all"]) { $1 })
            Self.expect(manual, passed: true, "GitLab's manual accept job")
            let retried = try runner.gitLab(
                "pull-request", sha: blue.head, extra: request.merging(["CI_PIPELINE_ID": "302"]) { $1 })
            Self.expect(retried, passed: true, "GitLab's re-run")
            let mergedBlue = try team.merge("feature/blue")
            let pushed = try runner.gitLab(
                "post-merge", sha: mergedBlue,
                extra: ["CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "develop", "CI_PIPELINE_ID": "303"])
            Self.expect(pushed, passed: true, "GitLab's post-merge")
        }

        // The next pull request, changing no view, passes on what develop now holds.
        let next = try team.pullRequest("feature/notes", colour: nil)
        let clean = try runner.bitrise(
            "pipeline-pull-request", sha: next.merge,
            extra: ["BITRISE_PULL_REQUEST": "3", "BITRISE_BUILD_NUMBER": "205", "BITRISE_GIT_BRANCH": "feature/notes"])
        Self.expect(clean, passed: true, "a pull request after the merges")
    }
}
