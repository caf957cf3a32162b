/// Bitrise's `bitrise.yml` and GitLab's `.gitlab-ci.yml`: the same three flows as GitHub's
/// (pull request, post-merge, accept), with each CI's own matrix and variables.
enum BitriseWorkflows {
    static func files(_ request: SetupRequest) -> [SetupFile] {
        [SetupFile(path: "bitrise.yml", text: text(request))]
    }

    static func script(_ title: String, _ lines: [String]) -> String {
        """
              - script@1:
                  title: \(title)
                  inputs:
                    - content: |
                        set -eo pipefail
        \(lines.map { "                " + $0 }.joined(separator: "\n"))
        """
    }

    private static let deploy = """
              - deploy-to-bitrise-io@2:
                  is_always_run: true
                  inputs:
                    - deploy_path: .build/pipeline
        """

    private static func node(_ request: SetupRequest, _ spec: String, retries: Bool) -> [String] {
        BitriseCredentials.lines(request) + [nodeNumber, checkAccess(spec), "pipeline run \(spec) --only pull"]
            + publishing(
                "pipeline test --node \"$NODE/$BITRISE_IO_PARALLEL_TOTAL\" --queue "
                    + "--timings develop\(retries ? " --retries 1" : "") --junit \(SetupSpecs.junit) "
                    + "--build-cache \(request.buildCacheWord) --reuse-verdicts \(request.verdictsWord)")
    }

    /// A job's first step: what its credentials can do with the stores, checked before it relies
    /// on it (a pull request's writes feature, its candidates; a merge's writes develop).
    static func checkAccess(_ spec: String) -> String {
        "pipeline refs check-access --pipeline \(spec) --write \(spec == "pull-request" ? "feature" : "develop")"
    }

    /// This machine's number among the parallel copies of its workflow, 1 when there are none.
    static let nodeNumber = "NODE=$((${BITRISE_IO_PARALLEL_INDEX:-0} + 1))"

    /// `command`, then its results handed to Bitrise's own places whatever its verdict (which the
    /// step's exit status stays), as deploy-to-bitrise-io collects them: the JUnit in the step's
    /// test results (`$BITRISE_TEST_RESULT_DIR/<run>/`, named by its `test-info.json`) for the Tests
    /// tab, the review page as an HTML report (`$BITRISE_HTML_REPORT_DIR/<name>/index.html`), and
    /// an `.xcresult` as an artifact (the deploy step uploads files, not folders). `NODE` is set.
    static func publishing(_ command: String, xcresult: String? = nil) -> [String] {
        let (junit, review) = (SetupSpecs.junit, ".build/pipeline/snapshot-review.html")
        let report = "\"$BITRISE_HTML_REPORT_DIR/snapshot-review-node-$NODE\""
        var lines = [
            "ran=0",
            command + " || ran=$?",
            "results=\"$BITRISE_TEST_RESULT_DIR/pipeline-node-$NODE\" && mkdir -p \"$results\"",
            "[ ! -f \(junit) ] || cp \(junit) \"$results/junit.xml\"",
            "printf '{\"test-name\": \"pipeline node %s of %s\"}\\n' \"$NODE\" \"${BITRISE_IO_PARALLEL_TOTAL:-1}\" "
                + "> \"$results/test-info.json\"",
            "[ ! -f \(review) ] || { mkdir -p \(report) && cp \(review) \(report)/index.html; }",
        ]
        if let xcresult {
            let (folder, name) = (
                String(xcresult[..<(xcresult.lastIndex(of: "/") ?? xcresult.startIndex)]),
                xcresult.split(separator: "/").last.map(String.init) ?? xcresult
            )
            lines.append(
                "[ ! -d \(xcresult) ] || tar -czf \"$BITRISE_DEPLOY_DIR/tests-node-$NODE.xcresult.tgz\" "
                    + "-C \(folder) \(name)")
        }
        return lines + ["exit \"$ran\""]
    }

