import CISystem
import Foundation
import Testing

@Suite struct CIContextTests {
    let merge = String(repeating: "a", count: 40)
    let base = String(repeating: "b", count: 40)
    let head = String(repeating: "c", count: 40)

    @Test func ciIsCIUnlessFalseOrEmpty() {
        #expect(CIContext(["CI": "true"]).isCI)
        #expect(CIContext(["CI": "1"]).isCI)
        #expect(CIContext(["CI": "yes"]).isCI)
        #expect(!CIContext(["CI": "false"]).isCI)
        #expect(!CIContext(["CI": "FALSE"]).isCI)
        #expect(!CIContext(["CI": "0"]).isCI)
        #expect(!CIContext(["CI": ""]).isCI)
        #expect(!CIContext([:]).isCI)
        // CI=false never redraws progress as CI would not, nor is it named as a CI.
        #expect(CIContext(["CI": "false"]).name == nil)
        #expect(CIContext(["CI": "true"]).name == "CI")
        #expect(CIContext(["CI": "true", "GITHUB_ACTIONS": "true"]).name == "GitHub Actions")
    }

    @Test func colorsOnATerminalUnlessNoColorOrADumbTerminal() {
        #expect(CIContext(["TERM": "xterm-256color"]).colors(terminal: true))
        #expect(CIContext(["NO_COLOR": ""]).colors(terminal: true), "an empty NO_COLOR does not count")
        #expect(!CIContext(["NO_COLOR": "1"]).colors(terminal: true))
        #expect(!CIContext(["TERM": "dumb"]).colors(terminal: true))
        #expect(!CIContext([:]).colors(terminal: false), "a file or a pipe gets no colour")
    }

    @Test func runIDAndLabel() {
        #expect(CIContext([:]).runID == nil)
        #expect(CIContext(["GITHUB_RUN_ID": "123", "GITHUB_RUN_ATTEMPT": "2"]).runLabel == "123.2")
        // Bitrise: the pipeline's id comes before the build's.
        #expect(CIContext(["BITRISE_BUILD_NUMBER": "7", "BITRISEIO_PIPELINE_ID": "p-1"]).runID == "p-1")
        #expect(CIContext(["BITRISE_BUILD_NUMBER": "7", "BITRISEIO_PIPELINE_ID": "p-1"]).runLabel == "p1")
        #expect(CIContext(["BUILDKITE_BUILD_ID": "../../x"]).runLabel == "....x")
        #expect(CIContext(["CI_PIPELINE_ID": ""]).runID == nil)
    }

    @Test func gitHubSummaryOnlyOnGitHub() {
        #expect(CIContext(["GITHUB_STEP_SUMMARY": "/tmp/s"]).gitHub == nil)
        let gitHub = CIContext(["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/tmp/s"]).gitHub
        #expect(gitHub?.summary == "/tmp/s")
    }

