import Foundation
import ReferenceStore
import TestSupport
import Testing

/// The CI files `pipeline init` writes, run as written: each step of GitHub's workflows and of
/// bitrise.yml in order, in a runner's checkout of the origin repository with that CI's
/// variables, the install step installing the release tarball from a server on 127.0.0.1. The
/// loop: a pull request changes a view and fails with its review, a reviewer accepts CI's
/// renderings with the accept job, the re-run passes, the merge's post-merge run tests and
/// promotes, and the next pull request passes on develop's new references.
@Suite("the generated CI files, run as written: GitHub Actions, Bitrise and GitLab", .serialized)
struct WorkflowTests {
    /// The example package with pipeline init's files for GitHub, Bitrise, GitHub with two
    /// machines (in `ci/github-2`) and GitLab, its first references recorded and promoted.
    static func team(_ backend: RefsBackend) async throws -> WorkflowTeam {
        try await WorkflowTeam(
            backend,
            app: WorkflowTeam.App(
                source: ExamplePackage.root, view: "Sources/ExampleKit/BadgeView.swift",
                ignored: [".build", "__Snapshots__"]),
            setups: [
                WorkflowTeam.Setup(
                    flags: ["--ci", "github"], files: [("pipelines", "pipelines"), (".github", ".github")]),
                WorkflowTeam.Setup(flags: ["--ci", "bitrise"], files: [("bitrise.yml", "bitrise.yml")]),
                WorkflowTeam.Setup(
                    flags: ["--ci", "github", "--nodes", "2"], files: [(".github/workflows", "ci/github-2")]),
                WorkflowTeam.Setup(flags: ["--ci", "gitlab"], files: [(".gitlab-ci.yml", ".gitlab-ci.yml")]),
            ],
            record: [["refs", "record", "--all"], ["refs", "promote", "--all", "--force", "--yes"]])
    }

