import ExampleKit
import XCTest

final class ThumbnailTests: XCTestCase {
    func testScalingDoublesTheSize() {
        let image = Thumbnail(width: 2, height: 3, fill: 7).scaled(by: 2)
        XCTAssertEqual(image.width, 4)
        XCTAssertEqual(image.height, 6)
        XCTAssertEqual(Set(image.pixels), [7])
    }

    func testMatchRatioOfDifferentSizesIsZero() {
        XCTAssertEqual(Thumbnail(width: 1, height: 1).matchRatio(Thumbnail(width: 2, height: 1)), 0)
    }

    func test_初期起動時_画像にhair0が表示されていること() {
        Switch.work(seconds: 0.2)
        var reference = Thumbnail(width: 4, height: 4)
        reference.pixels[0] = 255
        XCTAssertEqual(reference.matchRatio(Thumbnail(width: 4, height: 4)), 15.0 / 16.0)
    }

    func testFailsWhenAsked() {
        XCTAssertFalse(Switch.isOn("EXAMPLE_FAIL"), "EXAMPLE_FAIL=1 makes this test fail")
        // A probe of what a test process holds: EXAMPLE_FAIL_IF_SET names variables it must not see.
        let variables = ProcessInfo.processInfo.environment
        for name in (variables["EXAMPLE_FAIL_IF_SET"] ?? "").split(separator: ",").map(String.init) {
            XCTAssertNil(variables[name], "\(name) reached the test process")
        }
    }
}
