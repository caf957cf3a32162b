import Foundation
import SnapshotConventions
import Testing

@Suite("swift-snapshot-testing's conventions")
struct SnapshotConventionsTests {
    @Test(
        "test names are sanitised as the library names its files",
        arguments: [
            ("testBadgeImage()", "testBadgeImage"),
            ("scalingKeepsTheMatch(factor:)", "scalingKeepsTheMatch-factor"),
            ("test_初期起動時_バッジが表示されていること()", "test_初期起動時_バッジが表示されていること"),
            ("(a|b) [c] +? ^$ work", "a-b-c-work"),
            ("émoji 👍 test", "émoji-test"),
        ])
    func sanitising(name: String, expected: String) {
        #expect(SnapshotFile.sanitize(name) == expected)
    }

    @Test("a reference's place: __Snapshots__/<TestFile>/<file>, and nothing else")
    func layout() {
        let file = SnapshotFile(
            referenceAt: URL(fileURLWithPath: "/r/Tests/AppTests/__Snapshots__/LoginTests/testLogin.dark.png"))
        #expect(file?.testFile == "LoginTests")
        #expect(file?.testName == "testLogin")
        #expect(file?.key == "LoginTests/testLogin.dark.png")
        #expect(SnapshotFile(referenceAt: URL(fileURLWithPath: "/r/__Snapshots__/stray.png")) == nil)
        #expect(SnapshotFile(referenceAt: URL(fileURLWithPath: "/r/__Snapshots__/A/deeper/x.png")) == nil)
        #expect(SnapshotFile(referenceAt: URL(fileURLWithPath: "/r/__Snapshots__/A/.DS_Store")) == nil)
        #expect(SnapshotFile(relativePath: "BadgeTests/emptyBadge.1.png")?.testName == "emptyBadge")
        #expect(SnapshotFile(relativePath: "loose.png") == nil)
    }

