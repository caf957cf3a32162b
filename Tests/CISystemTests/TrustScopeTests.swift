import CISystem
import Foundation
import Testing

/// Each CI's jobs in their trust scope, from the variables and event the CI sets: a pull request
/// reads its own and its base branch's; a branch its own; a tag and an unknown event nothing.
@Suite struct TrustScopeTests {
    func scope(_ variables: [String: String]) -> TrustScope {
        CIContext(["CI": "true"].merging(variables) { $1 }).trustScope
    }

    @Test func gitHub() throws {
        let gitHub = ["GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "99"]
        let pullRequest = scope(
            gitHub.merging([
                "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/12/merge", "GITHUB_HEAD_REF": "feature/x",
                "GITHUB_BASE_REF": "develop", "GITHUB_REF_NAME": "12/merge",
            ]) { $1 })
        #expect(pullRequest == .pullRequest("12", base: "develop"))
        #expect(pullRequest.folder == "pr/12")
        #expect(pullRequest.readable == ["pr/12", "branch/develop"])
        // pull_request_target runs the base's workflow for a pull request: still the pull request's scope.
        #expect(
            scope(
                gitHub.merging([
                    "GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_REF": "refs/heads/develop",
                    "GITHUB_HEAD_REF": "feature/x", "GITHUB_BASE_REF": "develop",
                ]) { $1 })
                == .pullRequest("feature/x", base: "develop"))
        let push = scope(gitHub.merging(["GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop"]) { $1 })
        #expect(push == .branch("develop"))
        #expect(push.readable == ["branch/develop"])
        // A job cannot name its way into another scope: GITHUB_HEAD_REF on a push is ignored.
        #expect(
            scope(
                gitHub.merging([
                    "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop", "GITHUB_HEAD_REF": "x",
                ]) { $1 })
                == .branch("develop"))
        let release = scope(gitHub.merging(["GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/tags/v1.2.0"]) { $1 })
        #expect(release == .tag("v1.2.0"))
        #expect(release.readable.isEmpty)
        #expect(
            scope(gitHub.merging(["GITHUB_EVENT_NAME": "schedule", "GITHUB_REF": "refs/heads/main"]) { $1 })
                == .branch("main"))
        #expect(scope(gitHub.merging(["GITHUB_EVENT_NAME": "pull_request"]) { $1 }) == .unknown(run: "99"))
        #expect(scope(gitHub.merging(["GITHUB_EVENT_NAME": "push"]) { $1 }).readable.isEmpty)

        // A merge queue's check is its pull request's.
        let event = FileManager.default.temporaryDirectory.appendingPathComponent("event-\(UUID().uuidString).json")
        try Data(#"{"merge_group":{"head_ref":"refs/heads/gh-readonly-queue/develop/pr-31-abcdef0123"}}"#.utf8)
            .write(to: event)
        defer { try? FileManager.default.removeItem(at: event) }
        #expect(
            scope(
                gitHub.merging([
                    "GITHUB_EVENT_NAME": "merge_group", "GITHUB_EVENT_PATH": event.path,
                    "GITHUB_REF": "refs/heads/gh-readonly-queue/develop/pr-31-abcdef0123",
                ]) { $1 })
                == .pullRequest("31", base: "develop"))
    }

    @Test func gitLabAndBitrise() {
        #expect(
            scope([
                "GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "5", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop",
                "CI_COMMIT_REF_NAME": "feature/x",
            ]) == .pullRequest("5", base: "develop"))
        #expect(
            scope(["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "develop", "CI_COMMIT_REF_NAME": "develop"])
                == .branch("develop"))
        #expect(scope(["GITLAB_CI": "true", "CI_COMMIT_TAG": "v2", "CI_COMMIT_REF_NAME": "v2"]) == .tag("v2"))
        #expect(
            scope([
                "BITRISE_IO": "true", "BITRISE_PULL_REQUEST": "44", "BITRISEIO_GIT_BRANCH_DEST": "develop",
                "BITRISE_GIT_BRANCH": "feature/x",
            ]) == .pullRequest("44", base: "develop"))
        #expect(
            scope(["BITRISE_IO": "true", "BITRISE_PULL_REQUEST": "", "BITRISE_GIT_BRANCH": "develop"])
                == .branch("develop"))
        #expect(scope(["BITRISE_IO": "true", "BITRISE_GIT_TAG": "1.0"]) == .tag("1.0"))
    }

    @Test func otherCIsAndMachines() {
        #expect(CIContext([:]).trustScope == .machine)
        #expect(CIContext([:]).trustScope.readable == ["local"])
        #expect(scope(["BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "9", "BUILDKITE_BRANCH": "f"]).folder == "pr/9")
        #expect(
            scope(["BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "false", "BUILDKITE_BRANCH": "main"])
                == .branch("main"))
        #expect(scope(["CIRCLECI": "true", "CIRCLE_PULL_REQUEST": "https://github.com/o/r/pull/3"]).folder == "pr/3")
        let unknown = scope([:])
        #expect(unknown == .unknown(run: nil))
        #expect(unknown.folder == "run/unknown")
        #expect(unknown.readable.isEmpty)
    }

    @Test func namesAreSafeFoldersThatNeverCollide() {
        #expect(TrustScope.branch("release/1.2").folder == "branch/release/1.2")
        let odd = TrustScope.branch("a b").folder
        let other = TrustScope.branch("a-b").folder
        #expect(odd.hasPrefix("branch/a-b-"), "\(odd)")
        #expect(odd != other)
        for name in ["../develop", "x/../../y", "", "/", "a//b", "ü"] {
            let folder = TrustScope.branch(name).folder
            #expect(
                !folder.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0.isEmpty })
            #expect(folder.hasPrefix("branch/"), "\(folder)")
        }
    }
}