    /// Bitrise's pipelines: the build once, `nodes` parallel copies of the test workflow, the
    /// report after all of them, and after a merge the promotion. The node count is written once
    /// (the YAML anchor `&nodes`); every job reads it from `BITRISE_IO_PARALLEL_TOTAL`.
    static func pipelinesSection(nodes: Int) -> String {
        """
        pipelines:
          pipeline-pull-request:
            workflows:
              pipeline-build: {}
              pipeline-pr-test: { parallel: &nodes \(nodes), depends_on: [pipeline-build] }
              pipeline-report: { depends_on: [pipeline-pr-test], should_always_run: workflow }
          pipeline-post-merge:
            workflows:
              pipeline-build: {}
              pipeline-merge-test: { parallel: *nodes, depends_on: [pipeline-build] }
              pipeline-report: { depends_on: [pipeline-merge-test], should_always_run: workflow }
              pipeline-promote: { depends_on: [pipeline-report] }
        """
    }

    /// Every workflow's first: the checkout with its history, and the release installed.
    static func installWorkflow(_ request: SetupRequest) -> String {
        let install = SetupFile.install(request)
        let steps = script(
            "install pipeline",
            [
                "# git-clone clones shallow: the base branch's tip beside it; pipeline deepens when a question needs more",
                "git fetch --quiet --depth=1 origin \"+refs/heads/\(request.base):refs/remotes/origin/\(request.base)\" || true",
                "curl -fsSL \"\(install.script)\" | PIPELINE_RELEASES=\"\(install.releases)\" bash -s -- "
                    + "\"$PIPELINE_VERSION\" --prefix \"$HOME/.local\"",
                "envman add --key PATH --value \"$HOME/.local/bin:$PATH\"",
            ])
        return "  _pipeline-install:\n    steps:\n      - git-clone@8: {}\n" + steps
    }

    /// A build's first line: the history the build cache looks through for the nearest ancestor's
    /// build (git-clone clones shallow).
    static let deepen =
        "git fetch --quiet --deepen=200 origin || true   # the build cache restores the nearest of 200 ancestors"

    /// Bitrise's key-based cache around a build: `paths` restored before it and saved after,
    /// whatever the build's verdict, so a pull request does not resolve its packages cold. The key
    /// is the checksum of `manifest`, the file that names the packages (not Package.resolved, which
    /// a build writes when it is not committed, so a key of it would differ between the restore
    /// and the save); a moved pin updates the restored clones.
    static func cacheSteps(paths: [String], manifest: String) -> (restore: String, save: String) {
        let key = "spm-{{ .OS }}-{{ .Arch }}-{{ checksum \"\(manifest)\" }}"
        return (
            """
                  - restore-cache@2:
                      inputs:
                        - key: '\(key)'
            """,
            """
                  - save-cache@1:
                      is_always_run: true
                      inputs:
                        - key: '\(key)'
                        - paths: |-
            \(paths.map { "                  " + $0 }.joined(separator: "\n"))
            """
        )
    }

    /// What a workflow that needs no Mac and no toolchain (it moves references or merges reports)
    /// runs on: Bitrise's Linux stack, below the app's own.
    static let linuxStack = """
            meta:
              bitrise.io:
                stack: ubuntu-noble-24.04-bitrise-2025-android
                machine_type_id: g2.linux.medium
        """

    /// The workflow a reviewer starts on the pull request's branch: CI's renderings accepted.
    static func acceptWorkflow(_ request: SetupRequest, meta: String = "") -> String {
        "  pipeline-accept:\n\(meta.isEmpty ? "" : meta + "\n")    before_run: [_pipeline-install]\n    envs:\n      - TESTS: all\n      - COMMIT: \"\"\n    steps:\n"
            + script(
                "pipeline refs accept",
                BitriseCredentials.lines(request) + [
                    "if [ \"$TESTS\" = all ]; then set -- --all; else set -- $TESTS; fi",
                    "pipeline refs accept \"$@\" ${COMMIT:+--commit \"$COMMIT\"}",
                ])
    }

    /// The app's secrets a store on S3 needs, as a comment under its `envs:`.
    static func secretsNote(_ request: SetupRequest) -> String {
        guard request.usesS3 else { return "" }
        return """

                # S3: two secrets pairs (docs/ci.md#each-ci-gives-each-job-its-own-credentials): PIPELINE_PR_AWS_ACCESS_KEY_ID and
                # PIPELINE_PR_AWS_SECRET_ACCESS_KEY with "Expose for Pull Requests" on (writes feature/ only), and
                # PIPELINE_DEVELOP_AWS_ACCESS_KEY_ID and PIPELINE_DEVELOP_AWS_SECRET_ACCESS_KEY with it off (writes develop/).
            """
    }

