import XCTest

@testable import TestCore
@testable import TestSharding

final class XCTestOutputParserTests: XCTestCase {
    private let japanese = TestID("App.SnapshotTests/test_初期起動時_画像にhair0が表示されていること", framework: .xctest)
    private let failing = TestID("App.SnapshotTests/testFails", framework: .xctest)
    private let skipped = TestID("App.OtherTests/testSkipped", framework: .xctest)

    func testEventsFromLinuxOutputFedInArbitraryPieces() {
        let output = """
            Test Suite 'Selected tests' started at 2026-11-21 09:24:42.263
            Test Case 'SnapshotTests.test_初期起動時_画像にhair0が表示されていること' started at 2026-11-21 09:24:42.289
            some output of the test
            Test Case 'SnapshotTests.test_初期起動時_画像にhair0が表示されていること' passed (0.302 seconds)
            Test Case 'SnapshotTests.testFails' started at 2026-11-21 09:24:42.591
            /src/SnapshotTests.swift:24: error: SnapshotTests.testFails : XCTAssertEqual failed: ("1") is not equal to ("2")
            /src/SnapshotTests.swift:25: error: SnapshotTests.testFails : a second failure
            Test Case 'SnapshotTests.testFails' failed (0.010 seconds)
            Test Case 'OtherTests.testSkipped' started at 2026-11-21 09:24:42.600
            Test Case 'OtherTests.testSkipped' skipped (0.000 seconds)

            """
        let bytes = Array(output.utf8)
        // Every split point, including inside multi-byte characters, gives the same events.
        for split in stride(from: 0, to: bytes.count, by: 7) {
            var parser = XCTestOutputParser(tests: [japanese, failing, skipped])
            let events = parser.consume(bytes[..<split]) + parser.consume(bytes[split...])
            let finished = events.compactMap { event -> (TestID, TestStatus, Double, String?)? in
                guard case .finished(let test, let status, let seconds, let message, _) = event else { return nil }
                return (test, status, seconds, message)
            }
            XCTAssertEqual(finished.map(\.0), [japanese, failing, skipped], "split at \(split)")
            XCTAssertEqual(finished.map(\.1), [.passed, .failed, .skipped])
            XCTAssertEqual(finished.map(\.2), [0.302, 0.010, 0])
            XCTAssertEqual(
                finished[1].3, "SnapshotTests.testFails : XCTAssertEqual failed: (\"1\") is not equal to (\"2\")")
            XCTAssertEqual(events.filter { if case .started = $0 { true } else { false } }.count, 3)
        }
    }

    func testOutputRangeCoversTheTestsOwnLines() throws {
        let output =
            "Test Case 'SnapshotTests.testFails' started at x\nmine\nTest Case 'SnapshotTests.testFails' failed (0.1 seconds)\nafter\n"
        var parser = XCTestOutputParser(tests: [failing])
        guard case .finished(_, _, _, _, let range?) = parser.consume(Array(output.utf8)).last else { return XCTFail() }
        let text = String(decoding: Array(output.utf8)[range], as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("Test Case 'SnapshotTests.testFails' started"))
        XCTAssertTrue(text.contains("mine\n"))
        XCTAssertFalse(text.contains("after"))
    }

    func testMacOSFormatAndUnaskedTestsAreIgnored() {
        var parser = XCTestOutputParser(tests: [failing])
        let own = """
            Test Case '-[App.SnapshotTests testFails]' started.
            Test Case '-[App.SnapshotTests testFails]' passed (0.001 seconds).

            """
        let events = parser.consume(
            Array(
                (own + """
                    Test Case 'Unasked.testOther' started at x
                    Test Case 'Unasked.testOther' passed (0.1 seconds)

                    """).utf8))
        XCTAssertEqual(events.count, 2)
        XCTAssertEqual(
            events.last, .finished(failing, status: .passed, seconds: 0.001, message: nil, range: 0..<own.utf8.count))
    }
}

final class SwiftTestingEventParserTests: XCTestCase {
    private let parameterised = TestID("App.Suite/scales(factor:)", framework: .swiftTesting)
    private let free = TestID("App.スナップショットが一致すること()", framework: .swiftTesting)

    private func event(_ kind: String, _ id: String, at time: Double, extra: String = "") -> String {
        #"{"kind":"event","payload":{"instant":{"absolute":\#(time),"since1970":1},"kind":"\#(kind)","messages":[{"symbol":"default","text":"x"}],"testID":"\#(id)"\#(extra)},"version":0}"#
    }

    func testListedNameDropsTheSourceLocation() {
        XCTAssertEqual(
            SwiftTestingEventParser.listedName("App.Suite/scales(factor:)/File.swift:9:6"), "App.Suite/scales(factor:)")
        XCTAssertEqual(SwiftTestingEventParser.listedName("App.Suite"), "App.Suite")
        XCTAssertEqual(SwiftTestingEventParser.listedName("App.free()/テスト.swift:48:2"), "App.free()")
    }

