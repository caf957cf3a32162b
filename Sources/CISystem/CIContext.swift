import Foundation

/// The CI system around a run, read from its variables: the one place that knows them. Whether
/// this is CI at all, the CI's name, the run's id, where results are shown, and on a pull
/// request's synthetic merge commit the branch head it was made from.
public struct CIContext: Sendable {
    /// The process environment (or a test's).
    public let variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// Whether this is a CI run: `CI` set to anything but empty, `false` or `0`, as GitHub Actions,
    /// GitLab, Bitrise, Buildkite and CircleCI set it.
    public var isCI: Bool {
        guard let value = variables["CI"]?.lowercased(), !value.isEmpty else { return false }
        return value != "false" && value != "0"
    }

    /// Whether progress may redraw one line in place: standard error is a terminal, outside CI.
    public var isInteractive: Bool {
        isatty(STDERR_FILENO) == 1 && !isCI
    }

    /// Whether output to a stream may be coloured: it is a `terminal`, `NO_COLOR` is unset or empty
    /// (no-color.org), and `TERM` is not `dumb`. CI logs are files, so they get none.
    public func colors(terminal: Bool) -> Bool {
        terminal && (variables["NO_COLOR"] ?? "").isEmpty && variables["TERM"] != "dumb"
    }

    /// The CI's name for people (`GitHub Actions`), `CI` for one not known by name; nil outside CI.
    public var name: String? {
        let known = [
            ("GITHUB_ACTIONS", "GitHub Actions"), ("BITRISE_IO", "Bitrise"), ("GITLAB_CI", "GitLab CI"),
            ("BUILDKITE", "Buildkite"), ("CIRCLECI", "CircleCI"), ("JENKINS_URL", "Jenkins"),
            ("TF_BUILD", "Azure Pipelines"), ("XCS", "Xcode Cloud"),
        ]
        if let name = known.first(where: { variables[$0.0] != nil })?.1 { return name }
        return isCI ? "CI" : nil
    }

    /// The run id variables of GitHub Actions, Bitrise, Buildkite and GitLab: the same for every
    /// job of one run, and kept when a failed job is re-run. On Bitrise each parallel copy of a
    /// pipeline's workflow is a build of its own, so the pipeline's id comes before the build's.
    public static let runVariables = [
        "GITHUB_RUN_ID", "BITRISEIO_PIPELINE_ID", "BITRISE_BUILD_NUMBER", "BUILDKITE_BUILD_ID", "CI_PIPELINE_ID",
    ]

    /// The CI's run id, when a CI sets one: what the nodes of one run share.
    public var runID: String? {
        Self.runVariables.lazy.compactMap { variables[$0] }.first { !$0.isEmpty }
    }

