import Foundation
import TestSupport
import Testing

/// A merge whose post-merge run never ran (GitHub cancels a pending run when a newer one queues,
/// runners die, people cancel runs): the next run compares from develop's record of the last
/// promoted commit, tests what the caught-up merges reach and promotes them, on the real
/// swift-snapshot-testing.
extension SnapshotLoopTests {
    @Test(
        "a lost post-merge run: the next merge's run catches up from develop's record, and develop gets the lost merge's rendering; without the record it fails as before",
        arguments: RefsBackend.available)
    func lostRun(backend: RefsBackend) async throws {
        let repo = try Repository(references: try await backend.references(), stages: Self.stages, committed: false)
        #expect(try repo.pipeline(["refs", "record"] + Self.tests).status == 0)
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + ["--force", "--yes"]).status == 0)
        // A first merge's run passes and records develop's head as its last promoted commit.
        try repo.write("README.md", "first\n")
        try repo.commitAll("first merge")
        let first = try repo.pipeline("run", "post-merge")
        let firstHead = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(
            first.stderr.contains("develop has no record of its last promoted commit yet"), "\(first.stderr)")
        #expect(
            first.stderr.contains("recorded \(firstHead.prefix(12)) as develop's last promoted commit"),
            "\(first.stderr)")

        // Branch A re-records the view's rendering and pushes it, and merges: its run never runs.
        try repo.git("checkout", "-q", "-b", "feature/a")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        #expect(try repo.pipeline(["refs", "record"] + Self.tests + ["--push"]).status == 0)
        let rendering = try #require(repo.read("\(Self.snapshots)/BadgeViewTests/testBadgeImage.1.png"))
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "Merge feature/a", "feature/a")
        let mergeA = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        // Branch B changes no test, and merges; B's run is the push's (its before: A's merge).
        try repo.git("checkout", "-q", "-b", "feature/b")
        try repo.write("NOTES.md", "b\n")
        try repo.commitAll("notes")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "Merge feature/b", "feature/b")
        for branch in ["feature/a", "feature/b"] { try repo.git("branch", "-q", "-D", branch) }
        let push = ["PIPELINE_PUSH_BEFORE": mergeA]

        // As before this round (no record): only B's merge is compared; A's view test fails on
        // develop's old reference, blamed on B, and nothing is promoted.
        let record: URL? =
            backend == .folder
            ? RecordFiles.find(".promoted.json", of: repo.root.appendingPathComponent("store/develop")) : nil
        #expect(backend != .folder || record != nil, "develop's record of the last promoted commit")
        if let record {
            let aside = record.appendingPathExtension("aside")
            try FileManager.default.moveItem(at: record, to: aside)
            try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
            let blind = try repo.pipeline(["run", "post-merge"], environment: push)
            #expect(blind.status == 1, "\(blind.stdout)\(blind.stderr)")
            #expect(blind.stderr.contains("comparing from \(mergeA.prefix(12)) only"), "\(blind.stderr)")
            try FileManager.default.moveItem(at: aside, to: record)
        }

        // With the record: from the first merge, both merges compared, A's test ran against A's
        // pushed rendering, and A's rendering promoted to develop.
        try? FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let caughtUp = try repo.pipeline(["run", "post-merge", "--json"], environment: push)
        #expect(caughtUp.status == 0, "\(caughtUp.stdout)\(caughtUp.stderr)")
        #expect(
            caughtUp.stderr.contains(
                "caught up from develop's last promoted commit, \(firstHead.prefix(12)): 1 commit before "
                    + "\(mergeA.prefix(12)) whose promotion never ran (\(mergeA.prefix(12)))"),
            "\(caughtUp.stderr)")
        let outcome = try repo.json(caughtUp)
        let stages = outcome["stages"] as? [[String: Any]] ?? []
        let test = try #require(stages.first { $0["kind"] as? String == "test" })
        #expect(test["status"] as? String == "passed", "\(test)")
        #expect((test["summary"] as? String)?.contains("0 failed") == true, "\(test)")
        let promote = try #require(stages.first { $0["kind"] as? String == "promote" })
        #expect(promote["status"] as? String == "passed", "\(promote)")
        let promoted = (promote["summary"] as? String) ?? ""
        #expect(promoted.hasPrefix("2 test(s): copied ") && !promoted.hasPrefix("2 test(s): copied 0,"), "\(promote)")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        #expect(caughtUp.stderr.contains("recorded \(head.prefix(12)) as develop's last promoted commit"))
        // Develop holds A's rendering: the next branch pulls it.
        try repo.git("checkout", "-q", "-b", "feature/c")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull", "BadgeViewTests", "--from", "develop").status == 0)
        #expect(repo.read("\(Self.snapshots)/BadgeViewTests/testBadgeImage.1.png") == rendering)

        // A run with nothing to catch up compares the push alone, and says nothing of the record.
        try repo.git("checkout", "-q", "develop")
        try repo.write("NOTES.md", "d\n")
        try repo.commitAll("d")
        let plain = try repo.pipeline(["run", "post-merge"], environment: ["PIPELINE_PUSH_BEFORE": head])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stderr.contains("caught up") && !plain.stderr.contains("no record"), "\(plain.stderr)")
    }
}
