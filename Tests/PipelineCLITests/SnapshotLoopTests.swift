import Foundation
import Testing

/// The snapshot team's loop on the real swift-snapshot-testing, end to end, with real builds and
/// real test runs of the example package: references kept out of git (on the folder store and on
/// the S3 test server), references committed in git, and the bad input of each step.
@Suite("the snapshot loop on swift-snapshot-testing", .serialized)
struct SnapshotLoopTests {
    static let tests = ["BadgeViewTests", "BadgeSnapshotTests"]
    static let snapshots = "Tests/ExampleKitTests/__Snapshots__"
    static let view = "Sources/ExampleKit/BadgeView.swift"
    /// The five snapshot tests of the example package.
    static let snapshotTests: Set<String> = [
        "ExampleKitTests.BadgeViewTests/testBadgeImage", "ExampleKitTests.BadgeViewTests/testBadgeLayout",
        "ExampleKitTests.BadgeViewTests/test_初期起動時_バッジが表示されていること",
        "ExampleKitTests.BadgeSnapshotTests/emptyBadge()", "ExampleKitTests.BadgeSnapshotTests/crowdedBadgeLayout()",
    ]

    /// A repository holding the example package; its references committed, or ignored and removed.
    /// At the example's fixed path (`ExampleCheckout`), its build reused from the suite's earlier tests.
    final class Repository: ScratchRepository {
        let root = ExampleCheckout.root

        init(references: String, stages: String, committed: Bool) throws {
            try ExampleCheckout.reset()
            if !committed {
                try FileManager.default.removeItem(at: root.appendingPathComponent(SnapshotLoopTests.snapshots))
            }
            try write(
                "pipelines/post-merge.yml",
                "name: post-merge\ndescription: Pull, test, promote.\n" + references + stages)
            try write(".gitignore", "store/\n.build/\n" + (committed ? "" : "__Snapshots__/\n"))
            try git("init", "-q", "-b", "develop")
            try commitAll("the app")
        }

        func read(_ path: String) -> Data? {
            FileManager.default.contents(atPath: root.appendingPathComponent(path).path)
        }

        /// Changes the brand colour every badge is drawn in: every snapshot test's value changes.
        func changeTheView() throws {
            let source = String(decoding: read(SnapshotLoopTests.view) ?? Data(), as: UTF8.self)
            #expect(source.contains("primary = RGB(32, 96, 208)"))
            try write(
                SnapshotLoopTests.view,
                source.replacingOccurrences(of: "primary = RGB(32, 96, 208)", with: "primary = RGB(208, 64, 32)"))
        }

        func pipeline(_ arguments: String..., environment: [String: String] = [:]) throws -> PipelineBinary.Result {
            try pipeline(arguments, environment: environment)
        }

        func pipeline(_ arguments: [String], environment: [String: String] = [:]) throws -> PipelineBinary.Result {
            try PipelineBinary.run(
                arguments, in: root, environment: RefsBackend.environment.merging(environment) { $1 })
        }

        func json(_ result: PipelineBinary.Result) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        }

