/// GitHub Actions workflows: the pull request's (also the merge queue's check), the post-merge
/// one, and the accept job a reviewer starts from the Actions tab on the pull request's branch.
enum GitHubWorkflows {
    /// The files' names in `.github/workflows/`.
    static let names = ["pipeline-pull-request.yml", "pipeline-post-merge.yml", "pipeline-accept.yml"]

    static func files(_ request: SetupRequest) -> [SetupFile] {
        zip(names, [pullRequest(request), postMerge(request), accept(request)]).map {
            SetupFile(path: ".github/workflows/" + $0, text: $1)
        }
    }

    /// `fetch-depth: 0`, every commit: a pull request's changes are found from its merge base with
    /// the base branch; the promotion asks whether the merges that last wrote develop's files came
    /// before this one, a push may bring several merges (a merge queue), and a rebase's branch is
    /// several commits. (A shallower clone works too: pipeline fetches the rest when it needs it.)
    static let fullHistory = 0

    /// What every workflow says before its jobs: read-only repository access (the store is written
    /// with its own credentials, which each job's steps get: `GitHubCredentials`).
    static func header(_ trust: Trust, concurrency: String) -> String {
        (GitHubCredentials.permissionLines(trust) + ["concurrency:"]
            + concurrency.split(separator: "\n").map { "  " + $0 })
            .joined(separator: "\n") + "\n"
    }

    /// The note a folder store's workflows open with.
    private static func folderWarning(_ request: SetupRequest) -> String {
        guard request.usesFolder else { return "" }
        return """
            # The store is a folder: this works only on a self-hosted runner that keeps it between jobs.
            # A GitHub-hosted runner's folders are gone when the job ends; use an s3:// store there.

            """
    }

    /// The steps every job starts with: the checkout (`depth` commits, 0 for all) and the release.
    static func setup(_ request: SetupRequest, depth: Int) -> String {
        let releases = request.releases.map { ", releases: \"\($0)\"" } ?? ""
        return """
                  - uses: actions/checkout@v4
                    with: { fetch-depth: \(depth) }
                  - uses: \(request.action)
                    with: { version: \(request.version)\(releases) }
            """
    }

    /// Where a job that builds runs: `ubuntu-latest` (Ubuntu 26.04 since 2026-11) has no Swift, and
    /// setup-swift@v2 refuses it, so the job runs in the official image of the package's Swift,
    /// which brings its own userland whatever Ubuntu the label points at. The checkout belongs to
    /// the runner's user, not the container's root: git (and libgit2) are told it is safe.
    static func toolchainJob(_ request: SetupRequest) -> String {
        "    runs-on: ubuntu-latest\n    container: \(request.swift.image)"
    }

    /// The step after the setup in a container job.
    static let trustCheckout = """
              - run: git config --global --add safe.directory "$GITHUB_WORKSPACE"
        """

    private static func matrix(_ request: SetupRequest) -> String {
        let nodes = (1...request.nodes).map { "\($0)/\(request.nodes)" }.joined(separator: ", ")
        return """
                strategy:
                  fail-fast: false
                  matrix: { node: [\(nodes)] }
            """
    }

    /// The job's results kept with the run: named per attempt, so a re-run keeps its own.
    private static func artifacts(_ name: String) -> String {
        """
              - uses: actions/upload-artifact@v4
                if: always()
                with: { name: "\(name)-${{ github.run_attempt }}", path: .build/pipeline/, if-no-files-found: ignore }
        """
    }

