/// GitHub Actions workflows: the pull request's, the post-merge one, and the accept job a reviewer
/// starts from the Actions tab on the pull request's branch.
enum GitHubWorkflows {
    static func files(_ request: SetupRequest) -> [SetupFile] {
        [
            SetupFile(path: ".github/workflows/pipeline-pull-request.yml", text: pullRequest(request)),
            SetupFile(path: ".github/workflows/pipeline-post-merge.yml", text: postMerge(request)),
            SetupFile(path: ".github/workflows/pipeline-accept.yml", text: accept(request)),
        ]
    }

    private static func header(_ request: SetupRequest) -> String {
        guard request.usesS3 else { return "" }
        return """
            env:
              AWS_ACCESS_KEY_ID: ${{ secrets.PIPELINE_AWS_ACCESS_KEY_ID }}
              AWS_SECRET_ACCESS_KEY: ${{ secrets.PIPELINE_AWS_SECRET_ACCESS_KEY }}

            """
    }

    /// The steps every job starts with: the checkout (`depth` commits, 0 for all) and the release.
    static func setup(_ request: SetupRequest, depth: Int) -> String {
        """
              - uses: actions/checkout@v4
                with: { fetch-depth: \(depth) }
              - uses: \(SetupFile.actionRepository)@v\(request.version)
                with: { version: \(request.version) }
        """
    }

    private static func matrix(_ request: SetupRequest) -> String {
        let nodes = (1...request.nodes).map { "\($0)/\(request.nodes)" }.joined(separator: ", ")
        return """
                strategy:
                  fail-fast: false
                  matrix: { node: [\(nodes)] }
            """
    }

    private static func artifacts(_ name: String) -> String {
        """
              - uses: actions/upload-artifact@v4
                if: always()
                with: { name: "\(name)", path: .build/pipeline/, if-no-files-found: ignore }
        """
    }

    /// The test job (one machine runs the pipeline; N share its tests through the store's queue)
    /// and, for N, the report job that checks every test ran once.
    private static func testJobs(_ request: SetupRequest, spec: String, depth: Int, retries: Bool) -> String {
        guard request.nodes > 1 else {
            return """
                  test:
                    runs-on: ubuntu-latest
                    steps:
                \(setup(request, depth: depth))
                      - run: pipeline run \(spec)
                \(artifacts("pipeline-\(spec)"))
                """
        }
        // One build for the N machines: the build job keeps the test products; each node runs them.
        return """
              build:
                runs-on: ubuntu-latest
                steps:
            \(setup(request, depth: depth))
                  - run: pipeline test --build-only --build-cache \(request.buildCacheWord)
              test:
                needs: build
                runs-on: ubuntu-latest
            \(matrix(request))
                steps:
            \(setup(request, depth: depth))
                  - run: pipeline run \(spec) --only pull
                  - run: pipeline test --node ${{ matrix.node }} --queue --timings develop\(retries ? " --retries 1" : "") --junit \(SetupSpecs.junit) --build-cache \(request.buildCacheWord)
            \(artifacts("pipeline-\(spec)-${{ strategy.job-index }}"))
              report:
                needs: test
                if: always()
                runs-on: ubuntu-latest
                steps:
            \(setup(request, depth: 1))
                  - run: pipeline report --queue --timings develop --junit junit-all.xml
            """
    }

    static func pullRequest(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`. A pull request's tests; failed snapshots are kept in feature with
        # the review page, and the step summary gives the accept command (run by pipeline-accept.yml).
        name: pipeline pull request
        on:
          pull_request:
            branches: [\(request.base)]
        \(header(request))jobs:
        \(testJobs(request, spec: "pull-request", depth: 0, retries: true))

        """
    }

    static func postMerge(_ request: SetupRequest) -> String {
        let promote =
            request.nodes > 1
            ? """
              promote:
                needs: report
                runs-on: ubuntu-latest
                steps:
            \(setup(request, depth: request.postMergeDepth))
                  - run: pipeline run post-merge --only promote

            """ : ""
        return """
            # Written by `pipeline init`. After a merge into \(request.base): the tests, then the merged
            # branch's references promoted to develop (exit 10 if a touched test's references would not reach it).
            name: pipeline post-merge
            on:
              push:
                branches: [\(request.base)]
            \(header(request))jobs:
            \(testJobs(request, spec: "post-merge", depth: request.postMergeDepth, retries: false))
            \(promote)
            """
    }

    static func accept(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`. Reviewers: Actions > pipeline accept > Run workflow, on the pull
        # request's branch, makes what CI rendered of its failed snapshots the branch's references
        # (pushed to feature; the merge promotes them). Then re-run the pull request's checks.
        name: pipeline accept
        on:
          workflow_dispatch:
            inputs:
              tests:
                description: "Test files to accept (such as BadgeViewTests), or all"
                default: all
              commit:
                description: "The commit CI rendered at (default: the branch's head)"
                required: false
        \(header(request))jobs:
          accept:
            runs-on: ubuntu-latest
            steps:
        \(setup(request, depth: 0))
              - env: { TESTS: "${{ inputs.tests }}", COMMIT: "${{ inputs.commit }}" }
                run: |
                  if [ "$TESTS" = all ]; then set -- --all; else set -- $TESTS; fi
                  pipeline refs accept "$@" ${COMMIT:+--commit "$COMMIT"}

        """
    }
}