    @Test("the record mode: never in CI unless the user chose; the artifacts folder always")
    func switches() {
        let artifacts = URL(fileURLWithPath: "/tmp/artifacts")
        #expect(
            SnapshotSwitches.environment(inherited: ["CI": "true"], artifacts: artifacts)
                == ["SNAPSHOT_ARTIFACTS": "/tmp/artifacts", "SNAPSHOT_TESTING_RECORD": "never"])
        #expect(
            SnapshotSwitches.environment(
                inherited: ["CI": "true", "SNAPSHOT_TESTING_RECORD": "failed"], artifacts: artifacts)
                == ["SNAPSHOT_ARTIFACTS": "/tmp/artifacts"])
        #expect(
            SnapshotSwitches.environment(inherited: [:], artifacts: artifacts) == [
                "SNAPSHOT_ARTIFACTS": "/tmp/artifacts"
            ])
        #expect(
            SnapshotSwitches.environment(inherited: ["CI": "1"], artifacts: artifacts, record: .all)[
                "SNAPSHOT_TESTING_RECORD"] == "all")
        // CI=false is not CI: the library keeps its default mode.
        #expect(
            SnapshotSwitches.environment(inherited: ["CI": "false"], artifacts: artifacts)["SNAPSHOT_TESTING_RECORD"]
                == nil)
        #expect(
            SnapshotSwitches.effectiveMode(inherited: ["SNAPSHOT_TESTING_RECORD": "bogus"], overrides: [:]) == .missing)
    }

    @Test("the library's messages are read back: kinds, files, the test file")
    func messages() {
        let output = """
            /w/Tests/AppTests/BadgeTests.swift:11: error: BadgeTests.testA : failed - Snapshot does not match reference.

            @−
            "file:///w/Tests/AppTests/__Snapshots__/BadgeTests/testA.1.png"
            @+
            "file:///tmp/art/BadgeTests/test%E6%97%A5.1.png"
            /w/Tests/AppTests/BadgeTests.swift:12: error: BadgeTests.testA : failed - No reference was found on disk. New snapshot was not recorded because recording is disabled
            """
        #expect(SnapshotMessages.kinds(in: output) == [.mismatch, .missingReference])
        #expect(
            SnapshotMessages.files(in: output).map(\.path)
                == ["/w/Tests/AppTests/__Snapshots__/BadgeTests/testA.1.png", "/tmp/art/BadgeTests/test日.1.png"])
        #expect(SnapshotMessages.testFile(in: output)?.name == "BadgeTests")
        #expect(SnapshotMessages.testFile(in: output)?.folder?.path == "/w/Tests/AppTests")
        #expect(
            SnapshotMessages.testFile(in: "ExampleKitTests/BadgeSnapshotTests.swift:8: Record mode is on")?.name
                == "BadgeSnapshotTests")
        #expect(SnapshotMessages.kinds(in: "XCTAssertEqual failed: (1) is not equal to (2)").isEmpty)
    }

    @Test("a test whose every failure is a verdict on a reference is told from one with any other failure")
    func referenceVerdicts() {
        let mismatch = """
            /w/Tests/AppTests/BadgeTests.swift:11: error: BadgeTests.testA : failed - Snapshot does not match reference.

            @−
            "file:///w/Tests/AppTests/__Snapshots__/BadgeTests/testA.1.png"
            """
        #expect(SnapshotMessages.onlyReferenceVerdicts(in: mismatch))
        let missing =
            "/w/Tests/AppTests/BadgeTests.swift:12: error: BadgeTests.testA : failed - No reference was found on disk."
        #expect(SnapshotMessages.onlyReferenceVerdicts(in: mismatch + "\n" + missing))
        let assertion =
            "/w/Tests/AppTests/BadgeTests.swift:14: error: BadgeTests.testA : XCTAssertEqual failed: (1) is not equal to (2)"
        #expect(!SnapshotMessages.onlyReferenceVerdicts(in: mismatch + "\n" + assertion))
        #expect(!SnapshotMessages.onlyReferenceVerdicts(in: assertion))
        // Swift Testing's issues, as the event stream's reader joins them: one per source line.
        let issues = """
            ExampleKitTests/BadgeSnapshotTests.swift:8: Snapshot does not match reference.

            @@ −1,2 +1,2 @@
            ExampleKitTests/BadgeSnapshotTests.swift:9: Snapshot does not match reference.
            """
        #expect(SnapshotMessages.onlyReferenceVerdicts(in: issues))
        #expect(
            !SnapshotMessages.onlyReferenceVerdicts(
                in: issues + "\nExampleKitTests/BadgeSnapshotTests.swift:10: Expectation failed: count == 2"))
        #expect(!SnapshotMessages.onlyReferenceVerdicts(in: "crashed: signal 11"))
        #expect(!SnapshotMessages.onlyReferenceVerdicts(in: ""))
    }

    @Test("the inventory shows what a run wrote, rewrote and removed, and nothing outside __Snapshots__ or in .build")
    func inventory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("inventory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write("Tests/A/__Snapshots__/ATests/kept.1.txt", "kept")
        try write("Tests/A/__Snapshots__/ATests/rewritten.1.txt", "old")
        try write("Tests/A/__Snapshots__/ATests/gone.1.txt", "gone")
        try write(".build/checkouts/x/__Snapshots__/X/ignored.txt", "dependency")
        let before = ReferenceInventory.scan(root)
        #expect(before.files.count == 3)
        try write("Tests/A/__Snapshots__/ATests/rewritten.1.txt", "new content")
        try write("Tests/B/__Snapshots__/BTests/new.1.png", "png")
        try write("Tests/B/NotASnapshot.txt", "other")
        try FileManager.default.removeItem(at: root.appendingPathComponent("Tests/A/__Snapshots__/ATests/gone.1.txt"))
        let after = ReferenceInventory.scan(root)
        let prefix = root.standardizedFileURL.path + "/"
        #expect(
            after.written(since: before).map { String($0.dropFirst(prefix.count)) }
                == ["Tests/A/__Snapshots__/ATests/rewritten.1.txt", "Tests/B/__Snapshots__/BTests/new.1.png"])
        #expect(
            after.removed(since: before).map { String($0.dropFirst(prefix.count)) } == [
                "Tests/A/__Snapshots__/ATests/gone.1.txt"
            ])
        #expect(ReferenceInventory.snapshotFolders(below: root).count == 2)
    }
}
