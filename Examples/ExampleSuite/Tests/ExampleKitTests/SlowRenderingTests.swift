import ExampleKit
import Foundation
import XCTest

/// Tests of varied durations, so shards have something to balance.
final class SlowRenderingTests: XCTestCase {
    func testRendersLargeCanvas() {
        // EXAMPLE_LONG_SECONDS=N makes this the suite's one long test (scripts/bench-test.sh).
        Switch.work(seconds: ProcessInfo.processInfo.environment["EXAMPLE_LONG_SECONDS"].flatMap(Double.init) ?? 1.6)
        XCTAssertEqual(Thumbnail(width: 8, height: 8).scaled(by: 8).pixels.count, 4096)
    }

    func testRendersMediumCanvas() {
        Switch.work(seconds: 0.9)
        XCTAssertEqual(Thumbnail(width: 8, height: 8).scaled(by: 4).pixels.count, 1024)
    }

    func testRendersSmallCanvas() {
        Switch.work(seconds: 0.4)
        XCTAssertEqual(Thumbnail(width: 8, height: 8).scaled(by: 2).pixels.count, 256)
    }

    func testRendersIcon() {
        Switch.work(seconds: 0.7)
        XCTAssertEqual(Thumbnail(width: 8, height: 8).pixels.count, 64)
    }

    func testRendersBanner() {
        Switch.work(seconds: 1.1)
        XCTAssertEqual(Thumbnail(width: 16, height: 2).scaled(by: 3).width, 48)
    }
}

/// Tests that misbehave only when asked.
final class FaultyTests: XCTestCase {
    func testHangsWhenAsked() {
        Switch.hangIfAsked("EXAMPLE_HANG")
    }

    func testCrashesWhenAsked() {
        if Switch.isOn("EXAMPLE_CRASH") {
            fatalError("EXAMPLE_CRASH=1 makes this test crash")
        } else if Switch.isOn("EXAMPLE_EXIT") {
            exit(1)  // as a command-line library's exit(withError:) does
        }
    }

    func testFlakyWhenAsked() {
        XCTAssertFalse(Switch.flakyShouldFail("FaultyTests.testFlakyWhenAsked"), "fails on its first attempt")
    }

    func testAfterTheFaults() {
        Switch.work(seconds: 0.3)
    }
}