        /// Every reference file with its content, to prove a command left them as they were.
        func references() -> [String: Data] {
            let folder = root.appendingPathComponent(SnapshotLoopTests.snapshots)
            return (FileManager.default.subpaths(atPath: folder.path) ?? []).reduce(into: [:]) { result, path in
                var isFolder: ObjCBool = false
                let full = folder.appendingPathComponent(path).path
                if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                    result[path] = FileManager.default.contents(atPath: full)
                }
            }
        }
    }

    static let stages = """
        stages:
          - pull:
              from: develop
              changed-from: feature
          - test:
              shards: 2
              timeout: 60s
          - promote:
              from: feature
              to: develop

        """

    @Test(
        "references out of git: record and store, a view change fails with a review, re-record and push, merge, post-merge pulls, tests green and promotes, the next branch pulls and passes",
        arguments: RefsBackend.available)
    func outOfGit(backend: RefsBackend) async throws {
        let repo = try Repository(references: try await backend.references(), stages: Self.stages, committed: false)
        let recorded = try repo.pipeline(["refs", "record"] + Self.tests)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(
            recorded.stdout.contains("BadgeViewTests: 3 new, 0 changed, 0 unchanged, 0 removed"), "\(recorded.stdout)")
        #expect(
            recorded.stdout.contains("BadgeSnapshotTests: 2 new, 0 changed, 0 unchanged, 0 removed"),
            "\(recorded.stdout)")
        let first = repo.references()
        #expect(first.count == 5)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)

        // A feature branch changes the view: its snapshot tests fail, and the review page shows them.
        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let junit = repo.root.appendingPathComponent("junit.xml")
        let failing = try repo.pipeline("test", "--json", "--junit", junit.path)
        #expect(failing.status == 1, "\(failing.stderr)")
        let report = try repo.json(failing)
        let failed = Set(
            (report["tests"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "failed" }.compactMap {
                $0["name"] as? String
            })
        #expect(failed == Self.snapshotTests)
        let page = try #require(report["review"] as? String)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<h2>BadgeViewTests/testBadgeImage.1.png<span class=\"status failed\">"))
        #expect(html.contains("pixels differ"), "an image failure shows its match ratio")
        #expect(html.contains("<figcaption>overlay</figcaption>"), "an image failure shows the overlay")
        #expect(
            html.contains("class=\"removed\">−   frame: 64×32, bar at (4, 6) 56×20, tint #2060d0"),
            "a text failure shows the line diff")
        #expect(
            try String(contentsOf: junit, encoding: .utf8).contains(
                "review: \(page)#ref-BadgeViewTests_testBadgeImage_1_png"))
        #expect(repo.references() == first, "a failing CI run writes no reference")

        // The change is meant: re-record, push to feature.
        let rerecorded = try repo.pipeline(["refs", "record"] + Self.tests + ["--push"])
        #expect(rerecorded.status == 0, "\(rerecorded.stderr)")
        #expect(
            rerecorded.stdout.contains("BadgeViewTests: 0 new, 3 changed, 0 unchanged, 0 removed"),
            "\(rerecorded.stdout)")
        #expect(rerecorded.stdout.contains("copied 5"), "\(rerecorded.stdout)")
        let second = repo.references()

        // The merge, checked out fresh: no reference in the checkout. The dry run writes nothing.
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge brand", "feature/brand")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let plan = try repo.json(try repo.pipeline("run", "post-merge", "--dry-run", "--json"))
        let planned = (plan["stages"] as? [[String: Any]])?.first?["transfers"] as? [[String: Any]] ?? []
        #expect(
            planned.map { ($0["copied"] as? [String])?.count ?? -1 } == [0, 5],
            "develop for all, then feature for the changed")
        #expect(repo.references().isEmpty)

        let run = try repo.pipeline("run", "post-merge", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let stages = try repo.json(run)["stages"] as? [[String: Any]] ?? []
        #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"])
        let promoted = (stages.last?["transfers"] as? [[String: Any]])?.first
        #expect(
            Set(promoted?["pushed"] as? [String] ?? []) == Set(Self.tests),
            "found through the commits recorded with feature's references")
        #expect((promoted?["copied"] as? [String])?.count == 5)
        #expect(repo.references() == second, "the test stage read feature's references")

        // A branch cut from develop afterwards pulls develop's references, now the new ones, and passes.
        try repo.git("checkout", "-q", "-b", "feature/next")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.references() == second)
        let green = try repo.pipeline("test", "--skip-build")
        #expect(green.status == 0, "\(green.stdout)\(green.stderr)")
    }

    @Test(
        "two branches change one test's references (out of git): after each merge develop holds that merge's files and keeps the other's, the other branch's push survives in feature, and CI on develop passes",
        arguments: RefsBackend.available)
    func twoBranches(backend: RefsBackend) async throws {
        let repo = try Repository(references: try await backend.references(), stages: Self.stages, committed: false)
        #expect(try repo.pipeline(["refs", "record"] + Self.tests).status == 0)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)
        let folder = "\(Self.snapshots)/BadgeViewTests"
        let layout = "\(folder)/testBadgeLayout.1.txt"
        let dump = "\(folder)/test_初期起動時_バッジが表示されていること.1.txt"
        let original = (layout: repo.read(layout), dump: repo.read(dump))

        /// A branch from develop, starting from develop's references, that changes one test input
        /// and records and pushes BadgeViewTests.
        func branch(_ name: String, replacing old: String, with new: String) throws -> String {
            try repo.git("checkout", "-q", "develop")
            try repo.git("checkout", "-q", "-b", name)
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            #expect(try repo.pipeline("refs", "pull").status == 0)
            let test = "Tests/ExampleKitTests/BadgeViewTests.swift"
            let source = String(decoding: repo.read(test) ?? Data(), as: UTF8.self)
            #expect(source.contains(old))
            try repo.write(test, source.replacingOccurrences(of: old, with: new))
            try repo.commitAll(name)
            let pushed = try repo.pipeline("refs", "record", "BadgeViewTests", "--push")
            #expect(pushed.status == 0, "\(pushed.stdout)\(pushed.stderr)")
            #expect(
                pushed.stdout.contains("BadgeViewTests: 0 new, 1 changed, 2 unchanged, 0 removed"), "\(pushed.stdout)")
            return try Git.run(["rev-parse", "HEAD"], in: repo.root)
        }
        /// Merges `name` into develop and runs the post-merge pipeline on a checkout without references.
        func merge(_ name: String) throws -> [String: Any] {
            try repo.git("checkout", "-q", "develop")
            try repo.git("merge", "-q", "--no-ff", "-m", "merge \(name)", name)
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            let run = try repo.pipeline("run", "post-merge", "--json")
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let stages = try repo.json(run)["stages"] as? [[String: Any]] ?? []
            #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"])
            return (stages.last?["transfers"] as? [[String: Any]])?.first ?? [:]
        }
        /// CI on develop afterwards: a fresh checkout pulls develop's references and its tests pass.
        func developPasses() throws {
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            #expect(try repo.pipeline("refs", "pull").status == 0)
            let green = try repo.pipeline("test", "--skip-build")
            #expect(green.status == 0, "\(green.stdout)\(green.stderr)")
        }

        let a = try branch("feature/a", replacing: "count: 7)", with: "count: 8)")
        let layoutA = repo.read(layout)
        let b = try branch("feature/b", replacing: "count: 0)", with: "count: 1)")
        let dumpB = repo.read(dump)
        #expect(layoutA != original.layout && dumpB != original.dump)

        let promotedA = try merge("feature/a")
        #expect(promotedA["copied"] as? [String] == ["BadgeViewTests/testBadgeLayout.1.txt"], "\(promotedA)")
        #expect((promotedA["pushCommits"] as? [String: String])?["BadgeViewTests"] == a)
        try developPasses()
        #expect(repo.read(layout) == layoutA && repo.read(dump) == original.dump, "develop holds a's references")
        let review = try repo.pipeline("refs", "pull", "BadgeViewTests", "--from", "feature", "--commit", b)
        #expect(review.status == 0, "\(review.stderr)")
        #expect(repo.read(dump) == dumpB && repo.read(layout) == original.layout, "b's push survives in feature")

        let promotedB = try merge("feature/b")
        #expect(
            promotedB["copied"] as? [String] == ["BadgeViewTests/test_初期起動時_バッジが表示されていること.1.txt"],
            "\(promotedB)")
        try developPasses()
        #expect(repo.read(layout) == layoutA && repo.read(dump) == dumpB, "b's change, and a's where b changed nothing")
    }

    @Test(
        "references committed in git: a missing one fails in CI naming the test and folder; a test writing another test's reference fails; refs record re-records for a commit, all or nothing"
    )
    func committed() async throws {
        let repo = try Repository(
            references: try await RefsBackend.folder.references(),
            stages: "stages:\n  - test:\n      shards: 2\n", committed: true)
        let layout = "\(Self.snapshots)/BadgeViewTests/testBadgeLayout.1.txt"
        let clean = try repo.pipeline("test")
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")

        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(layout))
        let missing = try repo.pipeline("test", "--skip-build", "--json")
        #expect(missing.status == 1)
        let record = (try repo.json(missing)["tests"] as? [[String: Any]])?.first {
            $0["name"] as? String == "ExampleKitTests.BadgeViewTests/testBadgeLayout"
        }
        let message = record?["message"] as? String ?? ""
        #expect(
            message.hasPrefix(
                "missing reference: no testBadgeLayout.* in \(Self.snapshots)/BadgeViewTests "
                    + "(SNAPSHOT_TESTING_RECORD=never in CI records none)"), "\(message)")
        #expect(message.contains("pipeline refs record BadgeViewTests"))
        #expect(repo.read(layout) == nil, "CI recorded nothing")
        try repo.git("checkout", "--", layout)

        // A test that writes another test's reference: the run fails and names the file.
        let stray = try repo.pipeline("test", "--skip-build", "--json", environment: ["EXAMPLE_RECORD_ELSEWHERE": "1"])
        #expect(stray.status == 1)
        let writer = (try repo.json(stray)["tests"] as? [[String: Any]])?.first {
            $0["name"] as? String == "ExampleKitTests.BadgeViewTests/testRecordsElsewhereWhenAsked"
        }
        #expect(writer?["status"] as? String == "failed")
        #expect(
            (writer?["message"] as? String)?.contains(
                "wrote a reference for another test, "
                    + "\(Self.snapshots)/ThumbnailTests/testRecordsElsewhereWhenAsked.1.txt") == true,
            "\(writer ?? [:])")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent("\(Self.snapshots)/ThumbnailTests"))

        // The record-switch trap: a helper's `record: false` overrides SNAPSHOT_TESTING_RECORD. A test
        // that passes through it would have its references removed as no longer asserted; one that
        // fails records nothing. Both are refused, naming the helper pattern and the fix.
        let unchanged = repo.references()
        let inCode = ["EXAMPLE_RECORD_IN_CODE": "1"]
        let passing = try repo.pipeline(["refs", "record", "BadgeViewTests"], environment: inCode)
        #expect(passing.status == 1, "\(passing.stdout)\(passing.stderr)")
        #expect(
            passing.stderr.contains(
                "recording stopped: ExampleKitTests.BadgeViewTests/testBadgeLayout passed without recording its "
                    + "reference BadgeViewTests/testBadgeLayout.1.txt: its record mode is set in code"),
            "\(passing.stderr)")
        #expect(passing.stderr.contains("`record: SnapshotTestingConfiguration.Record? = nil`"), "\(passing.stderr)")
        #expect(repo.references() == unchanged, "nothing removed")

        // refs record is all or nothing: a stray write puts every reference back, exit 1.
        try repo.changeTheView()
        let before = repo.references()
        let failing = try repo.pipeline(["refs", "record", "BadgeViewTests"], environment: inCode)
        #expect(failing.status == 1, "\(failing.stdout)\(failing.stderr)")
        #expect(
            failing.stderr.contains(
                "recording stopped: ExampleKitTests.BadgeViewTests/testBadgeLayout asserted a snapshot and recorded "
                    + "nothing: its record mode is set in code"), "\(failing.stderr)")
        #expect(repo.references() == before, "byte for byte as before")
        let refused = try repo.pipeline(
            ["refs", "record", "BadgeViewTests"], environment: ["EXAMPLE_RECORD_ELSEWHERE": "1"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "error: recording stopped: ExampleKitTests.BadgeViewTests/testRecordsElsewhereWhenAsked wrote "
                    + "\(Self.snapshots)/ThumbnailTests/testRecordsElsewhereWhenAsked.1.txt, a reference of another test; "
                    + "every reference was put back as it was"), "\(refused.stderr)")
        #expect(repo.references() == before, "byte for byte as before")
        let unknown = try repo.pipeline("refs", "record", "NoSuchTests")
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains("error: 'NoSuchTests' is not a test here: no test file NoSuchTests.swift in"),
            "\(unknown.stderr)")

        // Recorded for real: three references change, git sees them, and the tests pass again.
        let recorded = try repo.pipeline("refs", "record", "BadgeViewTests", "BadgeSnapshotTests")
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(
            recorded.stdout.contains("BadgeViewTests: 0 new, 3 changed, 0 unchanged, 0 removed"), "\(recorded.stdout)")
        let changed = try Git.run(["status", "--porcelain", "--", Self.snapshots], in: repo.root)
        #expect(changed.split(separator: "\n").count == 5, "\(changed)")
        #expect(try repo.pipeline("test", "--skip-build").status == 0)
    }

    @Test(
        "a pull from a store that cannot be reached stops the pipeline with exit 5, naming it, and touches no reference"
    )
    func unreachable() throws {
        let references =
            "references:\n  feature: s3://refs/feature\n  develop: s3://refs/develop\n  endpoint: http://127.0.0.1:9\n"
        let repo = try Repository(references: references, stages: Self.stages, committed: true)
        let before = repo.references()
        let result = try repo.pipeline("run", "post-merge")
        #expect(result.status == 5)
        #expect(result.stderr.contains("==> [1/3] pull"))
        #expect(result.stderr.contains("error: http://127.0.0.1:9: "), "\(result.stderr)")
        #expect(!result.stderr.contains("==> [2/3]"))
        #expect(repo.references() == before)
    }

    /// References out of git with a pull-request pipeline (pull, test) beside post-merge, the snapshot
    /// tests recorded and promoted to develop.
    static func recordedWithPullRequests(_ references: String) throws -> Repository {
        let repo = try Repository(references: references, stages: Self.stages, committed: false)
        try repo.write(
            "pipelines/pull-request.yml",
            "name: pull-request\ndescription: Pull, test.\n" + references
                + "stages:\n  - pull:\n      from: develop\n      changed-from: feature\n  - test:\n      shards: 2\n")
        try repo.commitAll("a pull-request pipeline")
        #expect(try repo.pipeline(["refs", "record"] + Self.tests).status == 0)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)
        return repo
    }

    @Test(
        "accepting what CI rendered: the pull request's run fails and keeps its renderings, the reviewer accepts them with no references in the checkout, the run on the same commit passes, the merge promotes them",
        arguments: RefsBackend.available)
    func acceptCIRendering(backend: RefsBackend) async throws {
        let repo = try Self.recordedWithPullRequests(try await backend.references())
        let before = repo.references()

        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let commit = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        let failing = try repo.pipeline("run", "pull-request")
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(
            failing.stderr.contains(
                "to accept them all: pipeline refs accept --all --commit \(commit); or some of them, named instead of --all: BadgeSnapshotTests BadgeViewTests"
            ),
            "\(failing.stderr)")
        let page = repo.root.appendingPathComponent(".build/pipeline/snapshot-review.html")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(">pipeline refs accept BadgeViewTests --commit \(commit)</pre>"))
        #expect(!html.contains("reference rendered on"), "develop's references were rendered where this run renders")

        if backend == .folder {
            // A reference rendered on another machine: its card and its terminal lines say so.
            let sidecar = repo.root.appendingPathComponent(
                "store/develop/.pipeline-metadata/BadgeViewTests/testBadgeImage.1.png.json")
            var metadata = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: String])
            #expect(metadata["pipeline-rendered-on"]?.contains("arch=") == true, "\(metadata)")
            metadata["pipeline-rendered-on"] = "os=macOS 15.1;arch=arm64;swift=6.2"
            try JSONSerialization.data(withJSONObject: metadata).write(to: sidecar)
            let again = try repo.pipeline("run", "pull-request")
            #expect(again.status == 1)
            let line = "reference rendered on macOS 15.1 arm64, Swift 6.2; this run: Linux"
            #expect(try String(contentsOf: page, encoding: .utf8).contains(line))
            #expect(again.stderr.contains(line), "\(again.stderr)")
        }

        // The reviewer's checkout holds no references: CI's renderings go to feature.
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let accepted = try repo.pipeline("refs", "accept", "--all")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(repo.references().isEmpty, "references kept out of git are not written into the checkout")

        let green = try repo.pipeline("run", "pull-request")
        #expect(green.status == 0, "the same commit passes with CI's renderings: \(green.stdout)\(green.stderr)")
        let rendered = repo.references()
        #expect(rendered.count == before.count && rendered != before)

        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge brand", "feature/brand")
        let merged = try repo.json(try repo.pipeline("run", "post-merge", "--json"))
        let stages = merged["stages"] as? [[String: Any]] ?? []
        #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"])
        #expect(((stages.last?["transfers"] as? [[String: Any]])?.first?["copied"] as? [String])?.count == before.count)
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.references() == rendered, "develop holds what CI rendered")
        if backend == .folder {
            let sidecar = repo.root.appendingPathComponent(
                "store/develop/.pipeline-metadata/BadgeViewTests/testBadgeImage.1.png.json")
            let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: String]
            #expect(
                metadata?["pipeline-rendered-on"]?.hasPrefix("os=Linux") == true,
                "promotion carries where CI rendered it: \(metadata ?? [:])")
        }
    }

    @Test(
        "one test flow: CI=true pipeline test on GitHub's synthetic merge commit keeps candidates under the branch head, names a reference rendered elsewhere and offers text snapshots' accept; the accepted references reach develop through the real merge"
    )
    func pullRequestMergeCheckout() async throws {
        let references = try await RefsBackend.folder.references()
        let repo = try Repository(references: references, stages: Self.stages, committed: false)
        #expect(try repo.pipeline(["refs", "record"] + Self.tests).status == 0)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)
        let before = repo.references()
        // develop's reference of one test says it was rendered on a Mac.
        let sidecar = repo.root.appendingPathComponent(
            "store/develop/.pipeline-metadata/BadgeViewTests/testBadgeImage.1.png.json")
        var metadata = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: String])
        metadata["pipeline-rendered-on"] = "os=macOS 15.1;arch=arm64;swift=6.2"
        try JSONSerialization.data(withJSONObject: metadata).write(to: sidecar)

        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        // develop moves on, and GitHub checks out its merge of the branch into develop.
        try repo.git("checkout", "-q", "develop")
        try repo.write("NOTES.md", "develop moved on\n")
        try repo.commitAll("notes")
        try repo.git("checkout", "-q", "--detach")
        try repo.git("merge", "-q", "--no-ff", "-m", "Merge head into develop", head)
        let synthetic = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        let event = repo.root.appendingPathComponent(".build/event.json")
        try repo.write(".build/event.json", #"{"pull_request":{"head":{"sha":"\#(head)"},"number":1}}"#)
        let summary = repo.root.appendingPathComponent(".build/summary.md")
        try repo.write(".build/summary.md", "")
        let gitHub = [
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event.path,
            "GITHUB_SHA": synthetic, "GITHUB_RUN_ID": "42", "GITHUB_STEP_SUMMARY": summary.path,
        ]
        #expect(try repo.pipeline("refs", "pull").status == 0)
        let failing = try repo.pipeline(["test", "--shards", "2"], environment: gitHub)
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(
            failing.stderr.contains(
                "to accept them all: pipeline refs accept --all --commit \(head); or some of them, named instead of --all: BadgeSnapshotTests BadgeViewTests"
            ),
            "pipeline test keeps candidates in CI, under the branch head: \(failing.stderr)")
        #expect(failing.stderr.contains("candidates: kept under \(head.prefix(12))"), "\(failing.stderr)")
        #expect(!failing.stderr.contains("--commit \(synthetic)"), "nothing is keyed by the synthetic merge")
        let elsewhere = "reference rendered on macOS 15.1 arm64, Swift 6.2; this run: Linux"
        #expect(
            failing.stdout.contains(elsewhere),
            "pipeline test reads where develop's references were rendered: \(failing.stdout)")
        let html = try String(
            contentsOf: repo.root.appendingPathComponent(".build/pipeline/snapshot-review.html"), encoding: .utf8)
        #expect(html.contains(elsewhere))
        let textCard = try #require(html.range(of: "<section id=\"ref-BadgeSnapshotTests_crowdedBadgeLayout_1_txt\""))
        let end = html.range(of: "</section>", range: textCard.upperBound..<html.endIndex)?.lowerBound ?? html.endIndex
        let card = html[textCard.lowerBound..<end]
        #expect(
            card.contains(">pipeline refs accept BadgeSnapshotTests --commit \(head)</pre>"),
            "a text snapshot's card offers its accept command")
        #expect(try String(contentsOf: summary, encoding: .utf8).contains("pipeline test"))

        // The reviewer accepts on the branch, with no references in the checkout.
        try repo.git("checkout", "-q", "feature/brand")
        try? FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let accepted = try repo.pipeline("refs", "accept", "--all")
        #expect(accepted.status == 0, "\(accepted.stderr)")

        // The real merge never contains the synthetic commit, and promotes what was accepted.
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge brand", "feature/brand")
        let merged = try repo.json(try repo.pipeline("run", "post-merge", "--json"))
        let stages = merged["stages"] as? [[String: Any]] ?? []
        #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"], "\(merged)")
        let copied = (stages.last?["transfers"] as? [[String: Any]])?.first?["copied"] as? [String]
        #expect(copied?.count == before.count, "\(stages.last ?? [:])")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        let promoted = repo.references()
        #expect(promoted.count == before.count && promoted != before, "develop holds what CI rendered")
    }

    @Test(
        "references per render environment: another environment's CI renders its text otherwise, keeps its failures as candidates, accept fills its own set, the merge promotes it there; it falls back to the shared set for the rest, and neither set holds the other's files",
        arguments: RefsBackend.available)
    func renderEnvironments(backend: RefsBackend) async throws {
        // The shared set, rendered where no environment is named.
        let repo = try Self.recordedWithPullRequests(try await backend.references())
        let shared = repo.references()
        let other = ["PIPELINE_ENVIRONMENT": "other", "EXAMPLE_RENDER_ENVIRONMENT": "other"]

        // A pull request adds machines of another environment: their CI renders the text layouts otherwise.
        try repo.git("checkout", "-q", "-b", "feature/other")
        try repo.write("NOTES.md", "machines of another environment\n")
        // A test file the branch changes is pulled along the chain too: its set in feature is empty.
        let test = "Tests/ExampleKitTests/BadgeSnapshotTests.swift"
        try repo.write(test, String(decoding: repo.read(test) ?? Data(), as: UTF8.self) + "// other machines\n")
        try repo.commitAll("other machines")
        // CI's checkout holds no references.
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let failing = try repo.pipeline(["run", "pull-request"], environment: other)
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(failing.stdout.contains("28 passed, 2 failed"), "only the two layouts differ: \(failing.stdout)")
        #expect(failing.stderr.contains("to accept them all: pipeline refs accept --all"), "\(failing.stderr)")
        let page = try String(
            contentsOf: repo.root.appendingPathComponent(".build/pipeline/snapshot-review.html"), encoding: .utf8)
        #expect(
            page.contains("reference from the shared set, a fallback: this run's set, other, has none"),
            "each card names the set its reference came from")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let accepted = try repo.pipeline(["refs", "accept", "--all"], environment: other)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let green = try repo.pipeline(["run", "pull-request"], environment: other)
        #expect(green.status == 0, "the same commit passes in its environment: \(green.stdout)\(green.stderr)")

        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge other", "feature/other")
        let merged = try repo.pipeline(["run", "post-merge"], environment: other)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")

        // Each environment's checkout: the other's layouts from its own set, the rest shared.
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let pulled = try repo.pipeline(["refs", "pull", "--json"], environment: other)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let sets = try repo.json(pulled)["fileSets"] as? [String: String] ?? [:]
        #expect(sets["BadgeViewTests/testBadgeLayout.1.txt"] == "other", "\(sets)")
        let layout = String(
            decoding: repo.references()["BadgeViewTests/testBadgeLayout.1.txt"] ?? Data(), as: UTF8.self)
        #expect(layout.contains("rendered in: other"), "\(layout)")
        #expect(try repo.pipeline(["test", "--shards", "2"], environment: other).status == 0)
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.references() == shared, "the shared set holds none of the other environment's files")
        #expect(try repo.pipeline("test", "--shards", "2").status == 0)
        if backend == .folder {
            let store = repo.root.appendingPathComponent("store/develop")
            #expect(
                FileManager.default.fileExists(atPath: store.appendingPathComponent("other/BadgeViewTests").path))
            #expect(
                !FileManager.default.fileExists(atPath: store.appendingPathComponent("BadgeViewTests/other").path))
        }
        try await changeTheViewInTwoEnvironments(repo, other: other)
    }

    /// A branch changes the view; CI in `linux` (which renders its layouts otherwise too) and in
    /// `other` each fail, keep their renderings in their own set, and each is accepted there; one
    /// merge job, in linux, promotes both sets; each environment's CI then passes, and neither set
    /// holds the other's files.
    func changeTheViewInTwoEnvironments(_ repo: Repository, other: [String: String]) async throws {
        let linux = ["PIPELINE_ENVIRONMENT": "linux", "EXAMPLE_RENDER_ENVIRONMENT": "linux"]
        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        for (name, environment) in [("linux", linux), ("other", other)] {
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            let failing = try repo.pipeline(["run", "pull-request"], environment: environment)
            #expect(failing.status == 1, "\(name): \(failing.stdout)\(failing.stderr)")
            #expect(
                failing.stderr.contains("--commit \(head) --environment \(name)"),
                "the accept command names the set: \(failing.stderr)")
            let accepted = try repo.pipeline(["refs", "accept", "--all", "--commit", head, "--environment", name])
            #expect(accepted.status == 0, "\(name): \(accepted.stderr)")
        }
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge brand", "feature/brand")
        let merged = try repo.pipeline(["run", "post-merge", "--json"], environment: linux)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        let stages = try repo.json(merged)["stages"] as? [[String: Any]] ?? []
        let promoted = (stages.last?["transfers"] as? [[String: Any]] ?? []).map { $0["environment"] as? String }
        #expect(promoted == ["linux", "other"], "one merge job promotes both sets: \(stages.last ?? [:])")
        for (name, environment) in [("linux", linux), ("other", other)] {
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            #expect(try repo.pipeline(["refs", "pull"], environment: environment).status == 0)
            let layout = String(
                decoding: repo.references()["BadgeViewTests/testBadgeLayout.1.txt"] ?? Data(), as: UTF8.self)
            #expect(layout.contains("rendered in: \(name)"), "\(name)'s own layout, no other's: \(layout)")
            let passed = try repo.pipeline(["test", "--shards", "2"], environment: environment)
            #expect(passed.status == 0, "\(name) passes after the merge: \(passed.stdout)\(passed.stderr)")
        }
    }

    @Test("a merge whose branch's CI renderings were never accepted does not promote silently: exit 8, naming them")
    func neverAccepted() async throws {
        let references = try await RefsBackend.folder.references()
        let repo = try Repository(references: references, stages: Self.stages, committed: false)
        #expect(try repo.pipeline(["refs", "record"] + Self.tests).status == 0)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)
        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        let failing = try repo.pipeline("test", "--shards", "2")
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("--commit \(head)"), "\(failing.stderr)")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge brand unaccepted", "feature/brand")
        let promote = try repo.pipeline("refs", "promote")
        #expect(promote.status == 8, "\(promote.stdout)\(promote.stderr)")
        #expect(
            promote.stderr.contains("renderings were never accepted")
                && promote.stderr.contains("pipeline refs accept BadgeSnapshotTests BadgeViewTests --commit \(head)"),
            "\(promote.stderr)")
    }
}
