import PipelineSpec

/// The workflows of an app tested with xcodebuild on macOS runners, for GitHub Actions and
/// Bitrise, in one shape: a build job builds for testing once and lists the tests; N test jobs
/// each plan the nodes' split (the first keeps it in the store as the run's plan), pull the
/// references, run their part of the products with swift-snapshot-testing's switches, and import the results
/// (review page, CI's candidates, their part of the run); a report job checks that every planned
/// test was reported exactly once; after a merge, a promote job follows it.
enum XcodeWorkflows {
    static func gitHub(_ request: SetupRequest, _ app: SetupRequest.XcodeApp) -> [SetupFile] {
        [
            SetupFile(
                path: ".github/workflows/pipeline-pull-request.yml", text: gitHubRun(request, app, pullRequest: true)),
            SetupFile(
                path: ".github/workflows/pipeline-post-merge.yml", text: gitHubRun(request, app, pullRequest: false)),
            SetupFile(path: ".github/workflows/pipeline-accept.yml", text: GitHubWorkflows.accept(request)),
        ]
    }

    static func bitrise(_ request: SetupRequest, _ app: SetupRequest.XcodeApp) -> [SetupFile] {
        [SetupFile(path: "bitrise.yml", text: bitriseText(request, app))]
    }

    // MARK: The scripts both CIs run

    /// The build job: build for testing once and list the tests. The split is planned by the
    /// nodes (the first to plan keeps it in the run's folder), so the node count lives only where
    /// the CI starts the nodes.
    static func buildScript(_ request: SetupRequest, _ app: SetupRequest.XcodeApp) -> [String] {
        let container = app.container.isEmpty ? "" : " " + app.container.joined(separator: " ")
        return [
            "xcodebuild build-for-testing\(container) -scheme \"$PIPELINE_XCODE_SCHEME\" "
                + "-destination \"$PIPELINE_XCODE_DESTINATION\" -derivedDataPath DerivedData",
            "XCTESTRUN=$(ls \(products)/*.xctestrun | head -n 1)",
            "xcodebuild test-without-building -xctestrun \"$XCTESTRUN\" -destination \"$PIPELINE_XCODE_DESTINATION\" "
                + "-enumerate-tests -test-enumeration-style flat -test-enumeration-format json "
                + "-test-enumeration-output-path \(products)/tests.json",
        ]
    }

    /// A test node: the references pulled, its part of the run's split (planned by the first node
    /// over `total`, the CI's own count of the nodes) run from the build's `products` with
    /// swift-snapshot-testing's switches, and the results imported into the run (`node` is its
    /// `--node` option, empty where the tool reads the CI's parallel index; `index` its number).
    /// The import renders the node's new snapshot tests once more (`--render-new`), so a new
    /// test's rendering is kept as a candidate to accept; `publishing` wraps it with what hands
    /// the results to the CI's own places (Bitrise's).
    static func nodeScript(
        _ request: SetupRequest, spec: String, products: String, index: String, total: String, node: String,
        publishing: (String) -> [String] = { [$0] }
    ) -> [String] {
        let work = ".build/pipeline"
        let importing =
            "pipeline import xcresult \(work)/results.json\(node) --queue --timings develop "
            + "--artifacts \(work)/snapshot-artifacts --render-new \"$NODE_RUN\" --junit \(SetupSpecs.junit) "
            + "--reuse-verdicts \(request.verdictsWord)"
        return [
            "pipeline run \(spec) --only pull",
            "XCTESTRUN=$(ls \(products)/*.xctestrun | grep -v -- '-node-' | head -n 1)",
            "NODE_RUN=$(pipeline plan --nodes \(total) --format xcodebuild --tests \(products)/tests.json "
                + "--xctestrun \"$XCTESTRUN\" --timings develop --queue --node \(index))",
            "rm -rf \(work)/tests.xcresult \(work)/snapshot-artifacts && mkdir -p \(work)",
            "status=0",
            "TEST_RUNNER_SNAPSHOT_TESTING_RECORD=never TEST_RUNNER_SNAPSHOT_ARTIFACTS=\"$PWD/\(work)/snapshot-artifacts\" \\",
            "  xcodebuild test-without-building -xctestrun \"$NODE_RUN\" -destination \"$PIPELINE_XCODE_DESTINATION\" \\",
            "  -resultBundlePath \(work)/tests.xcresult || status=$?",
            "[ \"$status\" = 0 ] || [ \"$status\" = 65 ] || exit \"$status\"   # 65: tests failed; the import reports them",
            "xcrun xcresulttool get test-results tests --path \(work)/tests.xcresult > \(work)/results.json",
        ]
            + publishing(importing)
    }

