import BadgeUI
import XCTest

final class BadgeCountTests: XCTestCase {
    func testSmallCounts() {
        XCTAssertEqual(BadgeCount.text(7), "7")
    }

    func testLargeCounts() {
        XCTAssertEqual(BadgeCount.text(120), "99+")
    }
}