    /// The run id and, where the CI counts them, the attempt (`123.2` for GitHub's second attempt):
    /// what tells two runs of one commit apart. Letters, digits and dots only, at most 40.
    public var runLabel: String? {
        guard let id = runID else { return nil }
        let label = ([id] + [variables["GITHUB_RUN_ATTEMPT"]].compactMap { $0 }).joined(separator: ".")
        let safe = String(
            label.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "." }.prefix(40))
        return safe.isEmpty ? nil : safe
    }

    /// On GitHub Actions, where its step summary and annotations go: the summary file and the workspace.
    public var gitHub: (summary: String?, workspace: String?)? {
        guard variables["GITHUB_ACTIONS"] == "true" else { return nil }
        return (variables["GITHUB_STEP_SUMMARY"], variables["GITHUB_WORKSPACE"])
    }

    /// On GitHub Actions, the page of this workflow run (its summary and artifacts):
    /// `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`; nil elsewhere.
    public var gitHubRunPage: String? {
        guard variables["GITHUB_ACTIONS"] == "true", let repository = variables["GITHUB_REPOSITORY"],
            let run = variables["GITHUB_RUN_ID"], !repository.isEmpty, !run.isEmpty
        else { return nil }
        return "\(variables["GITHUB_SERVER_URL"] ?? "https://github.com")/\(repository)/actions/runs/\(run)"
    }

    /// Whether the CI checks out a pull request as a merge commit it makes of the branch into its
    /// base: GitHub's `pull_request` events (`refs/pull/N/merge`), Bitrise's and Jenkins' pull-request
    /// builds. GitLab does so only for merged-results pipelines, which say so themselves.
    var buildsSyntheticMerges: Bool {
        if let event = variables["GITHUB_EVENT_NAME"], event.hasPrefix("pull_request") { return true }
        if let id = variables["BITRISE_PULL_REQUEST"], !id.isEmpty { return true }
        if let id = variables["CHANGE_ID"], !id.isEmpty, variables["JENKINS_URL"] != nil { return true }
        return false
    }

    /// The commit whose work a run on `checkedOut` tests, to key what it keeps (candidates,
    /// pushes) by, and why; nil when that is `checkedOut` itself. On a pull request's synthetic
    /// merge commit (GitHub's `refs/pull/N/merge`, GitLab's merged results) it is the branch head
    /// the merge was made from, which the real merge later brings in. `parents` are
    /// `checkedOut`'s parents, when known.
    ///
    /// In order: `PIPELINE_BRANCH_HEAD` when set (for a CI not known here); the CI's own record
    /// (`pull_request.head.sha` in GitHub's event file, `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` of
    /// GitLab's merged results); on a CI that builds pull requests as merges, the second parent of
    /// the merge commit checked out: the side merged into the base.
    public func branchHead(of checkedOut: String, parents: [String]) -> (commit: String, why: String)? {
        if let head = variables["PIPELINE_BRANCH_HEAD"], Self.isCommitID(head) {
            return head == checkedOut ? nil : (head, "PIPELINE_BRANCH_HEAD")
        }
        guard isCI else { return nil }
        let merge = "\(checkedOut.prefix(12)) is the CI's merge of it into the base"
        if let head = gitHubPullRequestHead, variables["GITHUB_SHA"] == checkedOut, head != checkedOut {
            return (head, "the pull request's head (pull_request.head.sha in GitHub's event file); " + merge)
        }
        if variables["CI_MERGE_REQUEST_EVENT_TYPE"] == "merged_result",
            let head = variables["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"], Self.isCommitID(head), head != checkedOut
        {
            return (head, "the merge request's head (CI_MERGE_REQUEST_SOURCE_BRANCH_SHA); " + merge)
        }
        for (variable, ci) in [
            ("SYSTEM_PULLREQUEST_SOURCECOMMITID", "Azure Pipelines"), ("TRAVIS_PULL_REQUEST_SHA", "Travis CI"),
        ] {
            if let head = variables[variable], Self.isCommitID(head), head != checkedOut, parents.count == 2 {
                return (head, "the pull request's head (\(variable), \(ci)); " + merge)
            }
        }
        if buildsSyntheticMerges, parents.count == 2 {
            return (parents[1], "the pull request's head, the second parent of its merge commit; " + merge)
        }
        return nil
    }

    /// This job's place among the CI's parallel copies of it, numbered from 1, as the CI says:
    /// Bitrise's `BITRISE_IO_PARALLEL_INDEX`/`_TOTAL`, Buildkite's `BUILDKITE_PARALLEL_JOB`/`_COUNT`
    /// and CircleCI's `CIRCLE_NODE_INDEX`/`_TOTAL` (counted from 0), GitLab's `CI_NODE_INDEX`/`_TOTAL`
    /// (from 1). Nil outside CI, on a CI that does not number them (GitHub's matrix), or when the
    /// values make no node.
    public var parallelNode: (index: Int, count: Int)? {
        guard isCI else { return nil }
        for (index, total, base) in [
            ("BITRISE_IO_PARALLEL_INDEX", "BITRISE_IO_PARALLEL_TOTAL", 0),
            ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
            ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
            ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
        ] {
            guard let i = variables[index].flatMap({ Int($0) }), let n = variables[total].flatMap({ Int($0) }) else {
                continue
            }
            let node = i - base + 1
            return (1...max(1, n)).contains(node) && n >= 1 ? (node, n) : nil
        }
        return nil
    }

    /// Whether this is a pull request's (or merge request's) run, as the CI says: GitHub's
    /// `pull_request` events and merge queue checks (`merge_group`), GitLab's `CI_MERGE_REQUEST_IID`, Bitrise's `BITRISE_PULL_REQUEST`,
    /// Jenkins' `CHANGE_ID`, Azure's `SYSTEM_PULLREQUEST_PULLREQUESTID`, Buildkite's and Travis'
    /// `…_PULL_REQUEST` other than `false`, CircleCI's `CIRCLE_PULL_REQUEST`; or
    /// `PIPELINE_PULL_REQUEST=1` for any other CI.
    public var isPullRequest: Bool {
        guard isCI else { return false }
        if variables["PIPELINE_PULL_REQUEST"] == "1" { return true }
        if variables["GITHUB_EVENT_NAME"]?.hasPrefix("pull_request") == true { return true }
        // A merge queue's check runs before the merge, as a pull request's does.
        if variables["GITHUB_EVENT_NAME"] == "merge_group" { return true }
        for name in [
            "CI_MERGE_REQUEST_IID", "BITRISE_PULL_REQUEST", "CHANGE_ID", "SYSTEM_PULLREQUEST_PULLREQUESTID",
            "CIRCLE_PULL_REQUEST",
        ] where !(variables[name] ?? "").isEmpty {
            return true
        }
        return ["BUILDKITE_PULL_REQUEST", "TRAVIS_PULL_REQUEST"].contains { name in
            guard let value = variables[name] else { return false }
            return !value.isEmpty && value != "false"
        }
    }

    /// The branch this run builds, as the CI names it: a pull request's own branch (GitHub's
    /// `GITHUB_HEAD_REF`, GitLab's `CI_MERGE_REQUEST_SOURCE_BRANCH_NAME`), else the pushed branch
    /// (`GITHUB_REF_NAME`, `BITRISE_GIT_BRANCH`, `CI_COMMIT_REF_NAME`, `BUILDKITE_BRANCH`,
    /// `CIRCLE_BRANCH`, `BRANCH_NAME`); nil outside CI or when none is set.
    public var branch: String? {
        guard isCI else { return nil }
        let names = [
            "GITHUB_HEAD_REF", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "GITHUB_REF_NAME", "BITRISE_GIT_BRANCH",
            "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH", "CIRCLE_BRANCH", "BRANCH_NAME",
        ]
        return names.lazy.compactMap { self.variables[$0] }.first { !$0.isEmpty }
    }

    /// The branch a pull request's run will merge into (`develop`), as the CI names it: GitHub's
    /// `GITHUB_BASE_REF`, GitLab's `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`, Bitrise's
    /// `BITRISEIO_GIT_BRANCH_DEST`, Azure's `SYSTEM_PULLREQUEST_TARGETBRANCH` (`refs/heads/` left
    /// out), Jenkins' `CHANGE_TARGET`, Travis' `TRAVIS_BRANCH` on a pull request; nil elsewhere.
    public var targetBranch: String? {
        guard isCI else { return nil }
        var names = [
            "GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "BITRISEIO_GIT_BRANCH_DEST",
            "SYSTEM_PULLREQUEST_TARGETBRANCH", "CHANGE_TARGET",
        ]
        if let pullRequest = variables["TRAVIS_PULL_REQUEST"], pullRequest != "false" { names.append("TRAVIS_BRANCH") }
        guard var name = names.lazy.compactMap({ self.variables[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        if name.hasPrefix("refs/heads/") { name.removeFirst("refs/heads/".count) }
        return name
    }

    /// `pull_request.head.sha` in GitHub's event file of a pull-request event; nil elsewhere or when it cannot be read.
    var gitHubPullRequestHead: String? {
        guard variables["GITHUB_EVENT_NAME"]?.hasPrefix("pull_request") == true,
            let path = variables["GITHUB_EVENT_PATH"], let data = FileManager.default.contents(atPath: path),
            let event = try? JSONDecoder().decode(GitHubEvent.self, from: data),
            let sha = event.pull_request?.head?.sha, Self.isCommitID(sha)
        else { return nil }
        return sha
    }

    /// Where the pushed branch stood before the push this run builds: `PIPELINE_PUSH_BEFORE`, else
    /// `before` in GitHub's event file of a `push` event, GitLab's `CI_COMMIT_BEFORE_SHA`; nil for
    /// another event, a new branch (all zeros) or when it cannot be read. A push may bring several
    /// merges at once (a merge queue fast-forwarding over its entries, two quick merges).
    public var pushedFrom: String? {
        guard isCI || variables["PIPELINE_PUSH_BEFORE"] != nil else { return nil }
        let before: String?
        if let named = variables["PIPELINE_PUSH_BEFORE"] {
            before = named
        } else if variables["GITHUB_EVENT_NAME"] == "push", let path = variables["GITHUB_EVENT_PATH"],
            let data = FileManager.default.contents(atPath: path)
        {
            before = (try? JSONDecoder().decode(GitHubEvent.self, from: data))?.before
        } else if variables["GITLAB_CI"] != nil, variables["CI_PIPELINE_SOURCE"] == "push" {
            before = variables["CI_COMMIT_BEFORE_SHA"]
        } else {
            before = nil
        }
        guard let before = before?.lowercased(), Self.isCommitID(before), before.contains(where: { $0 != "0" }) else {
            return nil
        }
        return before
    }

    /// On GitHub's merge queue (`merge_group`), the entry being checked: its pull request's number
    /// and the branch it merges into, read from the entry's temporary branch
    /// (`gh-readonly-queue/<base>/pr-<N>-<sha>`); nil elsewhere.
    public var mergeQueueEntry: (pullRequest: Int, base: String)? {
        guard variables["GITHUB_EVENT_NAME"] == "merge_group", let path = variables["GITHUB_EVENT_PATH"],
            let data = FileManager.default.contents(atPath: path),
            let ref = (try? JSONDecoder().decode(GitHubEvent.self, from: data))?.merge_group?.head_ref,
            let match = ref.firstMatch(of: /^(?:refs\/heads\/)?gh-readonly-queue\/(.+)\/pr-(\d+)-[0-9a-f]+$/),
            let number = Int(match.2)
        else { return nil }
        return (number, String(match.1))
    }

    /// Whether anyone may read the run's logs and summaries: a public repository (GitHub's event
    /// file, `repository.visibility`, else `repository.private`; GitLab's `CI_PROJECT_VISIBILITY`);
    /// nil where the CI does not say.
    public var repositoryIsPublic: Bool? {
        if let visibility = variables["CI_PROJECT_VISIBILITY"], variables["GITLAB_CI"] != nil {
            return visibility == "public"
        }
        guard variables["GITHUB_ACTIONS"] == "true", let path = variables["GITHUB_EVENT_PATH"],
            let data = FileManager.default.contents(atPath: path),
            let repository = (try? JSONDecoder().decode(GitHubEvent.self, from: data))?.repository
        else { return nil }
        return repository.visibility.map { $0 == "public" } ?? repository.isPrivate.map { !$0 }
    }

    private struct GitHubEvent: Decodable {
        struct Repository: Decodable {
            let visibility: String?
            let isPrivate: Bool?
            enum CodingKeys: String, CodingKey {
                case visibility
                case isPrivate = "private"
            }
        }
        let repository: Repository?
        struct PullRequest: Decodable {
            struct Head: Decodable { let sha: String? }
            let head: Head?
        }
        struct MergeGroup: Decodable {
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let head_ref: String?
        }
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let pull_request: PullRequest?
        let before: String?
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let merge_group: MergeGroup?
    }

    /// Forty (or sixty-four) hexadecimal digits.
    static func isCommitID(_ text: String) -> Bool {
        (text.count == 40 || text.count == 64) && text.allSatisfy(\.isHexDigit)
    }
}
