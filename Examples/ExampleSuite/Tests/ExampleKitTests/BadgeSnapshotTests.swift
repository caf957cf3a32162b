import ExampleKit
import SnapshotTesting
import Testing

/// The same library from Swift Testing: references in `__Snapshots__/BadgeSnapshotTests/`.
@Suite struct BadgeSnapshotTests {
    @Test func emptyBadge() {
        assertSnapshot(of: BadgeView(title: "Done", count: 0).render(), as: .png)
    }

    @Test func crowdedBadgeLayout() {
        assertSnapshot(of: BadgeView(title: "Mentions", count: 12).layout + Switch.renderedIn, as: .lines)
    }
}
