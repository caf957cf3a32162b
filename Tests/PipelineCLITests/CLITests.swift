import CISystem
import Foundation
import PipelineCore
import SnapshotConventions
import Testing

@testable import PipelineCLI

@Suite("The pipeline binary, end to end")
struct CLITests {
    @Test("--version prints the version alone; version names the libgit2 and libcurl in use")
    func version() throws {
        let workspace = try Workspace(pipelines: [:])
        let short = try workspace.run("--version")
        #expect(short.status == 0)
        #expect(short.stdout == "pipeline \(Version.number)\n")
        let long = try workspace.run("version")
        #expect(long.status == 0)
        let lines = long.stdout.split(separator: "\n")
        #expect(lines.first == "pipeline \(Version.number)")
        #expect(lines.contains { $0.hasPrefix("libgit2 1.") })
        #expect(lines.contains { $0.hasPrefix("libcurl 7.") || $0.hasPrefix("libcurl 8.") })
    }

    @Test("the help lists every exit status")
    func exitStatuses() throws {
        let help = try Workspace(pipelines: [:]).run("--help").stdout.replacingOccurrences(of: "\n", with: " ")
        for status in ExitStatus.allCases {
            #expect(
                help.contains(" \(status.rawValue) "), "exit status \(status.rawValue) (\(status)) is not in --help")
        }
    }

    @Test("-C before the command works as git's does, and several join")
    func leadingDirectory() throws {
        #expect(
            LeadingOptions.hoisted(["-C", "a", "-C", "b", "refs", "promote", "X"]) == [
                "refs", "promote", "-C", "a/b", "X",
            ])
        #expect(
            LeadingOptions.hoisted(["--directory=a", "-C/abs", "changes", "--json"]) == [
                "changes", "-C", "/abs", "--json",
            ])
        #expect(LeadingOptions.hoisted(["changes", "-C", "a"]) == ["changes", "-C", "a"])
        let workspace = try Workspace(pipelines: [:])
        let elsewhere = FileManager.default.temporaryDirectory
        let before = try PipelineBinary.run(["-C", workspace.root.path, "changes", "--json"], in: elsewhere)
        let after = try PipelineBinary.run(["changes", "--json", "-C", workspace.root.path], in: elsewhere)
        #expect(before.status == 0)
        #expect(before.stdout == after.stdout)
        #expect(before.stdout.contains("\"head\""))
    }

    @Test("list shows every pipeline with its description and stages, and the reference commands")
    func list() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge, "nightly.yml": Specs.nightly])
        let result = try workspace.run("list")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Pipelines in pipelines/:")
        #expect(lines.contains("  nightly     The full suite every night."))
        #expect(
            lines.contains(
                "  post-merge  After a merge into develop, test in shards and promote the changed tests' references."))
        #expect(
            lines.contains(
                "              1. test: 3 shards, 2m per test, 1 retry (flaky tests fail the run), all tests"))
        #expect(
            lines.contains(
                "              2. promote: feature → develop for the changed tests, keep files feature no longer has"))
        #expect(lines.contains("              run: pipeline run post-merge   (add --dry-run to see the plan)"))
        #expect(result.stdout.contains("pipeline refs push TEST…"))
        #expect(result.stdout.contains("(developers, when opening a pull request)"))
        #expect(result.stdout.contains("pipeline refs diff REF.png NEW.png -o overlay.png"))
    }

    @Test("list --json gives each pipeline's plan")
    func listJSON() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge])
        let result = try workspace.run("list", "--json")
        #expect(result.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries[0]["name"] as? String == "post-merge")
        let plan = try #require(entries[0]["plan"] as? [String: Any])
        #expect((plan["stages"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["test", "promote"])
    }

    @Test("list marks an invalid pipeline and exits 3")
    func listInvalid() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge, "broken.yml": "name: broken\n"])
        let result = try workspace.run("list")
        #expect(result.status == 3)
        #expect(result.stdout.contains("  broken      (invalid: 2 problems)"))
        #expect(result.stderr == "error: 1 of 2 pipelines have problems; run 'pipeline validate' to see them\n")
    }

    @Test("validate checks all of pipelines/ and exits 0 when clean")
    func validateClean() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge, "nightly.yml": Specs.nightly])
        let result = try workspace.run("validate")
        #expect(result.status == 0)
        #expect(result.stdout == "ok: pipelines/nightly.yml (1 stage)\nok: pipelines/post-merge.yml (2 stages)\n")
    }

    @Test("validate prints every problem as FILE:LINE:COLUMN and exits 3")
    func validateProblems() throws {
        let broken = """
            name: broken
            description: two problems
            stages:
              - test:
                  shards: many
                  timout: 2m

            """
        let workspace = try Workspace(pipelines: ["broken.yml": broken, "nightly.yml": Specs.nightly])
        let result = try workspace.run("validate")
        #expect(result.status == 3)
        #expect(result.stdout == "ok: pipelines/nightly.yml (1 stage)\n")
        #expect(
            result.stderr == """
                pipelines/broken.yml:5:15: stages[0].test.shards: expected a shard count: auto or a whole number, found 'many'
                pipelines/broken.yml:6:7: stages[0].test: unknown key 'timout'; did you mean 'timeout'?
                error: 1 of 2 files invalid, 2 problems in all

                """)
    }

    @Test("validate takes files by path, as given")
    func validateFiles() throws {
        let workspace = try Workspace(pipelines: [:])
        try workspace.write("name: elsewhere\ndescription: x\nstages: [test]\n", to: "elsewhere.yml")
        let good = try workspace.run("validate", "elsewhere.yml")
        #expect(good.status == 0)
        #expect(good.stdout == "ok: elsewhere.yml (1 stage)\n")
        let missing = try workspace.run("validate", "nowhere.yml")
        #expect(missing.status == 3)
        #expect(
            missing.stderr == "nowhere.yml: cannot read: no such file\nerror: 1 of 1 file invalid, 1 problem in all\n")
    }

    @Test("run --dry-run prints the plan, with what the commits changed, and writes nothing")
    func dryRun() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge])
        for store in [".pipeline/storage/feature", ".pipeline/storage/develop"] {
            try FileManager.default.createDirectory(
                at: workspace.root.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        let before = workspace.listing()
        let result = try workspace.run("run", "post-merge", "--dry-run")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(4)) == [
                "pipeline post-merge (pipelines/post-merge.yml)",
                "  After a merge into develop, test in shards and promote the changed tests' references.",
                "",
                "changes: HEAD (a root commit) against the empty tree; test directories named *Tests",
            ])
        #expect(lines[4].hasPrefix("  comparing the empty tree → "))
        #expect(
            Array(lines.dropFirst(5)) == [
                "  1 file changed",
                "  other files (1):",
                "    added    pipelines/post-merge.yml",
                "references: local Tests/__Snapshots__, feature .pipeline/storage/feature, develop .pipeline/storage/develop",
                "stages:",
                "  1. test     3 shards, 2m per test, 1 retry (flaky tests fail the run), all tests",
                "       snapshots: SNAPSHOT_TESTING_RECORD="
                    + (CIContext().isCI
                        ? "never (CI: a missing reference fails, a written one too)" : "missing")
                    + "; failed snapshots go to \(workspace.root.path)/.build/pipeline/snapshot-artifacts and are reviewed in "
                    + "\(workspace.root.path)/.build/pipeline/snapshot-review.html",
                "       timings: read from \(workspace.root.path)/.pipeline/storage/.pipeline/develop/develop/pipeline-timings.json to plan, and updated there after the run",
                "       no recorded durations in \(workspace.root.path)/.pipeline/storage/.pipeline/develop/develop/pipeline-timings.json yet: "
                    + "the shards are planned when the tests are listed",
                "  2. promote  feature → develop for the changed tests, keep files feature no longer has",
                "       the change touched no test or reference folder, and pushed no reference: nothing to promote",
                "",
                "dry run: nothing was built, run, written or uploaded",
                "",
            ])
        #expect(workspace.listing() == before)

        // A squash merge's commit has one parent: named so, not "a merge commit".
        try workspace.git("commit", "-q", "--allow-empty", "-m", "feature/a (squashed)")
        let squash = try workspace.run("run", "post-merge", "--dry-run")
        #expect(
            squash.stdout.contains(
                "changes: HEAD (one parent: a squash merge, a rebase's last commit or a direct push) against its parent;"
            ),
            "\(squash.stdout)")
    }

    @Test("run --dry-run outside a git repository stops at the changes step, exit 4")
    func dryRunOutsideRepository() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge])
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent(".git"))
        let result = try workspace.run("run", "post-merge", "--dry-run")
        #expect(result.status == 4)
        #expect(result.stderr.hasPrefix("error: not a git repository: "))
        #expect(result.stdout == "")
    }

    @Test("changes lists a merge's test changes; --json has the documented fields")
    func changes() throws {
        let workspace = try Workspace(pipelines: [:])
        try workspace.git("checkout", "-q", "-b", "feature")
        try FileManager.default.createDirectory(
            at: workspace.root.appendingPathComponent("Tests/AppTests/__Snapshots__/MenuTests"),
            withIntermediateDirectories: true)
        try workspace.write("x", to: "Tests/AppTests/MenuTests.swift")
        try workspace.write("png", to: "Tests/AppTests/__Snapshots__/MenuTests/test_初期起動時.1.png")
        try workspace.git("add", "-A")
        try workspace.git("commit", "-q", "-m", "menu")
        try workspace.git("checkout", "-q", "develop")
        try workspace.git("merge", "-q", "--no-ff", "-m", "merge", "feature")
        let human = try workspace.run("changes")
        #expect(human.status == 0)
        #expect(human.stdout.contains("test files (1):\n  added    Tests/AppTests/MenuTests.swift\n"))
        #expect(human.stdout.contains("tests whose references may need promotion (1): MenuTests"))
        let json = try workspace.run("changes", "--json")
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["head"] as? String)?.count == 40)
        #expect((object["base"] as? String)?.count == 40)
        #expect(object["promotable"] as? [String] == ["MenuTests"])
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(
            files.map { $0["path"] as? String } == [
                "Tests/AppTests/MenuTests.swift",
                "Tests/AppTests/__Snapshots__/MenuTests/test_初期起動時.1.png",
            ])
        #expect((object["testTargets"] as? [[String: Any]])?.first?["path"] as? String == "Tests/AppTests")
        #expect((object["referenceFolders"] as? [[String: Any]])?.first?["name"] as? String == "MenuTests")
        #expect(object["testFiles"] is [[String: Any]])

        let unknown = try workspace.run("changes", "--base", "no-such-branch")
        #expect(unknown.status == 4)
        #expect(unknown.stderr.hasPrefix("error: unknown revision 'no-such-branch'"))
    }

    @Test("an empty merge says so and exits 0")
    func emptyMerge() throws {
        let workspace = try Workspace(pipelines: [:])
        try workspace.git("checkout", "-q", "-b", "noop")
        try workspace.git("commit", "-q", "--allow-empty", "-m", "nothing")
        try workspace.git("checkout", "-q", "develop")
        try workspace.git("merge", "-q", "--no-ff", "-m", "merge noop", "noop")
        let result = try workspace.run("changes")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("no changes between these commits\n"))
    }

    @Test("run --dry-run --json gives the plan for machines")
    func dryRunJSON() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge])
        // The stores exist (a dry run on one that does not exits as the run would: PipelineRunTests).
        for store in [".pipeline/storage/feature", ".pipeline/storage/develop"] {
            try FileManager.default.createDirectory(
                at: workspace.root.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        let result = try workspace.run("run", "post-merge", "--dry-run", "--json")
        #expect(result.status == 0)
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(plan["pipeline"] as? String == "post-merge")
        #expect(plan["dryRun"] as? Bool == true)
        let stages = try #require(plan["stages"] as? [[String: Any]])
        let test = try #require(stages.first?["test"] as? [String: Any])
        #expect(test["shardCount"] as? Int == 3)
        #expect(test["timeoutSeconds"] as? Double == 120)
        #expect(test["retries"] as? Int == 1)
        let promote = try #require(stages.last?["promote"] as? [String: Any])
        #expect(promote["toLocation"] as? String == ".pipeline/storage/develop")
    }

    @Test("an unknown pipeline name lists the ones that exist, exit 2")
    func unknownPipeline() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge, "nightly.yml": Specs.nightly])
        let result = try workspace.run("run", "post-merg", "--dry-run")
        #expect(result.status == 2)
        #expect(result.stderr == "error: no pipeline named 'post-merg' in pipelines/; available: nightly, post-merge\n")
    }

    @Test("an invalid pipeline is not run: its problems, exit 3")
    func runInvalid() throws {
        let workspace = try Workspace(pipelines: [
            "post-merge.yml": "name: post-merge\ndescription: x\nstages: [tests]\n"
        ])
        let result = try workspace.run("run", "post-merge", "--dry-run")
        #expect(result.status == 3)
        #expect(
            result.stderr == "pipelines/post-merge.yml:3:10: stages[0]: unknown stage 'tests'; did you mean 'test'?\n")
    }

    @Test("no pipelines/ folder: say where it looked, exit 3")
    func noPipelinesFolder() throws {
        let workspace = try Workspace(pipelines: [:])
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("pipelines"))
        let result = try workspace.run("list")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("error: no pipelines/ folder in "))
        #expect(result.stderr.contains(workspace.root.lastPathComponent))
    }

    @Test("-C runs as if started in another folder")
    func directoryOption() throws {
        let workspace = try Workspace(pipelines: ["nightly.yml": Specs.nightly])
        let result = try PipelineBinary.run(
            ["validate", "-C", workspace.root.path], in: FileManager.default.temporaryDirectory)
        #expect(result.status == 0)
        #expect(result.stdout == "ok: pipelines/nightly.yml (1 stage)\n")
    }

    @Test("usage errors exit 2 with the argument parser's message")
    func usageErrors() throws {
        let workspace = try Workspace(pipelines: [:])
        let unknown = try workspace.run("frobnicate")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Unexpected argument 'frobnicate'"))
        let missing = try workspace.run("run")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Missing expected argument '<name>'"))
    }

    @Test(
        "help for every command exits 0 and explains it",
        arguments: [
            ["--help"], ["list", "--help"], ["validate", "--help"], ["run", "--help"], ["changes", "--help"],
            ["refs", "accept", "--help"], ["refs", "record", "--help"], ["test", "--help"],
        ])
    func help(_ arguments: [String]) throws {
        let workspace = try Workspace(pipelines: [:])
        let result = try PipelineBinary.run(arguments, in: workspace.root)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: pipeline"))
        // The overview reads as sentences: no run of spaces inside a line (a multi-line string's
        // indentation left in), only the parser's own indentation at the start of a line.
        let overview = result.stdout.components(separatedBy: "USAGE:").first ?? ""
        let inside = overview.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).contains("  ") }
        #expect(inside.isEmpty, "runs of spaces inside lines: \(inside)")
    }

    @Test("shell completion scripts come from the argument parser")
    func completion() throws {
        let workspace = try Workspace(pipelines: [:])
        let result = try workspace.run("--generate-completion-script", "bash")
        #expect(result.status == 0)
        #expect(result.stdout.contains("_pipeline()"))
    }
}
