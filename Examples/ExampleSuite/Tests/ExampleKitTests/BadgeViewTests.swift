import ExampleKit
import Foundation
import SnapshotTesting
import XCTest

/// Snapshot tests of the badge "view", with swift-snapshot-testing: its rendering as a PNG (at
/// the team's precision, 0.985), its layout as text lines, and its value dumped. References live
/// in `__Snapshots__/BadgeViewTests/<test>.<n>.<ext>` beside this file.
final class BadgeViewTests: XCTestCase {
    func testBadgeImage() {
        assertSnapshot(of: BadgeView(title: "Inbox", count: 3).render(), as: .png)
    }

    func testBadgeLayout() {
        let layout = BadgeView(title: "Inbox", count: 7).layout + Switch.renderedIn
        if Switch.isOn("EXAMPLE_RECORD_IN_CODE") {
            assertLayout(layout)
        } else {
            assertSnapshot(of: layout, as: .lines)
        }
    }

    /// The helper many teams write, whose `record: false` default swift-snapshot-testing reads as
    /// `.missing`, ahead of SNAPSHOT_TESTING_RECORD (used only when EXAMPLE_RECORD_IN_CODE=1).
    private func assertLayout(
        _ layout: String, record: SnapshotTestingConfiguration.Record = false, file: StaticString = #filePath,
        testName: String = #function, line: UInt = #line
    ) {
        assertSnapshot(of: layout, as: .lines, record: record, file: file, testName: testName, line: line)
    }

    func test_初期起動時_バッジが表示されていること() {
        assertSnapshot(of: BadgeView(title: "受信箱", count: 0), as: .dump)
    }

    /// Misbehaves only when asked: records a reference in another test's folder
    /// (`__Snapshots__/ThumbnailTests/`), which `pipeline` must catch.
    func testRecordsElsewhereWhenAsked() throws {
        guard Switch.isOn("EXAMPLE_RECORD_ELSEWHERE") else { return }
        let elsewhere = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("__Snapshots__/ThumbnailTests").path
        _ = verifySnapshot(of: "stray", as: .lines, record: .all, snapshotDirectory: elsewhere)
    }
}
