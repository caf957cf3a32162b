import XCTest

@testable import TestCore
@testable import TestSharding

final class TimingsTests: XCTestCase {
    private let test = TestID("M.C/test_初期起動時", framework: .xctest)

    private func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("timings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testRecordKeepsARunningMeanOverRecentSamples() {
        var timings = Timings()
        timings.add(test, seconds: 2)
        timings.add(test, seconds: 4)
        XCTAssertEqual(timings[test], 3)
        for _ in 0..<40 { timings.add(test, seconds: 10) }
        XCTAssertEqual(timings[test]!, 10, accuracy: 0.1, "old samples fade")
        XCTAssertEqual(timings.tests[test.name]?.samples, Timings.memory)
    }

    func testMergingTwoMachinesFilesIsOrderIndependent() {
        var first = Timings()
        var second = Timings()
        first.add(test, seconds: 1)
        first.add(TestID("M.C/a", framework: .xctest), seconds: 5)
        second.add(test, seconds: 3)
        second.add(TestID("M.C/b", framework: .xctest), seconds: 7)
        var ab = first
        var ba = second
        ab.merge(second)
        ba.merge(first)
        XCTAssertEqual(ab, ba)
        XCTAssertEqual(ab[test], 2)
        XCTAssertEqual(ab.tests.count, 3)
    }

    func testSaveAndLoadRoundTripAndAMissingFileIsEmpty() throws {
        let url = try scratch().appendingPathComponent("nested/timings.json")
        XCTAssertEqual(try Timings.load(url), Timings())
        var timings = Timings()
        timings.add(test, seconds: 1.5)
        try timings.save(url)
        XCTAssertEqual(try Timings.load(url), timings)
    }

    func testUnreadableFilesNameTheFileAndTheProblem() throws {
        let folder = try scratch()
        let cases = [
            ("not json", "not JSON of the timings format"),
            (#"{"version": 2, "tests": {}}"#, "format version 2, expected 1"),
            (#"{"version": 1, "tests": {"M.C/t": {"seconds": -1, "samples": 1}}}"#, "negative"),
            (#"{"version": 1, "tests": {"M.C/t": {"seconds": "x", "samples": 1}}}"#, "tests.M.C/t.seconds"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let url = folder.appendingPathComponent("t\(index).json")
            try Data(text.utf8).write(to: url)
            XCTAssertThrowsError(try Timings.load(url)) { error in
                guard case .unreadableTimings(let path, let reason) = error as? TestRunError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(path, url.path)
                XCTAssertTrue(reason.contains(expected), "\(reason) should mention \(expected)")
            }
        }
    }

    func testRecentDurationsGiveAP90AndMergeInEitherOrder() {
        var timings = Timings()
        for seconds in [0.5, 0.4, 2.0, 0.45] { timings.add(test, seconds: seconds) }
        XCTAssertNil(timings.tests[test.name]?.p90(), "four runs are too few")
        timings.add(test, seconds: 0.5)
        XCTAssertEqual(timings.tests[test.name]?.p90(), 2.0)
        for _ in 0..<12 { timings.add(test, seconds: 0.3) }
        XCTAssertEqual(
            timings.tests[test.name]?.recent, Array(repeating: 0.3, count: Timings.recentWindow), "the last 10")
        var other = Timings()
        for seconds in [1.0, 0.2] { other.add(test, seconds: seconds) }
        var ab = timings
        var ba = other
        ab.merge(other)
        ba.merge(timings)
        XCTAssertEqual(ab, ba)
        XCTAssertEqual(
            ab.tests[test.name]?.recent?.last, 1.0,
            "the slowest of both kept: \(String(describing: ab.tests[test.name]))")
    }

    func testHistoryLimitsAreFactorTimesP90WithAFloorUnderTheCeiling() {
        var timings = Timings()
        let slow = TestID("M.C/slow", framework: .xctest)
        let quick = TestID("M.C/quick", framework: .xctest)
        let new = TestID("M.C/new", framework: .xctest)
        for _ in 0..<5 {
            timings.add(slow, seconds: 20)
            timings.add(quick, seconds: 0.01)
        }
        timings.add(new, seconds: 1)
        let limits = HistoryTimeout.standard.limits(timings, ceiling: .seconds(600))
        XCTAssertEqual(limits[slow.name]?.limit, .seconds(200))
        XCTAssertEqual(limits[quick.name]?.limit, .seconds(60), "the floor")
        XCTAssertEqual(limits[quick.name]?.runs, 5)
        XCTAssertNil(limits[new.name], "one run: no evidence")
        let low = HistoryTimeout.standard.limits(timings, ceiling: .seconds(100))
        XCTAssertNil(low[slow.name], "the timeout stays the ceiling")
        XCTAssertEqual(low[quick.name]?.limit, .seconds(60))
    }

    func testNegativeRecentDurationsAreRefused() throws {
        let url = try scratch().appendingPathComponent("t.json")
        try Data(#"{"version": 1, "tests": {"M.C/t": {"seconds": 1, "samples": 1, "recent": [1, -2]}}}"#.utf8).write(
            to: url)
        XCTAssertThrowsError(try Timings.load(url))
    }
}