    /// The test job (one machine runs the pipeline; N share its tests through the store's queue)
    /// and, for N, the report job that checks every test ran once; each with `trust`'s credentials
    /// (a pull request's jobs skipped for a fork, which gets none).
    private static func testJobs(_ request: SetupRequest, spec: String, trust: Trust) -> String {
        let retries = trust == .pullRequest
        let condition = trust == .pullRequest && request.usesS3 ? "    if: \(GitHubCredentials.notFork)\n" : ""
        let job = condition + GitHubCredentials.job(request, trust)
        func run(_ command: String) -> String { GitHubCredentials.step(request, trust, command) }
        let start = setup(request, depth: fullHistory) + GitHubCredentials.assume(request, trust)
        guard request.nodes > 1 else {
            return """
                  test:
                \(job)\(toolchainJob(request))
                    timeout-minutes: 60
                    steps:
                \(start)
                \(trustCheckout)
                \(run("pipeline run \(spec)"))
                \(artifacts("pipeline-\(spec)"))
                """
        }
        // One build for the N machines: the build job keeps the test products; each node runs them.
        let node =
            "pipeline test --node ${{ matrix.node }} --queue --timings develop\(retries ? " --retries 1" : "") "
            + "--junit \(SetupSpecs.junit) --build-cache \(request.buildCacheWord) --reuse-verdicts \(request.verdictsWord)"
        let reportCondition =
            trust == .pullRequest && request.usesS3 ? "always() && (\(GitHubCredentials.notFork))" : "always()"
        return """
              build:
            \(job)\(toolchainJob(request))
                timeout-minutes: 60
                steps:
            \(start)
            \(trustCheckout)
            \(run("pipeline run \(spec) --only pull"))
            \(run("pipeline test --build-only --build-cache \(request.buildCacheWord) --reuse-verdicts \(request.verdictsWord)"))
              test:
                needs: build
            \(GitHubCredentials.job(request, trust))\(toolchainJob(request))
                timeout-minutes: 60
            \(matrix(request))
                steps:
            \(start)
            \(trustCheckout)
            \(run("pipeline run \(spec) --only pull"))
            \(run(node))
            \(artifacts("pipeline-\(spec)-${{ strategy.job-index }}"))
              report:
                needs: test
                if: \(reportCondition)
            \(GitHubCredentials.job(request, trust))    runs-on: ubuntu-latest
                timeout-minutes: 15
                steps:
            \(setup(request, depth: 1))\(GitHubCredentials.assume(request, trust))
            \(run("pipeline report --queue --timings develop --junit junit-all.xml --reuse-verdicts \(request.verdictsWord)"))
            """
    }

    static func pullRequest(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`. A pull request's tests, and the merge queue's check of each entry;
        # failed snapshots are kept in feature with the review page, and the step summary gives the
        # accept command (run by pipeline-accept.yml on the pull request's branch).
        \(folderWarning(request))name: pipeline pull request
        on:
          pull_request:
            branches: [\(request.base)]
          merge_group:
            types: [checks_requested]
        \(header(.pullRequest, concurrency: "group: pipeline-pr-${{ github.event.pull_request.number || github.ref }}\ncancel-in-progress: true"))jobs:
        \(GitHubCredentials.forkNotice(request))\(testJobs(request, spec: "pull-request", trust: .pullRequest))

        """
    }

    static func postMerge(_ request: SetupRequest) -> String {
        let promote =
            request.nodes > 1
            ? """
              promote:
                needs: report
            \(GitHubCredentials.job(request, .develop))    runs-on: ubuntu-latest
                timeout-minutes: 15
                steps:
            \(setup(request, depth: fullHistory))\(GitHubCredentials.assume(request, .develop))
            \(GitHubCredentials.step(request, .develop, "pipeline run post-merge --only promote"))

            """ : ""
        return """
            # Written by `pipeline init`. After a push to \(request.base) (one merge, or a merge queue's several):
            # the tests, then the merged branches' references promoted to develop (exit 10 if a touched
            # test's references would not reach it). GitHub keeps one run of this group running and one
            # pending: a newer push cancels the pending one, and a run can be cancelled or lose its runner.
            # No merge is lost to that: each run starts from the last merge develop's record says was
            # promoted, so the next run tests and promotes every merge since.
            \(folderWarning(request))name: pipeline post-merge
            on:
              push:
                branches: [\(request.base)]
            \(header(.develop, concurrency: "group: pipeline-post-merge-${{ github.ref }}\ncancel-in-progress: false"))jobs:
            \(testJobs(request, spec: "post-merge", trust: .develop))
            \(promote)
            """
    }

    static func accept(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`. Reviewers: Actions > pipeline accept > Run workflow, on the pull
        # request's branch, makes what CI rendered of its failed snapshots the branch's references
        # (pushed to feature; the merge promotes them). Then re-run the pull request's checks.
        \(folderWarning(request))name: pipeline accept
        on:
          workflow_dispatch:
            inputs:
              tests:
                description: "Test files to accept (such as BadgeViewTests), or all"
                default: all
              commit:
                description: "The commit CI rendered at (default: the branch's head)"
                required: false
        \(header(.pullRequest, concurrency: "group: pipeline-accept-${{ github.ref }}\ncancel-in-progress: false"))jobs:
          accept:
        \(GitHubCredentials.job(request, .pullRequest))    runs-on: ubuntu-latest
            timeout-minutes: 15
            steps:
        \(setup(request, depth: fullHistory))\(GitHubCredentials.assume(request, .pullRequest))
              - env:
                  TESTS: "${{ inputs.tests }}"
                  COMMIT: "${{ inputs.commit }}"\(GitHubCredentials.keyEntries(request, .pullRequest).map { "\n          " + $0 }.joined())
                run: |
                  if [ "$TESTS" = all ]; then set -- --all; else set -- $TESTS; fi
                  pipeline refs accept "$@" ${COMMIT:+--commit "$COMMIT"}

        """
    }
}
