import Foundation
import TestSupport
import Testing
import Yams

@Suite("pipeline init: the specs and the CI's files for a team starting out")
struct InitCommandTests {
    static let files: [String: [String]] = [
        "github": [
            ".github/workflows/pipeline-pull-request.yml", ".github/workflows/pipeline-post-merge.yml",
            ".github/workflows/pipeline-accept.yml",
        ],
        "bitrise": ["bitrise.yml"],
        "gitlab": [".gitlab-ci.yml"],
    ]

    /// Every shell command a CI file runs: GitHub's `run:`, Bitrise's script `content:`, GitLab's `(before_)script:` lines.
    static func commands(in node: Any) -> [String] {
        if let map = node as? [String: Any] {
            return map.sorted { $0.key < $1.key }.flatMap { key, value -> [String] in
                switch (key, value) {
                case ("run", let text as String), ("content", let text as String): [text]
                case ("script", let lines as [String]), ("before_script", let lines as [String]): lines
                default: commands(in: value)
                }
            }
        }
        if let list = node as? [Any] { return list.flatMap(commands) }
        return []
    }

    @Test(
        "each CI, one machine or three: valid specs, CI files that parse and run the specs, the next commands",
        arguments: ["github", "bitrise", "gitlab"], [1, 3])
    func everyCI(ci: String, nodes: Int) throws {
        let folder = try Scratch.folder("init")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Scratch.git(folder, "init", "-q")
        let result = try PipelineBinary.run(
            ["init", "--ci", ci, "--store", "s3://team-snapshots/app", "--region", "eu-west-1", "--nodes", "\(nodes)"],
            in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let written = ["pipelines/pull-request.yml", "pipelines/post-merge.yml"] + Self.files[ci, default: []]
        #expect(result.stdout.hasPrefix(written.map { "wrote \($0)\n" }.joined() + "\nNext:\n"), "\(result.stdout)")
        #expect(result.stdout.contains("  pipeline refs record --all "))
        #expect(result.stdout.contains("  pipeline refs promote --all --force --yes "))

        let validate = try PipelineBinary.run(["validate"], in: folder)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("ok: pipelines/post-merge.yml (3 stages)"), "\(validate.stdout)")

        let postMerge = try String(
            contentsOf: folder.appendingPathComponent("pipelines/post-merge.yml"), encoding: .utf8)
        #expect(postMerge.contains("develop: \"s3://team-snapshots/app/develop\""))
        #expect(postMerge.contains("region: \"eu-west-1\""))

        var commands: [String] = []
        for path in Self.files[ci, default: []] {
            let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            let parsed = try #require(try Yams.load(yaml: text), "\(path) is YAML")
            commands += Self.commands(in: parsed)
        }
        let all = commands.joined(separator: "\n")
        if nodes == 1 {
            #expect(
                all.contains("pipeline run pull-request\n") || all.contains("pipeline run pull-request || ")
                    || commands.contains("pipeline run pull-request"), "\(all)")
            #expect(all.contains("pipeline run post-merge"), "\(all)")
            #expect(!all.contains("--node"), "one machine runs the whole pipeline: \(all)")
        } else {
            #expect(all.contains("pipeline run pull-request --only pull"), "\(all)")
            #expect(all.contains("--queue --timings develop"), "\(all)")
            #expect(all.contains("pipeline report --queue --timings develop"), "\(all)")
            #expect(all.contains("pipeline run post-merge --only promote"), "\(all)")
            if ci != "gitlab" {
                #expect(
                    all.contains("pipeline test --build-only --build-cache s3://team-snapshots/app/build-cache"),
                    "one build for the machines: \(all)")
            }
            #expect(all.contains("--build-cache s3://team-snapshots/app/build-cache"), "\(all)")
        }
        #expect(postMerge.contains("build-cache: \"s3://team-snapshots/app/build-cache\""), "\(postMerge)")
        #expect(all.contains("pipeline refs accept \"$@\""), "the accept job: \(all)")
        #expect(
            all.contains("scripts/install.sh") || ci == "github",
            "Bitrise and GitLab install with the release's script: \(all)")
    }

    @Test("a file that exists stops it before anything is written; bad flags are one line each, exit 2")
    func refusals() throws {
        let folder = try Scratch.folder("init-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Scratch.write("name: post-merge\n", to: folder.appendingPathComponent("pipelines/post-merge.yml"))
        let existing = try PipelineBinary.run(["init", "--ci", "github", "--store", ".pipeline/storage"], in: folder)
        #expect(existing.status == 2)
        #expect(
            existing.stderr
                == "error: pipelines/post-merge.yml exists already: pipeline init writes only new files "
                + "(move it aside to regenerate)\n")
        #expect(
            FileManager.default.subpaths(atPath: folder.path)?.sorted() == ["pipelines", "pipelines/post-merge.yml"])

        for (arguments, message) in [
            (
                ["--store", "ftp://host/x"],
                "error: --store ftp://host/x: a folder (such as .pipeline/storage) or s3://bucket/prefix\n"
            ),
            (
                ["--store", "refs", "--region", "eu-west-1"],
                "error: --region, --endpoint and --aws-role-… go with an s3:// store, not the folder refs\n"
            ),
            (["--store", "s3://b", "--nodes", "0"], "error: --nodes 0: from 1 to 64 machines\n"),
            (
                ["--store", "s3://bucket", "--feature", "../feature"],
                "error: --feature ../feature: a path below --store, such as ios/feature/__Snapshots__\n"
            ),
            (
                ["--store", "s3://bucket", "--feature", "refs", "--develop", "refs/develop"],
                "error: --feature refs and --develop refs/develop: two separate places, neither inside the other\n"
            ),
        ] {
            let bad = try PipelineBinary.run(["init", "--ci", "gitlab"] + arguments, in: folder)
            #expect(bad.status == 2, "\(arguments)")
            #expect(bad.stderr == message)
        }
        let unknown = try PipelineBinary.run(["init", "--ci", "jenkins", "--store", "s3://b"], in: folder)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("jenkins"), "\(unknown.stderr)")
    }

    /// A team's bitrise.yml as Bitrise's editor writes one: its own app variables, triggers at the
    /// sequence's column 0, four-space workflows, a `build` workflow of its own.
    static let teamBitrise = """
        ---
        format_version: '13'
        default_step_lib_source: https://github.com/bitrise-io/bitrise-steplib.git
        project_type: ios
        app:
          envs:
          - BITRISE_PROJECT_PATH: App.xcworkspace
          - BITRISE_SCHEME: App
        trigger_map:
        - push_branch: release/*
          workflow: deploy
        - tag: "*"
          workflow: deploy
        workflows:
            build:
                steps:
                - script@1:
                    inputs:
                    - content: echo the team's build
            deploy:
                before_run:
                - build
                steps:
                - script@1:
                    inputs:
                    - content: echo the team's deploy
        meta:
          bitrise.io:
            stack: osx-xcode-16.2.x

        """

    @Test(
        "an existing bitrise.yml: pipeline's workflows join it under their own names, or every clash is named and nothing written",
        arguments: [false, true])
    func joinsBitrise(xcode: Bool) throws {
        let folder = try Scratch.folder("init-join")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bitrise.yml")
        let flags =
            ["init", "--ci", "bitrise", "--store", "s3://team-snapshots", "--nodes", "3"]
            + (xcode ? ["--xcode", "--scheme", "App"] : [])

        // Clashes: a trigger on develop's pushes, one on every pull request, a workflow and a variable of pipeline's.
        let clashing = Self.teamBitrise
            .replacingOccurrences(of: "- push_branch: release/*", with: "- push_branch: develop")
            .replacingOccurrences(of: "- tag: \"*\"", with: "- pull_request_source_branch: \"*\"")
            .replacingOccurrences(of: "    deploy:\n", with: "    pipeline-report:\n")
            .replacingOccurrences(of: "  - BITRISE_SCHEME: App", with: "  - PIPELINE_VERSION: 0.0.1")
        try Scratch.write(clashing, to: file)
        let refused = try PipelineBinary.run(flags, in: folder)
        #expect(refused.status == 2, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(refused.stderr)")
        #expect(lines[0].hasPrefix("error: bitrise.yml:8: app envs has PIPELINE_VERSION"), "\(lines)")
        #expect(lines[1].hasPrefix("bitrise.yml:10: trigger_map sends pushes to develop to 'deploy'"), "\(lines)")
        #expect(lines[2].hasPrefix("bitrise.yml:12: trigger_map sends pull requests into develop"), "\(lines)")
        #expect(lines[3].hasPrefix("bitrise.yml:20: workflows has 'pipeline-report' already"), "\(lines)")
        #expect(lines[4].contains("nothing was written"))
        #expect(try String(contentsOf: file, encoding: .utf8) == clashing, "the team's file is untouched")
        #expect(FileManager.default.subpaths(atPath: folder.path) == ["bitrise.yml"], "no spec was written either")

        // Joined: the team's file unchanged line for line around pipeline's entries, each section still one.
        try Scratch.write(Self.teamBitrise, to: file)
        let joined = try PipelineBinary.run(flags, in: folder)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout.contains("joined bitrise.yml"), "\(joined.stdout)")
        let text = try String(contentsOf: file, encoding: .utf8)
        let theirs = Self.teamBitrise.split(separator: "\n", omittingEmptySubsequences: false)
        var remaining = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        for line in theirs {
            guard let found = remaining.firstIndex(of: line) else {
                Issue.record("the team's line '\(line)' is gone or out of order:\n\(text)")
                break
            }
            remaining = remaining[(found + 1)...]
        }
        let parsed = try #require(try Yams.load(yaml: text) as? [String: Any], "the joined file is YAML:\n\(text)")
        let workflows = try #require(parsed["workflows"] as? [String: Any])
        #expect(workflows["build"] != nil && workflows["deploy"] != nil, "the team's workflows stay")
        #expect(workflows["pipeline-build"] != nil && workflows["pipeline-accept"] != nil, "\(workflows.keys.sorted())")
        let pipelines = try #require(parsed["pipelines"] as? [String: Any])
        #expect(Set(pipelines.keys) == ["pipeline-pull-request", "pipeline-post-merge"])
        let triggers = try #require(parsed["trigger_map"] as? [[String: Any]])
        #expect(triggers.count == 4, "\(triggers)")
        #expect(
            triggers.contains {
                $0["push_branch"] as? String == "develop" && $0["pipeline"] as? String == "pipeline-post-merge"
            })
        let envs = try #require((parsed["app"] as? [String: Any])?["envs"] as? [[String: Any]])
        #expect(envs.contains { $0["BITRISE_SCHEME"] != nil } && envs.contains { $0["PIPELINE_VERSION"] != nil })
        #expect(envs.contains { $0["PIPELINE_XCODE_SCHEME"] != nil } == xcode)
        #expect((parsed["meta"] as? [String: Any]) != nil)
        // Every workflow a pipeline or trigger names exists.
        for case let pipeline as [String: Any] in pipelines.values {
            for name in ((pipeline["workflows"] as? [String: Any]) ?? [:]).keys {
                #expect(workflows[name] != nil, "\(name)")
            }
        }

        // Again: pipeline's own names are in the file now, so a second join clashes and changes nothing.
        let again = try PipelineBinary.run(flags, in: folder)
        #expect(again.status == 2)
        #expect(try String(contentsOf: file, encoding: .utf8) == text)
        // Only their triggers in the way (their deploy on develop's pushes, their build on every pull
        // request): the join comes as a patch, pipeline's triggers ahead of theirs and their
        // workflows run in pipeline's pipelines, waiting on nothing of pipeline's.
        let patched = try Scratch.folder("init-join-patch")
        defer { try? FileManager.default.removeItem(at: patched) }
        let theirTriggers = Self.teamBitrise
            .replacingOccurrences(of: "- push_branch: release/*", with: "- push_branch: develop")
            .replacingOccurrences(
                of: "- tag: \"*\"\n  workflow: deploy", with: "- pull_request_target_branch: \"*\"\n  workflow: build")
        let theirFile = patched.appendingPathComponent("bitrise.yml")
        try Scratch.write(theirTriggers, to: theirFile)
        let offered = try PipelineBinary.run(flags, in: patched)
        #expect(offered.status == 0, "\(offered.stderr)")
        #expect(offered.stdout.contains("wrote bitrise.yml.pipeline.patch"), "\(offered.stdout)")
        #expect(
            offered.stdout.contains(
                "bitrise.yml:10: pushes to develop went to 'deploy'; pipeline's trigger now comes first and takes "
                    + "them, and 'deploy' runs in pipeline-post-merge"), "\(offered.stdout)")
        #expect(offered.stdout.contains("git apply bitrise.yml.pipeline.patch"), "\(offered.stdout)")
        #expect(try String(contentsOf: theirFile, encoding: .utf8) == theirTriggers, "their file as it was")
        let applied = try Shell.run("git", ["apply", "bitrise.yml.pipeline.patch"], in: patched)
        #expect(applied.status == 0, "\(applied.stderr)")
        let result = try String(contentsOf: theirFile, encoding: .utf8)
        let yaml = try #require(try Yams.load(yaml: result) as? [String: Any], "\(result)")
        // Bitrise starts the first match: pipeline's two, then theirs, which keep pull requests into other branches.
        let map = try #require(yaml["trigger_map"] as? [[String: Any]])
        #expect(
            map.map { ($0["pipeline"] ?? $0["workflow"]) as? String } == [
                "pipeline-pull-request", "pipeline-post-merge", "deploy", "build",
            ], "\(map)")
        let flows = try #require(yaml["pipelines"] as? [String: [String: Any]])
        let postMerge = try #require(flows["pipeline-post-merge"]?["workflows"] as? [String: Any])
        let pullRequest = try #require(flows["pipeline-pull-request"]?["workflows"] as? [String: Any])
        // Their workflows run beside pipeline's, in the first stage: no depends_on.
        #expect((postMerge["deploy"] as? [String: Any])?.isEmpty == true, "\(postMerge)")
        #expect((pullRequest["build"] as? [String: Any])?.isEmpty == true, "\(pullRequest)")
        #expect((yaml["workflows"] as? [String: Any])?["pipeline-promote"] != nil)
    }

    @Test("a store with its own layout: --feature and --develop place the references below --store")
    func layout() throws {
        let folder = try Scratch.folder("init-layout")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try PipelineBinary.run(
            [
                "init", "--ci", "bitrise", "--store", "s3://team-snapshots/ios", "--feature", "feature/__Snapshots__",
                "--develop", "develop/__Snapshots__", "--action", "acme/pipeline@v2.0.0", "--releases",
                "https://dl.acme.dev/pipeline",
            ], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("your-org"), "the install step is acme's: \(result.stderr)")
        for spec in ["pull-request", "post-merge"] {
            let text = try String(contentsOf: folder.appendingPathComponent("pipelines/\(spec).yml"), encoding: .utf8)
            #expect(text.contains("feature: \"s3://team-snapshots/ios/feature/__Snapshots__\""), "\(text)")
            #expect(text.contains("develop: \"s3://team-snapshots/ios/develop/__Snapshots__\""), "\(text)")
        }
        let bitrise = try String(contentsOf: folder.appendingPathComponent("bitrise.yml"), encoding: .utf8)
        #expect(bitrise.contains("pipeline refs check-access --pipeline pull-request --write feature"))
        #expect(bitrise.contains("pipeline refs check-access --pipeline post-merge --write develop"))
        // The install step's script and releases come from --action and --releases.
        #expect(bitrise.contains("raw.githubusercontent.com/acme/pipeline/v2.0.0/scripts/install.sh"), "\(bitrise)")
        #expect(bitrise.contains("PIPELINE_RELEASES=\"${PIPELINE_RELEASES:-https://dl.acme.dev/pipeline}\""))
        #expect(!bitrise.contains("your-org"))
        let placeholder = try PipelineBinary.run(
            ["init", "--ci", "bitrise", "--store", "s3://team-snapshots"], in: try Scratch.folder("init-placeholder"))
        #expect(
            placeholder.stderr.contains(
                "the install step fetches the install script and the releases from your-org/pipeline"))
    }

    @Test("a repository with specs of its own: init leaves them alone, says so, and its next commands name its spec")
    func otherSpecs() throws {
        let folder = try Scratch.folder("init-others")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Scratch.write(
            "name: pr\ndescription: The team's own.\nreferences:\n  feature: other/feature\n  develop: other/develop\n"
                + "stages:\n  - pull:\n      from: develop\n", to: folder.appendingPathComponent("pipelines/pr.yml"))
        let result = try PipelineBinary.run(["init", "--ci", "github", "--store", "store"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("left alone: pipelines/pr.yml"), "\(result.stdout)")
        #expect(result.stdout.contains("pipeline refs promote --all --force --yes --pipeline post-merge"))
        #expect(result.stderr.contains("warning: the store is a folder"), "\(result.stderr)")
        #expect(result.stderr.contains("pass --action OWNER/REPO@REF"), "\(result.stderr)")
        // The command init prints works where the specs disagree; without --pipeline it is refused.
        let named = try PipelineBinary.run(
            ["refs", "promote", "--all", "--force", "--yes", "--pipeline", "post-merge", "--dry-run"], in: folder)
        #expect(!named.stderr.contains("name different references"), "\(named.stderr)")
        let unnamed = try PipelineBinary.run(["refs", "promote", "--all", "--force", "--yes", "--dry-run"], in: folder)
        #expect(unnamed.stderr.contains("name different references"), "\(unnamed.stderr)")
        let action = try PipelineBinary.run(
            ["init", "--ci", "github", "--store", "s3://team-snapshots", "--action", "acme/pipeline@v1.2.3"],
            in: try Scratch.folder("init-action"))
        #expect(action.status == 0 && !action.stderr.contains("--action"), "\(action.stderr)")
        let badAction = try PipelineBinary.run(
            ["init", "--ci", "github", "--store", "s3://team-snapshots", "--action", "pipeline"],
            in: try Scratch.folder("init-action"))
        #expect(badAction.status == 2 && badAction.stderr.contains("--action pipeline"), "\(badAction.stderr)")
    }

    @Test("a CI job runs part of a generated pipeline: --only keeps the stages named, in the spec's order")
    func onlyStages() throws {
        let folder = try Scratch.folder("init-only")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Scratch.git(folder, "init", "-q")
        #expect(try PipelineBinary.run(["init", "--ci", "github", "--store", "store"], in: folder).status == 0)
        try Scratch.git(folder, "add", "-A")
        try Scratch.git(folder, "commit", "-q", "-m", "init")
        try Scratch.git(folder, "commit", "-q", "--allow-empty", "-m", "next")
        // The stores as the first recording leaves them (a dry run on a store that does not exist exits 5).
        for role in ["feature", "develop"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("store/\(role)"), withIntermediateDirectories: true)
        }

        let plan = try PipelineBinary.run(
            ["run", "post-merge", "--only", "promote,pull", "--dry-run", "--json"], in: folder)
        #expect(plan.status == 0, "\(plan.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let stages = try #require(object["stages"] as? [[String: Any]])
        #expect(stages.compactMap { $0["kind"] as? String } == ["pull", "promote"])

        let unknown = try PipelineBinary.run(["run", "post-merge", "--only", "review"], in: folder)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "error: --only review: pipelines/post-merge.yml has no review stage (its stages: pull, test, promote)\n"
        )
    }

    @Test("docs/ci.md's GitHub and Bitrise files are what pipeline init writes, word for word")
    func documented() throws {
        let guide = try String(
            contentsOf: Shell.repository.appendingPathComponent("docs/ci.md"), encoding: .utf8)
        for ci in ["github", "bitrise"] {
            let folder = try Scratch.folder("init-docs")
            defer { try? FileManager.default.removeItem(at: folder) }
            try Scratch.write("6.2\n", to: folder.appendingPathComponent(".swift-version"))
            let result = try PipelineBinary.run(
                ["init", "--ci", ci, "--store", "s3://team-snapshots", "--region", "eu-west-1", "--nodes", "4"],
                in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            for path in ["pipelines/pull-request.yml", "pipelines/post-merge.yml"] + Self.files[ci, default: []] {
                var text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                // The specs are the same for every CI but for their first line (the flags init ran with).
                if path.hasPrefix("pipelines/") { text = String(text.drop { $0 != "\n" }.dropFirst()) }
                #expect(
                    guide.contains("```yaml\n" + text + "```\n"), "docs/ci.md lacks \(ci)'s \(path) as init writes it")
            }
        }
    }

    @Test(
        "--xcode: GitHub's and Bitrise's workflows of an xcodebuild app, in docs/xcode.md word for word; specs without a test stage"
    )
    func xcode() throws {
        let guide = try String(contentsOf: Shell.repository.appendingPathComponent("docs/xcode.md"), encoding: .utf8)
        for ci in ["github", "bitrise"] {
            let folder = try Scratch.folder("init-xcode")
            defer { try? FileManager.default.removeItem(at: folder) }
            let result = try PipelineBinary.run(
                [
                    "init", "--ci", ci, "--xcode", "--scheme", "App", "--store", "s3://team-snapshots", "--region",
                    "eu-west-1", "--nodes", "4", "--xcode-version", "26.1",
                ], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("pipeline refs record --all --xcode --scheme App --destination"))
            let spec = try String(
                contentsOf: folder.appendingPathComponent("pipelines/pull-request.yml"), encoding: .utf8)
            #expect(spec.contains("- pull:") && !spec.contains("- test:"), "xcodebuild tests, not the spec: \(spec)")
            // The accept workflow is the one docs/ci.md shows: it runs no Xcode.
            for path in Self.files[ci, default: []] where !path.hasSuffix("pipeline-accept.yml") {
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                let parsed = try Yams.load(yaml: text)
                let commands = Self.commands(in: parsed as Any).joined(separator: "\n")
                #expect(commands.contains("xcodebuild build-for-testing"), "\(path)")
                #expect(commands.contains("pipeline import xcresult"), "\(path)")
                // The node count is written once, where the CI starts the nodes; every job reads it from the CI.
                // (The first line records init's flags, --nodes 4 among them: a comment no job reads.)
                // (The Linux stack's name of the jobs that need no Mac holds digits of its own.)
                let body = String(text.drop { $0 != "\n" }).replacingOccurrences(
                    of: "ubuntu-noble-24.04-bitrise-2025-android", with: "")
                #expect(!body.contains("PIPELINE_NODES") && !commands.contains("--nodes 4"), "\(path)")
                #expect(
                    ci == "github"
                        ? text.contains("matrix: { node: [1, 2, 3, 4] }")
                            && commands.contains("${{ strategy.job-total }}")
                        : body.components(separatedBy: "4").count == 2 && body.contains("parallel: &nodes 4")
                            && commands.contains("$BITRISE_IO_PARALLEL_TOTAL"), "\(path)")
                #expect(
                    guide.contains("```yaml\n" + text + "```\n"),
                    "docs/xcode.md lacks \(ci)'s \(path) as init writes it")
            }
        }
        let folder = try Scratch.folder("init-xcode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let gitLab = try PipelineBinary.run(
            ["init", "--ci", "gitlab", "--xcode", "--scheme", "App", "--store", "store"], in: folder)
        #expect(gitLab.status == 2 && gitLab.stderr.contains("--ci github or bitrise"), "\(gitLab.stderr)")
        let noScheme = try PipelineBinary.run(["init", "--ci", "github", "--xcode", "--store", "store"], in: folder)
        #expect(noScheme.status == 2 && noScheme.stderr.contains("--scheme"), "\(noScheme.stderr)")
        let badDestination = try PipelineBinary.run(
            ["init", "--ci", "github", "--xcode", "--scheme", "App", "--destination", "iPhone'16", "--store", "store"],
            in: folder)
        #expect(badDestination.status == 2, "\(badDestination.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing written")
    }
}
