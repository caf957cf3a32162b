import PipelineCore

/// How each job gets the store's credentials: one for the jobs that run a pull request's code
/// (pull request, merge queue, accept), which can write feature and the pull request's records
/// only, and one for the jobs after a merge, which write develop. No job holds both, and no
/// credential is given to more than the steps that run pipeline (docs/ci.md, "Each CI gives each
/// job its own credentials").
public enum StoreCredentials: Sendable, Equatable {
    /// Stored keys: GitHub's repository secrets for pull requests, develop's in an environment only
    /// the base branch deploys to; Bitrise's secrets exposed to pull requests or not; GitLab's
    /// unprotected and protected variables.
    case keys
    /// GitHub's OIDC: a role each, assumed by aws-actions/configure-aws-credentials.
    case roles(pullRequest: String, develop: String)

    /// Checks the two roles' ARNs.
    public static func choose(pullRequestRole pullRequest: String?, developRole develop: String?) throws(RequestError)
        -> StoreCredentials
    {
        switch (pullRequest, develop) {
        case (nil, nil): return .keys
        case (let pullRequest?, let develop?):
            for (flag, arn) in [("--aws-role-pull-request", pullRequest), ("--aws-role-develop", develop)] {
                guard arn.hasPrefix("arn:aws"), arn.contains(":role/"), !arn.contains(" ") else {
                    throw RequestError(
                        "\(flag) '\(arn)': an IAM role's ARN, such as arn:aws:iam::123456789012:role/snapshots-pr")
                }
            }
            guard pullRequest != develop else {
                throw RequestError(
                    "--aws-role-pull-request and --aws-role-develop name the same role: a pull request's code would "
                        + "hold develop's write access")
            }
            return .roles(pullRequest: pullRequest, develop: develop)
        default:
            throw RequestError("--aws-role-pull-request and --aws-role-develop: give both, or neither for stored keys")
        }
    }
}

/// Whose credentials a job holds.
enum Trust: Sendable {
    /// A pull request's code runs (its check, the merge queue's, a reviewer's accept).
    case pullRequest
    /// After a merge, on the base branch.
    case develop

    /// The secrets' names: `PIPELINE_PR_AWS_ACCESS_KEY_ID`, `PIPELINE_DEVELOP_AWS_SECRET_ACCESS_KEY`.
    var secretPrefix: String { self == .pullRequest ? "PIPELINE_PR_" : "PIPELINE_DEVELOP_" }

    static let keyNames = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]

    /// The two secrets this trust's credential is kept in.
    var secrets: [String] { Self.keyNames.map { secretPrefix + $0 } }

    /// GitHub's environment develop's secrets live in, whose deployment branches are the base only.
    static let gitHubEnvironment = "pipeline-develop"
}

/// The parts of GitHub's workflows that hand a job its credentials.
enum GitHubCredentials {
    /// What the job says before its steps: develop's jobs enter the environment holding develop's
    /// secrets (stored keys), or may ask for an OIDC token (roles).
    static func job(_ request: SetupRequest, _ trust: Trust) -> String {
        guard request.usesS3 else { return "" }
        switch request.credentials {
        case .keys:
            return trust == .develop ? "    environment: \(Trust.gitHubEnvironment)\n" : ""
        case .roles:
            return "    permissions: { \((permissions(trust) + ["id-token: write"]).joined(separator: ", ")) }\n"
        }
    }

    /// What the job's token may do: read the repository; after a merge also read the CI's runs and
    /// pull requests, whose records confirm a pull request's verdict before a post-merge job takes it.
    static func permissions(_ trust: Trust) -> [String] {
        ["contents: read"] + (trust == .develop ? ["actions: read", "pull-requests: read"] : [])
    }

    /// A workflow's `permissions:` for its jobs of `trust`, as lines.
    static func permissionLines(_ trust: Trust) -> [String] {
        ["permissions:"] + permissions(trust).map { "  " + $0 }
    }

    /// The step after the setup that assumes the job's role (roles only).
    static func assume(_ request: SetupRequest, _ trust: Trust) -> String {
        guard request.usesS3, case .roles(let pullRequest, let develop) = request.credentials else { return "" }
        return """

                  - uses: aws-actions/configure-aws-credentials@v4
                    with: { role-to-assume: "\(trust == .pullRequest ? pullRequest : develop)", aws-region: \(request.region ?? "us-east-1") }
            """
    }

    /// The job's token, read-only (`permissions`), for the step that asks GitHub about runs.
    static let token = "GITHUB_TOKEN: \"${{ github.token }}\""

    /// The job's stored keys as `env:` entries (`AWS_ACCESS_KEY_ID: "${{ secrets.… }}"`); none
    /// with roles or a folder store.
    static func keyEntries(_ request: SetupRequest, _ trust: Trust) -> [String] {
        guard request.usesS3, case .keys = request.credentials else { return [] }
        return zip(Trust.keyNames, trust.secrets).map { "\($0): \"${{ secrets.\($1) }}\"" }
    }

    /// A step's `env:` holding the job's stored keys (keys only), and after a merge the job's
    /// token (which reads GitHub's runs: `permissions`), at `indent` (the step's keys').
    static func stepVariables(_ request: SetupRequest, _ trust: Trust, indent: String = "        ") -> String {
        let entries = keyEntries(request, trust) + (trust == .develop ? [token] : [])
        return entries.isEmpty ? "" : "\n\(indent)env: { \(entries.joined(separator: ", ")) }"
    }

    /// A step running `command` with the job's credentials.
    static func step(_ request: SetupRequest, _ trust: Trust, _ command: String) -> String {
        "      - run: \(command)" + stepVariables(request, trust)
    }

    /// A pull request from a fork gets no secrets or OIDC token: its jobs are skipped (a required
    /// check then counts as passed, not failed for want of a secret) and one job says why.
    static let notFork = "github.event_name != 'pull_request' || !github.event.pull_request.head.repo.fork"

    static func forkNotice(_ request: SetupRequest) -> String {
        guard request.usesS3 else { return "" }
        return """
              fork:
                if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.fork
                runs-on: ubuntu-latest
                timeout-minutes: 5
                steps:
                  - run: echo "::notice title=pipeline::Not compared with the references - GitHub gives a fork's pull request no store credentials. A maintainer runs the check (the merge queue's, or the branch pushed to this repository)."

            """
    }
}

/// Bitrise's secrets: each script that runs pipeline exports the build's own key, the pull
/// request's where Bitrise says the build is one (develop's secrets are not exposed to it).
enum BitriseCredentials {
    static func lines(_ request: SetupRequest) -> [String] {
        guard request.usesS3 else { return [] }
        func export(_ trust: Trust) -> String {
            "export " + zip(Trust.keyNames, trust.secrets).map { "\($0)=\"$\($1)\"" }.joined(separator: " ")
        }
        return [
            "# the store's key: a pull request's build holds only the pull-request one (Expose for Pull Requests)",
            "if [ -n \"${BITRISE_PULL_REQUEST:-}\" ]; then \(export(.pullRequest)); else \(export(.develop)); fi",
        ]
    }
}

/// GitLab's variables: a job (or a rule of a job that serves both) maps its trust's variables to
/// the names the AWS tools read; develop's are protected, given to protected branches' pipelines only.
enum GitLabCredentials {
    static func variables(_ request: SetupRequest, _ trust: Trust, extra: [String] = []) -> String {
        let keys = request.usesS3 ? zip(Trust.keyNames, trust.secrets).map { "\($0): $\($1)" } : []
        guard !(keys + extra).isEmpty else { return "" }
        return "variables: { " + (extra + keys).joined(separator: ", ") + " }"
    }
}
