#if canImport(UIKit)
    import BadgeUI
    import SnapshotTesting
    import XCTest

    /// Snapshot tests of the badge on the simulator. References live in
    /// `__Snapshots__/BadgeViewTests/<test>.1.png` beside this file, kept in the team's store.
    final class BadgeViewTests: XCTestCase {
        func testInbox() {
            assertSnapshot(of: BadgeView(title: "Inbox"), as: .image)
        }

        func testDrafts() {
            assertSnapshot(of: BadgeView(title: "Drafts"), as: .image)
        }
    }
#endif