    func testIssuesFailATestAndKnownIssuesDoNot() {
        let issue =
            #","issue":{"isKnown":false,"sourceLocation":{"fileID":"App/File.swift","line":12,"column":3,"_filePath":"/x"}}"#
        let known = #","issue":{"isKnown":true}"#
        let lines = [
            #"{"kind":"test","payload":{"id":"App.Suite/scales(factor:)/File.swift:9:6","kind":"function"},"version":0}"#,
            event("testStarted", "App.Suite", at: 0.5),
            event("testStarted", "App.Suite/scales(factor:)/File.swift:9:6", at: 1),
            event("issueRecorded", "App.Suite/scales(factor:)/File.swift:9:6", at: 1.1, extra: issue),
            event("testEnded", "App.Suite/scales(factor:)/File.swift:9:6", at: 1.5),
            event("testStarted", "App.スナップショットが一致すること()/File.swift:48:2", at: 2),
            event("issueRecorded", "App.スナップショットが一致すること()/File.swift:48:2", at: 2.1, extra: known),
            event("testEnded", "App.スナップショットが一致すること()/File.swift:48:2", at: 2.25),
            event("testEnded", "App.Suite", at: 3),
        ]
        var parser = SwiftTestingEventParser(tests: [parameterised, free])
        let events = parser.consume(Array((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(
            events,
            [
                .started(parameterised, offset: 0),
                .finished(parameterised, status: .failed, seconds: 0.5, message: "App/File.swift:12: x", range: nil),
                .started(free, offset: 0),
                .finished(free, status: .passed, seconds: 0.25, message: nil, range: nil),
            ])
    }

    func testARecordedIssueIsItsComment() {
        let id = "App.Suite/scales(factor:)/File.swift:9:6"
        let issue =
            #"{"kind":"event","payload":{"instant":{"absolute":1.1,"since1970":1},"kind":"issueRecorded","messages":["#
            + #"{"symbol":"fail","text":"Issue recorded"},{"symbol":"details","text":"Snapshot does not match reference."}],"#
            + #""testID":"\#(id)","issue":{"isKnown":false,"sourceLocation":{"fileID":"App/Cards/File.swift","line":12}}},"version":0}"#
        var parser = SwiftTestingEventParser(tests: [parameterised])
        let lines = [event("testStarted", id, at: 1), issue, event("testEnded", id, at: 1.5)]
        let events = parser.consume(Array((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(
            events.last,
            .finished(
                parameterised, status: .failed, seconds: 0.5,
                message: "App/Cards/File.swift:12: Snapshot does not match reference.", range: nil))
    }

    func testFiltersMatchTheIDExactlyWhateverTheNameHolds() throws {
        let names = [
            "App.Suite/scales(factor:)", "App.Suite/`names (a|b) [c] +? ^$ .*`()", "App.テスト()", "App.Suite/test",
        ]
        for name in names {
            let regex = try Regex(SwiftTestingFilter.pattern(for: TestID(name, framework: .swiftTesting)))
            XCTAssertNotNil(try regex.firstMatch(in: name + "/File.swift:3:4"), name)
            XCTAssertNotNil(try regex.firstMatch(in: name), name)
            XCTAssertNil(try regex.firstMatch(in: "X" + name + "/File.swift:3:4"), name)
            XCTAssertNil(try regex.firstMatch(in: name + "2/File.swift:3:4"), name)
        }
    }

    func testListingsKeepEveryNameAndSkipTheHeader() {
        let xctest = TestListing.parse(
            "Listing 2 tests in debug.xctest:\n\nApp.C/test_テスト\nApp.C/testB\n", framework: .xctest)
        XCTAssertEqual(xctest.map(\.name), ["App.C/test_テスト", "App.C/testB"])
        let both = TestListing.parse("App.C/testA\nApp.S/name(x:)\nApp.free()\n", framework: nil)
        XCTAssertEqual(both.map(\.framework), [.xctest, .swiftTesting, .swiftTesting])
    }
}

final class LogFileTests: XCTestCase {
    func testReadsARangeKeepingItsEnd() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("0123456789".utf8).write(to: url)
        XCTAssertEqual(LogFile.read(url, 2..<6, keepingLast: 100), "2345")
        XCTAssertEqual(LogFile.read(url, 0..<Int.max, keepingLast: 3), "[… 7 bytes of earlier output cut]\n789")
        XCTAssertEqual(LogFile.read(url, 20..<30, keepingLast: 3), "")
        XCTAssertNil(LogFile.read(url.appendingPathExtension("missing"), 0..<1, keepingLast: 3))
    }

    func testAHugeChunkOfOutputParsesWhole() {
        let test = TestID("App.Loud/testPrints", framework: .xctest)
        var output = "Test Case 'Loud.testPrints' started at x\n"
        output += String(repeating: "a line the test printed, again and again\n", count: 100_000)
        output += "Test Case 'Loud.testPrints' passed (1.5 seconds)\n"
        var parser = XCTestOutputParser(tests: [test])
        let events = parser.consume(Array(output.utf8))
        XCTAssertEqual(
            events.last, .finished(test, status: .passed, seconds: 1.5, message: nil, range: 0..<output.utf8.count))
    }
}