    static func text(_ request: SetupRequest) -> String {
        let shared = request.nodes > 1
        let kind = shared ? "pipeline" : "workflow"
        let secrets = secretsNote(request)
        let keys = BitriseCredentials.lines(request)
        var workflows = [installWorkflow(request)]
        // SwiftPM's clones of the dependencies, kept by Bitrise between builds; the build itself
        // comes from the team's store (--build-cache) where several machines share it.
        let cache = cacheSteps(paths: [".build/repositories", ".build/checkouts"], manifest: "Package.swift")
        if shared {
            workflows += [
                // One build for the N machines: the build keeps the test products; each node runs them.
                "  pipeline-build:\n    before_run: [_pipeline-install]\n    steps:\n" + cache.restore + "\n"
                    + script(
                        "pipeline build",
                        [deepen] + keys + ["pipeline test --build-only --build-cache \(request.buildCacheWord)"])
                    + "\n" + cache.save,
                "  pipeline-pr-test:\n    before_run: [_pipeline-install]\n    steps:\n"
                    + script("pipeline test (node)", node(request, "pull-request", retries: true)) + "\n" + deploy,
                "  pipeline-merge-test:\n    before_run: [_pipeline-install]\n    steps:\n"
                    + script("pipeline test (node)", node(request, "post-merge", retries: false)) + "\n" + deploy,
                "  pipeline-report:\n\(linuxStack)\n    before_run: [_pipeline-install]\n    steps:\n"
                    + script(
                        "pipeline report",
                        keys + [
                            "pipeline report --queue --timings develop --junit junit-all.xml "
                                + "--reuse-verdicts \(request.verdictsWord)"
                        ]),
                "  pipeline-promote:\n\(linuxStack)\n    before_run: [_pipeline-install]\n    steps:\n"
                    + script("pipeline promote", keys + ["pipeline run post-merge --only promote"]),
            ]
        } else {
            workflows += [
                "  pipeline-pull-request:\n    before_run: [_pipeline-install]\n    steps:\n" + cache.restore + "\n"
                    + script(
                        "pipeline run pull-request",
                        [deepen] + keys + [nodeNumber, checkAccess("pull-request")]
                            + publishing("pipeline run pull-request"))
                    + "\n" + cache.save + "\n" + deploy,
                "  pipeline-post-merge:\n    before_run: [_pipeline-install]\n    steps:\n" + cache.restore + "\n"
                    + script(
                        "pipeline run post-merge",
                        [deepen] + keys + [nodeNumber, checkAccess("post-merge")]
                            + publishing("pipeline run post-merge"))
                    + "\n" + cache.save + "\n" + deploy,
            ]
        }
        workflows.append(acceptWorkflow(request, meta: linuxStack))
        let pipelines = shared ? pipelinesSection(nodes: request.nodes) + "\n" : ""
        return """
            # Written by `pipeline init`. Pull requests into \(request.base) run pull-request, merges run
            # post-merge; reviewers start 'accept' by hand on the pull request's branch (TESTS: test files, or all).
            format_version: "13"
            default_step_lib_source: https://github.com/bitrise-io/bitrise-steplib.git
            project_type: other
            app:
              envs:
                - PIPELINE_VERSION: "\(request.version)"\(secrets)
            trigger_map:
              - pull_request_target_branch: \(request.base)
                \(kind): pipeline-pull-request
              - push_branch: \(request.base)
                \(kind): pipeline-post-merge
            \(pipelines)workflows:
            \(workflows.joined(separator: "\n"))

            """
    }
}

enum GitLabWorkflows {
    /// The image of the jobs that only move references or merge reports: no toolchain, only git
    /// and curl (the release needs nothing more). The jobs that build run in the Swift image
    /// (`default: image:`), whatever a runner's default image is.
    static let plainImage = "buildpack-deps:noble-scm"

    static func files(_ request: SetupRequest) -> [SetupFile] {
        [SetupFile(path: ".gitlab-ci.yml", text: text(request))]
    }