    static func reportScript(_ request: SetupRequest) -> String {
        "pipeline report --queue --timings develop --junit junit-all.xml --reuse-verdicts \(request.verdictsWord)"
    }

    /// After a merge, the build job's first lines: the references pulled (they are part of the
    /// key), then, when a passing run verified this tree already (the pull request's check on the
    /// same tree), the verdict noted in the run's folder and nothing built (`products` holds one
    /// file, for the CI to hand on as it would the products). docs/ci.md, "Tested once".
    static func buildGate(_ request: SetupRequest, products: String) -> [String] {
        [
            "pipeline run post-merge --only pull",
            "if pipeline verdict --xcode --reuse-verdicts \(request.verdictsWord) --queue --timings develop; then",
            "  mkdir -p \(products) && echo verified > \(products)/verified && exit 0",
            "fi",
        ]
    }

    /// A node's first line after a merge: nothing to run when the build job found the tree verified.
    static func nodeGate(_ spec: String) -> [String] {
        spec == "post-merge" ? ["if pipeline verdict --noted --queue --timings develop; then exit 0; fi"] : []
    }

    /// GitHub's artifacts keep no file modes (the app's and the bundles' executables would arrive
    /// without their executable bit): the products travel as a tar in this folder.
    static let productsArchive = ".build/pipeline/test-products"
    /// Where the build keeps what the nodes run: the products, the `.xctestrun` and the test list.
    static let productsParent = "DerivedData/Build"
    static let products = productsParent + "/Products"
    static let archiveProducts =
        "mkdir -p \(productsArchive) && tar -czf \(productsArchive)/products.tgz -C \(productsParent) Products"
    static let unpackProducts =
        "mkdir -p \(productsParent) && tar -xzf \(productsArchive)/products.tgz -C \(productsParent)"
    static let promoteScript = "pipeline run post-merge --only promote"

    // MARK: GitHub Actions

    private static func gitHubEnvironment(_ request: SetupRequest, _ app: SetupRequest.XcodeApp) -> String {
        // The Xcode the workflows were written for, whatever the image's default (which moves when
        // GitHub updates it): where GitHub's images keep each version.
        [
            "env:", "  PIPELINE_XCODE_SCHEME: \(SpecWriter.quoted(app.scheme))",
            "  PIPELINE_XCODE_DESTINATION: \(SpecWriter.quoted(app.destination))",
            "  DEVELOPER_DIR: /Applications/Xcode_\(request.xcodeVersion.version).app/Contents/Developer",
        ].joined(separator: "\n")
    }

    /// A step running `lines` with the job's credentials (`trust`'s).
    private static func gitHubScript(_ request: SetupRequest, _ trust: Trust, _ lines: [String]) -> String {
        "      - run: |\n" + lines.map { "          " + $0 }.joined(separator: "\n")
            + GitHubCredentials.stepVariables(request, trust)
    }