    static func expect(_ job: CIRunner.Job, passed: Bool, _ what: String) {
        #expect(job.passed == passed, "\(what): \(job.statuses) \(job.output.suffix(3000))")
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

    @Test(
        "GitHub Actions, Bitrise, then GitLab: a view change fails with its review, the accept job takes CI's renderings, the re-run passes, the merge promotes",
        arguments: RefsBackend.available)
    func loop(backend: RefsBackend) async throws {
        let team = try await Self.team(backend)
        let runner = team.runner
        let workflows = ".github/workflows/"

        // GitHub Actions: a pull request checked out as GitHub's merge commit.
        let brand = try team.pullRequest("feature/brand", colour: "208, 64, 32")
        let event: [String: Any] = ["pull_request": ["head": ["sha": brand.head], "base": ["ref": "develop"]]]
        let failed = try runner.gitHub(
            workflows + "pipeline-pull-request.yml", job: "test", sha: brand.merge, event: "pull_request",
            payload: event)
        Self.expect(failed, passed: false, "the pull request's snapshots fail")
        #expect(failed.output.contains("install: pipeline "), "the action installed the release")
        #expect(
            failed.summary.contains("pipeline refs accept BadgeViewTests --commit \(brand.head)"), "\(failed.summary)")
        #expect(failed.summary.contains("#### Snapshots to review"), "\(failed.summary)")
        if backend == .s3 { try Self.expectLinksOpen(failed.summary) }

        let accepted = try runner.gitHub(
            workflows + "pipeline-accept.yml", job: "accept", sha: brand.head, event: "workflow_dispatch",
            inputs: ["tests": "all", "commit": ""])
        Self.expect(accepted, passed: true, "the accept job")
        let rerun = try runner.gitHub(
            workflows + "pipeline-pull-request.yml", job: "test", sha: brand.merge, event: "pull_request",
            payload: event)
        Self.expect(rerun, passed: true, "the re-run on CI's accepted renderings")

        let merged = try team.merge("feature/brand")
        let postMerge = try runner.gitHub(
            workflows + "pipeline-post-merge.yml", job: "test", sha: merged, event: "push")
        Self.expect(postMerge, passed: true, "the post-merge run")
        #expect(postMerge.output.contains("promote"), "\(postMerge.output.suffix(2000))")

        // Bitrise, on the develop GitHub's merge left: another colour, the same loop.
        let bitrise = ["BITRISE_GIT_BRANCH": "feature/green", "BITRISEIO_GIT_BRANCH_DEST": "develop"]
        let green = try team.pullRequest("feature/green", colour: "32, 160, 64")
        let pullRequest = bitrise.merging(["BITRISE_PULL_REQUEST": "2", "BITRISE_BUILD_NUMBER": "201"]) { $1 }
        let red = try runner.bitrise("pull-request", sha: green.merge, extra: pullRequest)
        Self.expect(red, passed: false, "Bitrise's pull request fails its snapshots")
        #expect(red.output.contains("install: pipeline "), "the install script installed the release")
        #expect(red.output.contains("--commit \(green.head)"), "keyed by the branch head: \(red.output.suffix(2000))")
        let accept = try runner.bitrise(
            "accept", sha: green.head, extra: bitrise.merging(["TESTS": "all", "BITRISE_BUILD_NUMBER": "202"]) { $1 })
        Self.expect(accept, passed: true, "Bitrise's accept workflow")
        let again = try runner.bitrise(
            "pull-request", sha: green.merge,
            extra: pullRequest.merging(["BITRISE_BUILD_NUMBER": "203"]) { $1 })
        Self.expect(again, passed: true, "Bitrise's re-run")
        let mergedGreen = try team.merge("feature/green")
        let promoted = try runner.bitrise(
            "post-merge", sha: mergedGreen,
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

        // Two machines sharing each run (the folder store: s3api cannot write conditionally, so its
        // nodes split statically, which the single-machine loop above already covers).
        if backend == .folder {
            let split = try team.pullRequest("feature/split", colour: "96, 32, 160")
            let event: [String: Any] = ["pull_request": ["head": ["sha": split.head], "base": ["ref": "develop"]]]
            // One build for both machines: the build job keeps the test products, each node runs them.
            let build = try runner.gitHub(
                "ci/github-2/pipeline-pull-request.yml", job: "build", sha: split.merge, event: "pull_request",
                payload: event)
            Self.expect(build, passed: true, "the pull request's build job")
            #expect(build.output.contains("kept the test products of"), "\(build.output.suffix(2000))")
            // The build is kept under the pull request's head (the merge commit is no later commit's ancestor).
            #expect(
                build.output.contains("Build cache: kept \(split.head.prefix(12))'s build"),
                "\(build.output.suffix(2000))")
            for (index, node) in ["1/2", "2/2"].enumerated() {
                let ran = try runner.gitHub(
                    "ci/github-2/pipeline-pull-request.yml", job: "test", sha: split.merge, event: "pull_request",
                    payload: event, node: (index, node))
                Self.expect(ran, passed: index == 1, "node \(node) of the pull request")
                #expect(ran.output.contains("test products ("), "node \(node) runs the build job's products")
                #expect(
                    !ran.output.contains("Building the tests"),
                    "node \(node) builds nothing: \(ran.output.suffix(2000))")
            }
            let report = try runner.gitHub(
                "ci/github-2/pipeline-pull-request.yml", job: "report", sha: split.merge, event: "pull_request",
                payload: event)
            Self.expect(report, passed: false, "the report of a run whose snapshots failed")
            let accepted = try runner.gitHub(
                workflows + "pipeline-accept.yml", job: "accept", sha: split.head, event: "workflow_dispatch",
                inputs: ["tests": "all", "commit": ""])
            Self.expect(accepted, passed: true, "accepting the split run's renderings")
            let mergedSplit = try team.merge("feature/split")
            let mergedBuild = try runner.gitHub(
                "ci/github-2/pipeline-post-merge.yml", job: "build", sha: mergedSplit, event: "push")
            Self.expect(mergedBuild, passed: true, "the post-merge build job")
            for (index, node) in ["1/2", "2/2"].enumerated() {
                let ran = try runner.gitHub(
                    "ci/github-2/pipeline-post-merge.yml", job: "test", sha: mergedSplit, event: "push",
                    node: (index, node))
                Self.expect(ran, passed: true, "node \(node) after the merge")
            }
            for job in ["report", "promote"] {
                let ran = try runner.gitHub(
                    "ci/github-2/pipeline-post-merge.yml", job: job, sha: mergedSplit, event: "push")
                Self.expect(ran, passed: true, "the post-merge \(job) job")
            }
        }

        // The next pull request, changing no view, passes on what develop now holds.
        let next = try team.pullRequest("feature/notes", colour: nil)
        let clean = try runner.bitrise(
            "pull-request", sha: next.merge,
            extra: ["BITRISE_PULL_REQUEST": "3", "BITRISE_BUILD_NUMBER": "205", "BITRISE_GIT_BRANCH": "feature/notes"])
        Self.expect(clean, passed: true, "a pull request after the merges")
    }
}