    /// GitHub's pull_request checkout is a merge GitHub makes; the event file names the branch head.
    @Test func gitHubSyntheticMergeKeysByTheEventsHead() throws {
        let event = FileManager.default.temporaryDirectory.appendingPathComponent("event-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: event) }
        try Data(
            #"{"number":4,"pull_request":{"head":{"ref":"feature/x","sha":"\#(head)"},"base":{"sha":"\#(base)"}}}"#.utf8
        )
        .write(to: event)
        var variables = [
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": event.path, "GITHUB_SHA": merge,
        ]
        // A shallow checkout (fetch-depth 1) knows no parents: the event file is enough.
        #expect(CIContext(variables).branchHead(of: merge, parents: [])?.commit == head)
        // The workflow checked out the head itself: it is keyed by itself.
        #expect(CIContext(variables).branchHead(of: head, parents: [base]) == nil)
        // A push event is the branch's own commit.
        variables["GITHUB_EVENT_NAME"] = "push"
        #expect(CIContext(variables).branchHead(of: merge, parents: [base, head]) == nil)
        // An unreadable event file: the merge's second parent.
        variables["GITHUB_EVENT_NAME"] = "pull_request"
        variables["GITHUB_EVENT_PATH"] = "/nonexistent/event.json"
        #expect(CIContext(variables).branchHead(of: merge, parents: [base, head])?.commit == head)
        // Outside CI nothing is guessed.
        variables["CI"] = "false"
        #expect(CIContext(variables).branchHead(of: merge, parents: [base, head]) == nil)
    }

    @Test func gitLabMergedResults() {
        var variables = [
            "CI": "true", "GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "9",
            "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": head, "CI_MERGE_REQUEST_EVENT_TYPE": "merged_result",
        ]
        #expect(CIContext(variables).branchHead(of: merge, parents: [base, head])?.commit == head)
        // A detached merge request pipeline builds the head itself, even when it is a merge commit.
        variables["CI_MERGE_REQUEST_EVENT_TYPE"] = "detached"
        #expect(CIContext(variables).branchHead(of: merge, parents: [base, head]) == nil)
    }

    @Test func otherCIs() {
        // Bitrise builds a pull request as a merge: its second parent is the branch.
        let bitrise = ["CI": "true", "BITRISE_IO": "true", "BITRISE_PULL_REQUEST": "12"]
        #expect(CIContext(bitrise).branchHead(of: merge, parents: [base, head])?.commit == head)
        #expect(CIContext(bitrise).branchHead(of: merge, parents: [base]) == nil)
        // Buildkite builds the branch's own commit: a merge commit there is the branch's.
        let buildkite = ["CI": "true", "BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "12"]
        #expect(CIContext(buildkite).branchHead(of: merge, parents: [base, head]) == nil)
        // Any CI: PIPELINE_BRANCH_HEAD says so; a value that is no commit id is ignored.
        #expect(CIContext(["PIPELINE_BRANCH_HEAD": head]).branchHead(of: merge, parents: [])?.commit == head)
        #expect(CIContext(["PIPELINE_BRANCH_HEAD": "main"]).branchHead(of: merge, parents: []) == nil)
    }
}

@Suite struct TargetBranchTests {
    @Test func eachCIsTargetBranch() {
        #expect(CIContext(["CI": "true", "GITHUB_BASE_REF": "develop"]).targetBranch == "develop")
        #expect(
            CIContext(["CI": "true", "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main"]).targetBranch == "main")
        #expect(
            CIContext(["CI": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST": "false"]).targetBranch == nil)
        #expect(
            CIContext(["CI": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST": "12"]).targetBranch == "main")
        #expect(CIContext(["GITHUB_BASE_REF": "develop"]).targetBranch == nil, "outside CI")
    }

    @Test func azureAndTravisNameThePullRequestsHead() {
        let merge = String(repeating: "a", count: 40)
        let head = String(repeating: "c", count: 40)
        let parents = [String(repeating: "b", count: 40), String(repeating: "d", count: 40)]
        let azure = CIContext(["CI": "true", "TF_BUILD": "True", "SYSTEM_PULLREQUEST_SOURCECOMMITID": head])
        #expect(azure.branchHead(of: merge, parents: parents)?.commit == head)
        #expect(azure.branchHead(of: merge, parents: [parents[0]]) == nil, "not a merge commit: no synthetic merge")
        let travis = CIContext(["CI": "true", "TRAVIS_PULL_REQUEST_SHA": head])
        #expect(travis.branchHead(of: merge, parents: parents)?.why.contains("Travis") == true)
    }

    /// GitHub's event file at a scratch path, and the variables of a run of `event` that reads it.
    private func gitHub(_ event: String, payload: String) throws -> CIContext {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("event-\(UUID().uuidString).json")
        try Data(payload.utf8).write(to: file)
        return CIContext(["CI": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": file.path])
    }

    @Test func aRepositorysVisibility() throws {
        let variables = ["GITHUB_ACTIONS": "true"]
        func visibility(_ payload: String) throws -> Bool? {
            let context = try gitHub("pull_request", payload: payload)
            return CIContext(context.variables.merging(variables) { $1 }).repositoryIsPublic
        }
        #expect(try visibility(#"{"repository": {"visibility": "public", "private": false}}"#) == true)
        #expect(try visibility(#"{"repository": {"visibility": "internal", "private": true}}"#) == false)
        #expect(
            try visibility(#"{"repository": {"private": false}}"#) == true, "GitHub Enterprise Server's older events")
        #expect(try visibility(#"{"pull_request": {}}"#) == nil)
        #expect(CIContext(["GITLAB_CI": "true", "CI_PROJECT_VISIBILITY": "public"]).repositoryIsPublic == true)
        #expect(CIContext(["GITLAB_CI": "true", "CI_PROJECT_VISIBILITY": "private"]).repositoryIsPublic == false)
        #expect(CIContext(["CI": "true"]).repositoryIsPublic == nil)
    }

    @Test func aPushSaysWhereTheBranchStoodAndAQueueCheckIsAPullRequestsRun() throws {
        let merge = String(repeating: "a", count: 40)
        let push = try gitHub(
            "push",
            payload:
                #"{"before": "\#(String(repeating: "b", count: 40))", "after": "\#(String(repeating: "c", count: 40))"}"#
        )
        #expect(push.pushedFrom == String(repeating: "b", count: 40))
        #expect(!push.isPullRequest)
        let newBranch = try gitHub("push", payload: #"{"before": "\#(String(repeating: "0", count: 40))"}"#)
        #expect(newBranch.pushedFrom == nil, "a new branch has nothing before it")
        #expect(
            CIContext(["CI": "true", "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BEFORE_SHA": merge])
                .pushedFrom == merge)
        #expect(CIContext(["PIPELINE_PUSH_BEFORE": merge]).pushedFrom == merge)
        let queue = try gitHub(
            "merge_group",
            payload: #"{"merge_group": {"head_ref": "refs/heads/gh-readonly-queue/main/pr-42-\#(merge)"}}"#)
        #expect(queue.isPullRequest, "a queue's check writes feature only, as a pull request's")
        #expect(queue.mergeQueueEntry?.pullRequest == 42 && queue.mergeQueueEntry?.base == "main")
        #expect(queue.pushedFrom == nil)
    }
}
