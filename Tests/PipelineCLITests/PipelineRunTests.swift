import Foundation
import Testing

/// `pipeline run post-merge` on a generated repository holding the example package: a merge that
/// changes one test and its reference, the test stage running the package's real tests in shards,
/// and the promotion — on the folder store and on the S3 test server.
@Suite("pipeline run: the post-merge pipeline end to end", .serialized)
struct PipelineRunTests {
    static let stages = """
        stages:
          - test:
              shards: 2
              timeout: 60s
          - promote:
              from: feature
              to: develop

        """
    static let thumbnail = "Tests/ExampleKitTests/__Snapshots__/ThumbnailTests/test_small.1.png"

    /// The repository after a merge into develop that changed ThumbnailTests and its reference.
    private func merged(_ backend: RefsBackend) async throws -> SnapshotRepository {
        let repo = try SnapshotRepository(
            references: try await backend.references(), stages: Self.stages, examplePackage: true)
        #expect(
            try repo.pipeline("refs", "promote", "ThumbnailTests", "SlowRenderingTests", "--force", "--yes").status == 0
        )
        try repo.git("checkout", "-q", "-b", "feature/thumbnails")
        try repo.write(
            "Tests/ExampleKitTests/ThumbnailTests.swift",
            (repo.read("Tests/ExampleKitTests/ThumbnailTests.swift") ?? "") + "// brand colour\n")
        try repo.write(Self.thumbnail, "thumbnail v2")
        try repo.commitAll("thumbnails")
        #expect(try repo.pipeline("refs", "push", "ThumbnailTests").status == 0)
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge thumbnails", "feature/thumbnails")
        return repo
    }

    @Test("a dry run on a store that does not exist says so and exits as the run would (5), after its plan")
    func dryRunMissingStore() throws {
        let repo = try SnapshotRepository(
            references: "references:\n  feature: missing/feature\n  develop: missing/develop\n")
        try repo.write("Tests/AppTests/LoginTests.swift", "// login v2\n")
        try repo.commitAll("a change")
        let run = try repo.pipeline("run", "post-merge")
        let dryRun = try repo.pipeline("run", "post-merge", "--dry-run")
        #expect(run.status == 5, "\(run.stderr)")
        #expect(dryRun.status == run.status, "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("cannot work this stage out") && dryRun.stdout.contains("does not exist"))
        let json = try repo.pipeline("run", "post-merge", "--dry-run", "--json")
        #expect(json.status == 5)
        let plan = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((plan?["stages"] as? [[String: Any]])?.first?["exitStatus"] as? Int == 5, "\(json.stdout)")
        #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent("missing").path))
    }

    @Test(
        "a dry run shows the plan and writes nothing; the run tests, then promotes the changed test's references",
        arguments: RefsBackend.available)
    func postMerge(backend: RefsBackend) async throws {
        let repo = try await merged(backend)
        let before = FileManager.default.subpaths(atPath: repo.root.path)?.sorted()
        let plan = try repo.report("run", "post-merge", "--dry-run")
        #expect(FileManager.default.subpaths(atPath: repo.root.path)?.sorted() == before, "nothing built or written")
        let stages = plan["stages"] as? [[String: Any]] ?? []
        let transfer = stages.last?["transfer"] as? [String: Any]
        #expect(transfer?["copied"] as? [String] == ["ThumbnailTests/test_small.1.png"])
        #expect(transfer?["dryRun"] as? Bool == true)

        let outcome = try repo.report("run", "post-merge")
        let results = outcome["stages"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? String } == ["passed", "passed"])
        #expect(
            (results.first?["test"] as? [String: Any]).flatMap { $0["summary"] as? [String: Any] }?["passed"] as? Int
                == ExamplePackage.testCount)
        let promoted = (results.last?["transfers"] as? [[String: Any]])?.first
        #expect(promoted?["copied"] as? [String] == ["ThumbnailTests/test_small.1.png"])
        #expect(promoted?["commit"] as? String == (try repo.sha()))
        // develop now has the merged reference.
        try repo.write(Self.thumbnail, "edited")
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.read(Self.thumbnail) == "thumbnail v2")
    }

    @Test("a failing test stops promotion: exit 1, the promote stage skipped, develop untouched")
    func failedTests() async throws {
        let repo = try await merged(.folder)
        let result = try PipelineBinary.run(
            ["run", "post-merge"], in: repo.root,
            environment: RefsBackend.environment.merging(["EXAMPLE_FAIL": "1"]) { $1 })
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("test     failed"), "\(result.stdout)")
        #expect(result.stdout.contains("promote  skipped the test stage failed; nothing promoted"), "\(result.stdout)")
        try repo.write(Self.thumbnail, "edited")
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.read(Self.thumbnail) == "thumbnail v1", "develop still has the old reference")

        // Quarantined, the same failure no longer stops the pipeline.
        let add = try repo.pipeline(
            "quarantine", "add", "ExampleKitTests.ThumbnailTests/testFailsWhenAsked",
            "--owner", "@alice", "--reason", "known: #12", "--days", "3")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(
            try repo.pipeline("list").stdout.contains("quarantine") == false, "the quarantine file is not a pipeline")
        let quarantined = try PipelineBinary.run(
            ["run", "post-merge"], in: repo.root,
            environment: RefsBackend.environment.merging(["EXAMPLE_FAIL": "1"]) { $1 })
        #expect(quarantined.status == 0, "\(quarantined.stderr)")
        #expect(quarantined.stderr.contains("1 quarantined"), "\(quarantined.stderr)")
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.read(Self.thumbnail) == "thumbnail v2", "promoted")
    }

    @Test("select: affected and test --affected follow the package's target graph and say why")
    func affected() async throws {
        let stages = "stages:\n  - test:\n      select: affected\n      shards: 2\n"
        let repo = try SnapshotRepository(
            references: try await RefsBackend.folder.references(), stages: stages,
            examplePackage: true)
        let library = "Sources/ExampleKit/Thumbnail.swift"
        try repo.write(library, (repo.read(library) ?? "") + "// faster\n")
        try repo.commitAll("library change")
        let reason = "affected: ExampleKitTests, because it depends on ExampleKit, which changed (\(library))"
        let plan = try repo.report("run", "post-merge", "--dry-run")
        let note = ((plan["stages"] as? [[String: Any]])?.first?["note"] as? String) ?? ""
        #expect(note.contains(reason), "\(note)")

        let listed = try repo.pipeline("test", "--affected", "--list")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains(reason), "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count == ExamplePackage.testCount)

        try repo.write("README.md", "notes\n")
        try repo.commitAll("notes")
        let everything = try repo.pipeline("test", "--affected", "--list", "--skip-build")
        #expect(
            everything.stderr.contains("affected: every test target, since README.md is outside every target"),
            "\(everything.stderr)")
    }

    @Test("bad input stops the pipeline at the right stage with its exit code, and later stages do not run")
    func stops() async throws {
        // A merge with no test change: promotion has nothing to do and says so.
        let quiet = try SnapshotRepository(references: try await RefsBackend.folder.references())
        try quiet.write("README.md", "notes\n")
        try quiet.commitAll("notes")
        for store in ["store/feature", "store/develop"] {
            try FileManager.default.createDirectory(
                at: quiet.root.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        let skipped = try quiet.pipeline("run", "post-merge")
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(
            skipped.stdout.contains(
                "promote  skipped the change touched no test or reference folder, and pushed no reference"),
            "\(skipped.stdout)")

        // Storage that cannot be reached: exit 5 at the promote stage, naming the endpoint.
        let references =
            "references:\n  feature: s3://refs/feature\n  develop: s3://refs/develop\n  endpoint: http://127.0.0.1:9\n"
        let unreachable = try SnapshotRepository(references: references)
        try unreachable.write("\(unreachable.snapshots)/LoginTests/test_login.1.png", "login v2")
        try unreachable.commitAll("new image")
        let down = try unreachable.pipeline("run", "post-merge")
        #expect(down.status == 5)
        #expect(down.stderr.contains("==> [1/1] promote"))
        #expect(down.stderr.contains("error: http://127.0.0.1:9: "), "\(down.stderr)")

        // A package that does not build: exit 6 at the test stage; promotion never starts.
        let broken = try SnapshotRepository(
            references: try await RefsBackend.folder.references(), stages: Self.stages,
            examplePackage: true)
        try broken.write("Sources/ExampleKit/Broken.swift", "let broken: Int = \"not a number\"\n")
        try broken.write(Self.thumbnail, "thumbnail v2")
        try broken.commitAll("broken")
        let failed = try broken.pipeline("run", "post-merge")
        #expect(failed.status == 6)
        #expect(failed.stderr.contains("Broken.swift:1:"), "the compiler error is named: \(failed.stderr)")
        #expect(!failed.stderr.contains("promote:"), "\(failed.stderr)")

        // Outside a repository: exit 4 before any stage.
        try FileManager.default.removeItem(at: quiet.root.appendingPathComponent(".git"))
        let outside = try quiet.pipeline("run", "post-merge")
        #expect(outside.status == 4)
        #expect(!outside.stderr.contains("==>"))
    }
}
