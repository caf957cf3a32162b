import Foundation
import TestCore
import TestSharding
import Testing

@testable import XcodeResults

@Suite("xcodebuild's console and test enumerations")
struct ConsoleAndEnumerationTests {
    /// The counts a log states itself: its `Test Case '…' started` lines and its last
    /// `Executed N tests, with F failures` line.
    static func stated(_ text: String) -> (started: Int, executed: Int?, failures: Int?) {
        let started = text.split(separator: "\n").filter { $0.hasPrefix("Test Case '") && $0.hasSuffix("' started.") }
            .count
        let last = text.split(separator: "\n").last { $0.contains("Executed ") && $0.contains(" tests, with ") }
        let words = last?.split(separator: " ") ?? []
        let executed = words.firstIndex(of: "Executed").flatMap { Int(words[$0 + 1]) }
        let failures = words.firstIndex(of: "with").flatMap { Int(words[$0 + 1]) }
        return (started, executed, failures)
    }

    @Test("a serial XCTest log: the counts, failures and durations it states; its error line is the message")
    func serialLog() throws {
        let text = try Fixture.text("xcodebuild-logs/TestLog.txt")
        let report = try XcodebuildLogReader.read(Data(text.utf8), origin: "TestLog.txt").report(flakyFails: true)
        let stated = Self.stated(text)
        #expect(report.summary.total == stated.started && report.summary.total == stated.executed)
        #expect(report.summary.failed == stated.failures && report.summary.crashed == 0)
        let failed = try #require(report.tests.first { $0.status == .failed })
        #expect(failed.name == "XcbeautifyLibTests.XcbeautifyLibTests/testAggregateTarget" && failed.seconds == 0.119)
        #expect(failed.message?.contains("XcbeautifyLibTests.swift:13: XCTAssertEqual failed") == true, "\(failed)")
    }

