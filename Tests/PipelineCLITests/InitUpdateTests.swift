import Foundation
import TestSupport
import Testing

/// `pipeline init --update`: the files init wrote, rewritten for what this version writes, the
/// team's edits kept where they do not conflict, in a repository whose history has init's text.
@Suite("pipeline init --update: init's files anew, the team's edits kept")
struct InitUpdateTests {
    /// pipeline-post-merge.yml as init wrote it before this round (docs/ci.md at that time: four
    /// nodes, setup-swift with a constant Swift on ubuntu-latest, no marker line).
    static let legacyPostMerge = """
        # Written by `pipeline init`. After a push to develop (one merge, or a merge queue's several):
        # the tests, then the merged branches' references promoted to develop (exit 10 if a touched
        # test's references would not reach it). Runs of one branch wait for each other, in push order.
        name: pipeline post-merge
        on:
          push:
            branches: [develop]
        permissions:
          contents: read
        concurrency:
          group: pipeline-post-merge-${{ github.ref }}
          cancel-in-progress: false
        env:
          AWS_ACCESS_KEY_ID: ${{ secrets.PIPELINE_AWS_ACCESS_KEY_ID }}
          AWS_SECRET_ACCESS_KEY: ${{ secrets.PIPELINE_AWS_SECRET_ACCESS_KEY }}
        jobs:
          build:
            runs-on: ubuntu-latest
            timeout-minutes: 60
            steps:
              - uses: actions/checkout@v4
                with: { fetch-depth: 0 }
              - uses: your-org/pipeline@v0.1.0
                with: { version: 0.1.0 }
              - uses: swift-actions/setup-swift@v2
                if: runner.environment == 'github-hosted'
                with: { swift-version: "6.1" }
              - run: pipeline run post-merge --only pull
              - run: pipeline test --build-only --build-cache s3://team-snapshots/build-cache --reuse-verdicts s3://team-snapshots/feature
          test:
            needs: build
            runs-on: ubuntu-latest
            timeout-minutes: 60
            strategy:
              fail-fast: false
              matrix: { node: [1/4, 2/4, 3/4, 4/4] }
            steps:
              - uses: actions/checkout@v4
                with: { fetch-depth: 0 }
              - uses: your-org/pipeline@v0.1.0
                with: { version: 0.1.0 }
              - uses: swift-actions/setup-swift@v2
                if: runner.environment == 'github-hosted'
                with: { swift-version: "6.1" }
              - run: pipeline run post-merge --only pull
              - run: pipeline test --node ${{ matrix.node }} --queue --timings develop --junit .build/pipeline/junit.xml --build-cache s3://team-snapshots/build-cache --reuse-verdicts s3://team-snapshots/feature
              - uses: actions/upload-artifact@v4
                if: always()
                with: { name: "pipeline-post-merge-${{ strategy.job-index }}-${{ github.run_attempt }}", path: .build/pipeline/, if-no-files-found: ignore }
          report:
            needs: test
            if: always()
            runs-on: ubuntu-latest
            timeout-minutes: 15
            steps:
              - uses: actions/checkout@v4
                with: { fetch-depth: 1 }
              - uses: your-org/pipeline@v0.1.0
                with: { version: 0.1.0 }
              - run: pipeline report --queue --timings develop --junit junit-all.xml --reuse-verdicts s3://team-snapshots/feature
          promote:
            needs: report
            runs-on: ubuntu-latest
            timeout-minutes: 15
            steps:
              - uses: actions/checkout@v4
                with: { fetch-depth: 0 }
              - uses: your-org/pipeline@v0.1.0
                with: { version: 0.1.0 }
              - run: pipeline run post-merge --only promote

        """

    let folder: URL

    init() throws {
        folder = try Scratch.folder("init-update")
        try Scratch.git(folder, "init", "-q", "-b", "develop")
        try Scratch.write("6.2\n", to: folder.appendingPathComponent(".swift-version"))
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    func edit(_ path: String, _ change: (String) -> String) throws {
        try Scratch.write(change(try read(path)), to: folder.appendingPathComponent(path))
    }

    func commit(_ message: String) throws {
        try Scratch.git(folder, "add", "-A")
        try Scratch.git(folder, "commit", "-q", "-m", message)
    }

    func pipeline(_ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: folder)
    }

    @Test("unedited files replaced, an edit kept, a conflict named and left as it was (exit 8); the flags read back")
    func editsAndConflicts() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try pipeline("init", "--ci", "github", "--store", "s3://team-snapshots/app", "--nodes", "2")
        #expect(first.status == 0, "\(first.stderr)")
        try commit("pipeline init")
        let pullRequest = ".github/workflows/pipeline-pull-request.yml"
        let postMerge = ".github/workflows/pipeline-post-merge.yml"
        // The team adds a step to the pull request's report, and pins its own image in post-merge's build.
        try edit(pullRequest) {
            $0.replacingOccurrences(
                of: "      - run: pipeline report",
                with: "      - run: echo the team's step\n      - run: pipeline report")
        }
        try edit(postMerge) {
            $0.replacingOccurrences(
                of: "    container: swift:6.2-noble\n    timeout-minutes: 60\n    steps:",
                with: "    container: ghcr.io/acme/swift:6.2\n    timeout-minutes: 60\n    steps:")
        }
        try commit("the team's edits")
        let accepted = try read(".github/workflows/pipeline-accept.yml")
        let editedPostMerge = try read(postMerge)