    static func gitHubRun(_ request: SetupRequest, _ app: SetupRequest.XcodeApp, pullRequest: Bool) -> String {
        let spec = pullRequest ? "pull-request" : "post-merge"
        let trust: Trust = pullRequest ? .pullRequest : .develop
        let job = GitHubCredentials.job(request, trust)
        let fork = pullRequest && request.usesS3 ? "    if: \(GitHubCredentials.notFork)\n" : ""
        let reportCondition = fork.isEmpty ? "always()" : "always() && (\(GitHubCredentials.notFork))"
        let assume = GitHubCredentials.assume(request, trust)
        let depth = GitHubWorkflows.fullHistory
        let nodes = (1...request.nodes).map(String.init).joined(separator: ", ")
        let promote =
            pullRequest
            ? ""
            : """

              promote:
                needs: report
            \(job)    runs-on: ubuntu-latest
                timeout-minutes: 15
                steps:
            \(GitHubWorkflows.setup(request, depth: depth))\(assume)
            \(GitHubCredentials.step(request, trust, promoteScript))
            """
        let header =
            pullRequest
            ? """
            # Written by `pipeline init --xcode`. A pull request's tests: built once for testing, run on the
            # matrix's macOS machines (the node list below is the one count), imported; failed snapshots are
            # kept in feature with the review page, and the step summary gives the accept command (run by
            # pipeline-accept.yml).
            name: pipeline pull request
            on:
              pull_request:
                branches: [\(request.base)]
            """
            : """
            # Written by `pipeline init --xcode`. After a merge into \(request.base): the tests, then the merged
            # branch's references promoted to develop (exit 10 if a touched test's references would not reach it).
            name: pipeline post-merge
            on:
              push:
                branches: [\(request.base)]
            """
        return """
            \(header)
            \(GitHubCredentials.permissionLines(trust).joined(separator: "\n"))
            \(gitHubEnvironment(request, app))
            jobs:
            \(pullRequest ? GitHubCredentials.forkNotice(request) : "")  build:
            \(fork)\(job)    runs-on: \(request.xcodeVersion.gitHubRunner)
                timeout-minutes: 60
                steps:
            \(GitHubWorkflows.setup(request, depth: depth))\(assume)
            \(gitHubScript(request, trust, (pullRequest ? [] : buildGate(request, products: productsArchive)) + buildScript(request, app) + [archiveProducts]))
                  - uses: actions/upload-artifact@v4
                    with: { name: test-products, path: \(productsArchive) }
              test:
                needs: build
            \(job)    runs-on: \(request.xcodeVersion.gitHubRunner)
                timeout-minutes: 60
                strategy:
                  fail-fast: false
                  matrix: { node: [\(nodes)] }
                steps:
            \(GitHubWorkflows.setup(request, depth: depth))\(assume)
                  - uses: actions/download-artifact@v4
                    with: { name: test-products, path: \(productsArchive) }
            \(gitHubScript(request, trust, nodeGate(spec) + [unpackProducts] + nodeScript(request, spec: spec, products: products, index: "${{ matrix.node }}", total: "${{ strategy.job-total }}", node: " --node ${{ matrix.node }}/${{ strategy.job-total }}")))
                  - uses: actions/upload-artifact@v4
                    if: always()
                    with: { name: "pipeline-\(spec)-${{ matrix.node }}", path: .build/pipeline/, if-no-files-found: ignore }
              report:
                needs: test
                if: \(reportCondition)
            \(job)    runs-on: ubuntu-latest
                timeout-minutes: 15
                steps:
            \(GitHubWorkflows.setup(request, depth: 1))\(assume)
            \(GitHubCredentials.step(request, trust, reportScript(request)))\(promote)

            """
    }

    // MARK: Bitrise

    /// The build workflow serves both pipelines: after a merge (no pull request), the gate first.
    private static func bitriseGate(_ request: SetupRequest) -> [String] {
        ["if [ -z \"${BITRISE_PULL_REQUEST:-}\" ]; then"] + buildGate(request, products: products).map { "  " + $0 }
            + ["fi"]
    }