    @Test("XCTest and Swift Testing in one log; Swift Testing's issue is its failure's message")
    func mixedLog() throws {
        let text = try Fixture.text("xcodebuild-logs/MixedTestLog_6_0_macOS.txt")
        let report = try XcodebuildLogReader.read(Data(text.utf8), origin: "m.txt").report(flakyFails: true)
        let statuses = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0.status) })
        #expect(report.summary.total == 6, "4 XCTest cases and 2 Swift Testing tests: \(statuses)")
        #expect(statuses["XcbeautifyLibTests.CaptureGroupTests/testForceFailure"] == .failed)
        #expect(statuses["testTrueIsTrue"] == .passed && statuses["testFailTrueIsFalse"] == .failed)
        let issue = report.tests.first { $0.name == "testFailTrueIsFalse" }?.message
        #expect(issue?.contains("Test.swift:17:9: Expectation failed: true == false") == true, "\(issue ?? "")")
    }

    @Test("a crash mid-test: the test that started and never finished crashed, with the cause")
    func crashLog() throws {
        let text = try Fixture.text("xcodebuild-logs/xctest_crash_log.txt")
        let report = try XcodebuildLogReader.read(Data(text.utf8), origin: "c.txt").report(flakyFails: true)
        #expect(report.summary.total == Self.stated(text).started)
        #expect((report.summary.passed, report.summary.crashed) == (6, 1))
        let crashed = try #require(report.tests.first { $0.status == .crashed })
        #expect(crashed.name == "DateTests.CalendarDay__Tests/testToday")
        #expect(crashed.message?.contains("Fatal error: This test is not implemented yet.") == true)
        #expect(!report.passed)
    }

    @Test("parallel testing's clone lines, and a restart after a crash is the next attempt")
    func parallelAndRestart() throws {
        let log = """
            Test suite 'LoginTests' started on 'Clone 1 of iPhone 13 mini - xctest (32505)'
            Test case 'LoginTests.testLogin()' passed on 'Clone 1 of iPhone 13 mini - xctest (32505)' (0.002 seconds)
            Test case 'LoginTests.testLogout()' failed on 'Clone 2 of iPhone 13 mini - xctest (32506)' (1,500 seconds)
            Test case 'LoginTests.testHelp()' skipped on 'Clone 2 of iPhone 13 mini - xctest (32506)' (0.000 seconds)
            Test Case '-[AppTests.ProfileTests testAvatar]' started.
            Restarting after unexpected exit, crash, or test timeout in ProfileTests.testAvatar(); summary will include totals from previous launches.
            Test Case '-[AppTests.ProfileTests testAvatar]' started.
            Test Case '-[AppTests.ProfileTests testAvatar]' passed (0.250 seconds).
            """
        let run = try XcodebuildLogReader.read(Data(log.utf8), origin: "p.txt")
        // A clone's line names no target: the timings' keys give it.
        let resolved = run.resolved(among: ["AppTests.LoginTests/testLogin", "AppTests.LoginTests/testLogout"])
        let report = resolved.report(flakyFails: true)
        let byName = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0) })
        #expect(byName["AppTests.LoginTests/testLogin"]?.status == .passed)
        #expect(byName["AppTests.LoginTests/testLogout"]?.seconds == 1.5)
        #expect(byName["LoginTests/testHelp"]?.status == .skipped, "no key names it: left without a target")
        let avatar = try #require(byName["AppTests.ProfileTests/testAvatar"])
        #expect(avatar.status == .flaky && avatar.attempts == 2)
    }

    @Test("a log with no test line is exit 7's error, naming the file")
    func noTestLines() {
        #expect {
            try XcodebuildLogReader.read(Data("Build succeeded\n** TEST FAILED **\n".utf8), origin: "empty.log")
        } throws: { error in
            guard case .noTests(let file, let reason) = error as? XcodeResultsError else { return false }
            return file == "empty.log" && reason.contains("in 2 line(s)")
        }
    }

    @Test("enumerations, flat and hierarchical, and an xcresult as a test list: one normal form")
    func enumerations() throws {
        let flat = try TestEnumeration.read(
            try Fixture.data("enumerate-tests/sift-flat-enumerate-tests.json"), origin: "f")
        #expect(flat.count == 6)
        #expect(flat.map(\.key).contains("DemoUnitTests.CalculatorTests/testAddition"))
        #expect(flat.first { $0.key == "DemoUnitTests.MathSuite/doublingIsEven(_:)" }?.framework == .swiftTesting)
        #expect(
            flat.first { $0.key == "DemoUnitTests.CalculatorTests/testAddition" }?.identifier
                == "DemoUnitTests/CalculatorTests/testAddition()", "-only-testing as enumerated")
        let tree = try TestEnumeration.read(
            try Fixture.data("enumerate-tests/chromium-hierarchical-enumerate-tests.json"), origin: "h")
        #expect(
            tree.map(\.key) == [
                "ios_chrome_ui_eg2tests_module-Runner_module.Class1/passedTest1",
                "ios_chrome_ui_eg2tests_module-Runner_module.Class1/passedTest2",
            ])
        let disabled = try TestEnumeration.read(
            try Fixture.data("enumerate-tests/chromium-hierarchical-enumerate-disabled-tests.json"), origin: "d")
        // Chromium names its disabled tests so; xcodebuild's own `disabled` flag is what leaves one out.
        #expect(disabled.map(\.key) == ["ios_chrome_ui_eg2tests_module-Runner_module.Class2/disabled_test3"])
        let flagged = """
            {"values": [{"kind": "plan", "name": "", "children": [{"kind": "target", "name": "App", "children": [
              {"kind": "class", "name": "A", "children": [{"kind": "test", "name": "testOn"},
                {"kind": "test", "name": "testOff", "disabled": true}]},
              {"kind": "class", "name": "B", "disabled": true, "children": [{"kind": "test", "name": "testB"}]}]}]}]}
            """
        #expect(try TestEnumeration.read(Data(flagged.utf8), origin: "d").map(\.key) == ["App.A/testOn"])
        let fromResult = try TestEnumeration.read(try Fixture.data(Fixture.xcresult), origin: "x")
        #expect(fromResult.count == 47)
        // The same test named by every source has one key.
        let names = [
            XcodeTestName(identifier: "App/LoginTests/testLogin()"),
            XcodeTestName(nodeIdentifier: "LoginTests/testLogin()", target: "App"),
            XcodeTestName(url: "test://com.apple.xcode/Project/App/LoginTests/testLogin"),
            XcodeTestName(printed: "-[App.LoginTests testLogin]"),
            XcodeTestName(printed: "App.LoginTests/testLogin()"),
        ]
        #expect(Set(names.map { $0?.key }) == ["App.LoginTests/testLogin"])
        #expect(
            XcodeTestName(key: "App.LoginTests/testLogin")
                == XcodeTestName(target: "App", suites: ["LoginTests"], method: "testLogin"))
        #expect(XcodeTestName(key: "App.Tests.LoginTests/testLogin").target == "App.Tests")
    }

    @Test("an empty enumeration is exit 7's error; another JSON is exit 3's, with its path")
    func badEnumerations() {
        #expect(throws: XcodeResultsError.noTests(file: "e.json", reason: "no enabled test")) {
            try TestEnumeration.read(
                Data("{\"values\": [{\"enabledTests\": []}], \"errors\": []}".utf8), origin: "e.json")
        }
        #expect {
            try TestEnumeration.read(
                Data("{\"values\": [{\"enabledTests\": [{\"identifier\": \"x\"}]}]}".utf8), origin: "e.json")
        } throws: { error in
            "\(error)".hasPrefix("e.json: $.values[0].enabledTests[0].identifier")
        }
        #expect(throws: XcodeResultsError.self) { try TestEnumeration.read(Data("{}".utf8), origin: "e.json") }
    }
}