        // The package moves to Swift 6.3: every job's image changes.
        try Scratch.write("6.3\n", to: folder.appendingPathComponent(".swift-version"))
        let update = try pipeline("init", "--update")
        #expect(update.status == 8, "\(update.stderr)")
        #expect(update.stdout.contains("unchanged pipelines/post-merge.yml\n"), "\(update.stdout)")
        #expect(update.stdout.contains("updated \(pullRequest), your edits kept (init's earlier text: commit "))
        #expect(update.stdout.contains("not written \(postMerge): your edits and this version's change the same lines"))
        #expect(update.stderr.contains("init --update left \(postMerge) as they were"), "\(update.stderr)")

        let merged = try read(pullRequest)
        #expect(merged.contains("      - run: echo the team's step\n      - run: pipeline report"), "\(merged)")
        #expect(merged.contains("container: swift:6.3-noble") && !merged.contains("swift:6.2"), "\(merged)")
        #expect(
            merged.hasPrefix("# pipeline init ")
                && merged.contains(" · --ci github --store s3://team-snapshots/app --nodes 2\n"))
        #expect(try read(postMerge) == editedPostMerge, "a conflicted file is not written")
        #expect(update.stdout.contains("+<<<<<<< yours"), "the merge is shown: \(update.stdout)")
        // Not edited: replaced (the accept job builds nothing, so only its marker's flags could change: none did).
        #expect(try read(".github/workflows/pipeline-accept.yml") == accepted)
        #expect(update.stdout.contains("unchanged .github/workflows/pipeline-accept.yml"))

        // The same again after the conflict is resolved by taking this version's file: nothing to do.
        try Scratch.git(folder, "checkout", "-q", "--", ".")
        try FileManager.default.removeItem(at: folder.appendingPathComponent(postMerge))
        let again = try pipeline("init", "--update")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("wrote \(postMerge) (new in this version)"), "\(again.stdout)")
    }

    @Test(
        "a file init wrote before the marker line: merged from the version that added it; the team's own workflow's setup-swift named"
    )
    func legacy() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let postMerge = ".github/workflows/pipeline-post-merge.yml"
        try Scratch.write(Self.legacyPostMerge, to: folder.appendingPathComponent(postMerge))
        try commit("pipeline init, as it was")
        // The team's edit: a permission of its own for every job.
        try edit(postMerge) {
            $0.replacingOccurrences(
                of: "permissions:\n  contents: read\n", with: "permissions:\n  issues: read\n  contents: read\n")
        }
        let lint = """
            name: lint
            on: [push]
            env:
              AWS_ACCESS_KEY_ID: ${{ secrets.PIPELINE_AWS_ACCESS_KEY_ID }}
              DEPLOY_TOKEN: ${{ secrets.DEPLOY_TOKEN }}
            jobs:
              lint:
                runs-on: ubuntu-latest
                steps:
                  - uses: swift-actions/setup-swift@v2
                    with: { swift-version: "6.1" }
                  - run: swift build

            """
        try Scratch.write(lint, to: folder.appendingPathComponent(".github/workflows/lint.yml"))
        try commit("the team's edit and its own workflow")

        let bare = try pipeline("init", "--update")
        #expect(
            bare.status == 2 && bare.stderr.contains("pass them, such as pipeline init --update --ci"), "\(bare.stderr)"
        )

        let update = try pipeline(
            "init", "--update", "--ci", "github", "--store", "s3://team-snapshots", "--region", "eu-west-1", "--nodes",
            "4")
        #expect(update.status == 0, "\(update.stdout)\n\(update.stderr)")
        #expect(update.stdout.contains("updated \(postMerge), your edits kept (init's earlier text: commit "))
        let updated = try read(postMerge)
        #expect(updated.contains("  issues: read\n  contents: read\n  actions: read\n"), "\(updated)")
        #expect(!updated.contains("PIPELINE_AWS_ACCESS_KEY_ID") && updated.contains("environment: pipeline-develop"))
        #expect(!updated.contains("setup-swift") && updated.contains("container: swift:6.2-noble"), "\(updated)")
        #expect(!updated.contains("<<<<<<<"))
        #expect(updated.hasPrefix("# pipeline init "), "now with its marker line")
        #expect(update.stdout.contains("wrote pipelines/post-merge.yml (new in this version)"), "\(update.stdout)")
        #expect(
            update.stderr.contains(
                "warning: .github/workflows/lint.yml:10: job lint sets up Swift with setup-swift on ubuntu-latest"),
            "\(update.stderr)")
        #expect(
            update.stderr.contains(
                "warning: .github/workflows/lint.yml:4: one store key for every job (PIPELINE_AWS_ACCESS_KEY_ID)"),
            "\(update.stderr)")
        #expect(
            update.stderr.contains("warning: .github/workflows/lint.yml:5: a secret in the workflow's env"),
            "\(update.stderr)")
        #expect(try read(".github/workflows/lint.yml") == lint, "the team's own workflow is left alone")
    }
}