    static func text(_ request: SetupRequest) -> String {
        let shared = request.nodes > 1
        let parallel = shared ? "\n  parallel: \(request.nodes)" : ""
        func run(_ spec: String, retries: Bool) -> String {
            guard shared else { return "    - pipeline run \(spec)" }
            return """
                    - pipeline run \(spec) --only pull
                    - pipeline test --node "$CI_NODE_INDEX/$CI_NODE_TOTAL" --queue --timings develop\(retries ? " --retries 1" : "") --junit \(SetupSpecs.junit) --build-cache \(request.buildCacheWord) --reuse-verdicts \(request.verdictsWord)
                """
        }
        func jobVariables(_ trust: Trust) -> String {
            let line = GitLabCredentials.variables(request, trust)
            return line.isEmpty ? "" : "\n  " + line
        }
        func ruleVariables(_ trust: Trust) -> String {
            let line = GitLabCredentials.variables(request, trust)
            return line.isEmpty ? "" : ", " + line
        }
        let mergeRequest =
            "$CI_PIPELINE_SOURCE == \"merge_request_event\" && $CI_MERGE_REQUEST_TARGET_BRANCH_NAME == \"\(request.base)\""
        let merged = "$CI_PIPELINE_SOURCE == \"push\" && $CI_COMMIT_BRANCH == \"\(request.base)\""
        let reports =
            shared
            ? """

            report:
              stage: report
              image: \(Self.plainImage)
              rules:
                - { if: '\(mergeRequest)', when: always\(ruleVariables(.pullRequest)) }
                - { if: '\(merged)'\(ruleVariables(.develop)) }
              script:
                - pipeline report --queue --timings develop --junit junit-all.xml --reuse-verdicts \(request.verdictsWord)

            promote:
              stage: promote
              image: \(Self.plainImage)
              rules: [{ if: '\(merged)' }]\(jobVariables(.develop))
              script:
                - pipeline run post-merge --only promote

            """ : ""
        return """
            # Written by `pipeline init`. Merge requests into \(request.base) run pull-request, merges run
            # post-merge; reviewers run the manual 'accept' job (TESTS: test files, or all).\(request.usesS3 ? "\n# S3: two masked CI/CD variable pairs (docs/ci.md#each-ci-gives-each-job-its-own-credentials): PIPELINE_PR_AWS_ACCESS_KEY_ID and\n# PIPELINE_PR_AWS_SECRET_ACCESS_KEY (writes feature/ only), and PIPELINE_DEVELOP_AWS_ACCESS_KEY_ID and\n# PIPELINE_DEVELOP_AWS_SECRET_ACCESS_KEY marked Protected, with \(request.base) a protected branch (writes develop/)." : "")
            variables:
              PIPELINE_VERSION: "\(request.version)"
              GIT_DEPTH: "0"
            default:
              image: \(request.swift.image)
              before_script:
                - command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl ca-certificates >/dev/null; }
                - curl -fsSL "\(SetupFile.install(request).script)" -o /tmp/install-pipeline.sh
                - PIPELINE_RELEASES="\(SetupFile.install(request).releases)" bash /tmp/install-pipeline.sh "$PIPELINE_VERSION" --prefix "$HOME/.local"
                - export PATH="$HOME/.local/bin:$PATH"
                - git fetch --quiet origin "\(request.base):refs/remotes/origin/\(request.base)" || true
            stages: [test, report, promote]

            pull-request:
              stage: test
              rules: [{ if: '\(mergeRequest)' }]\(parallel)\(jobVariables(.pullRequest))
              script:
            \(run("pull-request", retries: true))
              artifacts: { when: always, paths: [.build/pipeline/], reports: { junit: \(SetupSpecs.junit) } }

            post-merge:
              stage: test
              rules: [{ if: '\(merged)' }]\(parallel)\(jobVariables(.develop))
              script:
            \(run("post-merge", retries: false))
              artifacts: { when: always, paths: [.build/pipeline/], reports: { junit: \(SetupSpecs.junit) } }
            \(reports)
            accept:
              stage: test
              image: \(Self.plainImage)
              rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', when: manual, allow_failure: true }]
              \(GitLabCredentials.variables(request, .pullRequest, extra: ["TESTS: all", "COMMIT: \"\""]))
              script:
                - if [ "$TESTS" = all ]; then set -- --all; else set -- $TESTS; fi
                - pipeline refs accept "$@" ${COMMIT:+--commit "$COMMIT"}

            """
    }
}