    static func bitriseText(_ request: SetupRequest, _ app: SetupRequest.XcodeApp) -> String {
        func node(_ spec: String) -> String {
            // The tool reads the node from BITRISE_IO_PARALLEL_INDEX/_TOTAL itself.
            BitriseWorkflows.script(
                "pull, test this node, import",
                BitriseCredentials.lines(request) + nodeGate(spec) + [
                    BitriseWorkflows.nodeNumber, BitriseWorkflows.checkAccess(spec),
                ]
                    + nodeScript(
                        request, spec: spec, products: "\"$PIPELINE_TEST_PRODUCTS\"", index: "\"$NODE\"",
                        total: "\"$BITRISE_IO_PARALLEL_TOTAL\"", node: ""
                    ) { BitriseWorkflows.publishing($0, xcresult: ".build/pipeline/tests.xcresult") })
        }
        let pulled = """
                  - pull-intermediate-files@1:
                      inputs:
                        - artifact_sources: pipeline-build
            """
        let deploy = """
                  - deploy-to-bitrise-io@2:
                      is_always_run: true
            """
        let secrets = BitriseWorkflows.secretsNote(request)
        let keys = BitriseCredentials.lines(request)
        // Xcode's clones of the packages (below -derivedDataPath), kept by Bitrise between builds.
        let cache = BitriseWorkflows.cacheSteps(
            paths: ["DerivedData/SourcePackages"], manifest: "**/*.xcodeproj/project.pbxproj")
        return """
            # Written by `pipeline init --xcode`. Pull requests into \(request.base) run the pull-request pipeline,
            # merges post-merge: one build for testing, the parallel test workflows (`parallel:` below is the one
            # node count), a report over all of them; reviewers start 'accept' by hand on the pull request's
            # branch (TESTS: test files, or all).
            format_version: "13"
            default_step_lib_source: https://github.com/bitrise-io/bitrise-steplib.git
            project_type: ios
            meta:
              bitrise.io:
                stack: \(request.xcodeVersion.bitriseStack)
            app:
              envs:
                - PIPELINE_VERSION: "\(request.version)"
                - PIPELINE_XCODE_SCHEME: \(SpecWriter.quoted(app.scheme))
                - PIPELINE_XCODE_DESTINATION: \(SpecWriter.quoted(app.destination))\(secrets)
            trigger_map:
              - pull_request_target_branch: \(request.base)
                pipeline: pipeline-pull-request
              - push_branch: \(request.base)
                pipeline: pipeline-post-merge
            \(BitriseWorkflows.pipelinesSection(nodes: request.nodes))
            workflows:
            \(BitriseWorkflows.installWorkflow(request))
              pipeline-build:
                before_run: [_pipeline-install]
                steps:
            \(cache.restore)
            \(BitriseWorkflows.script("build for testing, list the tests", [BitriseWorkflows.deepen] + keys + bitriseGate(request) + buildScript(request, app)))
            \(cache.save)
                  - deploy-to-bitrise-io@2:
                      inputs:
                        - pipeline_intermediate_files: \(products):PIPELINE_TEST_PRODUCTS
              pipeline-pr-test:
                before_run: [_pipeline-install]
                steps:
            \(pulled)
            \(node("pull-request"))
            \(deploy)
              pipeline-merge-test:
                before_run: [_pipeline-install]
                steps:
            \(pulled)
            \(node("post-merge"))
            \(deploy)
              pipeline-report:
            \(BitriseWorkflows.linuxStack)
                before_run: [_pipeline-install]
                steps:
            \(BitriseWorkflows.script("pipeline report", keys + [reportScript(request)]))
              pipeline-promote:
            \(BitriseWorkflows.linuxStack)
                before_run: [_pipeline-install]
                steps:
            \(BitriseWorkflows.script("pipeline promote", keys + [promoteScript]))
            \(BitriseWorkflows.acceptWorkflow(request, meta: BitriseWorkflows.linuxStack))

            """
    }
}
