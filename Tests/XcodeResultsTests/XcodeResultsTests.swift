import Foundation
import TestCore
import TestSharding
import Testing

@testable import XcodeResults

/// Real recorded Xcode outputs (Fixtures/NOTICE.md gives each one's source and licence).
enum Fixture {
    static let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func data(_ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }
    static func text(_ path: String) throws -> String { String(decoding: try data(path), as: UTF8.self) }

    static let xcresult = "xcresult-tests/Xcode16-Mixed-XCTest-SwiftTesting.json"
}

@Suite("Xcode's outputs read into pipeline's report: xcresult tests JSON, xcodebuild's console, enumerations")
struct XcodeResultsTests {
    @Test("xcresult of Xcode 16: every test case once, with the fixture's own results, retries and durations")
    func xcresult() throws {
        let data = try Fixture.data(Fixture.xcresult)
        let run = try XCResultReader.read(data, origin: "x.json")
        // The fixture's own counts: every "Test Case" node and its "result", read without the reader.
        let text = String(decoding: data, as: UTF8.self)
        let cases = text.components(separatedBy: "\"nodeType\" : \"Test Case\"").count - 1
        #expect(cases == 47)
        let report = run.report(flakyFails: true)
        #expect(report.summary.total == cases)
        #expect(
            (report.summary.passed, report.summary.failed, report.summary.skipped, report.summary.flaky) == (
                28, 12, 7, 0
            ),
            "\(report.summary)")
        let byName = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0) })
        // A UI test retried twice, failing both times: two attempts, the last one's duration.
        let ui = try #require(byName["FastlaneTrainerExampleUITests.FastlaneTrainerExampleUITests/testBasicNavigation"])
        #expect(ui.status == .failed && ui.attempts == 2 && ui.seconds == 8 && ui.framework == .xctest)
        #expect(ui.message?.contains("FastlaneTrainerExampleUITests.swift:43: Failed to tap") == true)
        // Durations in the locale's decimal comma; nested Swift Testing suites keep their path.
        let nested = try #require(
            byName[
                "FastlaneTrainerExampleTests.FastlaneTrainerTests/UserTests/RegistrationTests/PasswordTests/testPasswordComplexity"
            ])
        #expect(nested.status == .passed && nested.seconds == 0.0095 && nested.framework == .swiftTesting)
        // Parameterised and repeated: a round fails when any argument's repetition failed.
        let flags = try #require(
            byName["FastlaneTrainerExampleTests.FastlaneTrainerTests/SkipTests/FeatureFlagTests/testFeatureFlag(_:)"])
        #expect(flags.status == .failed && flags.attempts == 2 && flags.message?.contains("premium_feature") == true)
        // An identifier without parentheses is the same test as one with them.
        #expect(
            byName["FastlaneTrainerExampleUITests.FastlaneTrainerExampleUITestsLaunchTests/testLaunch"]?.status
                == .passed)
    }

    @Test("a failure followed by a passing repetition is flaky; later fields are read when present")
    func flakyAndLaterFields() throws {
        let json = """
            {"testNodes": [{"nodeType": "Unit test bundle", "name": "AppTests", "result": "Passed", "children": [
              {"nodeType": "Test Case", "name": "testLogin()", "nodeIdentifier": "LoginTests/testLogin()",
               "nodeIdentifierURL": "test://com.apple.xcode/App/AppTests/LoginTests/testLogin",
               "result": "Passed", "duration": "3s", "durationInSeconds": 2.75, "futureField": [1, 2],
               "children": [
                 {"nodeType": "Repetition", "name": "Retry 1", "result": "Failed", "durationInSeconds": 2.5,
                  "children": [{"nodeType": "Failure Message", "name": "LoginTests.swift:9: timed out", "result": "Failed"}]},
                 {"nodeType": "Repetition", "name": "Retry 2", "result": "Passed", "duration": "1m 2,5s"},
                 {"nodeType": "Some Future Node", "name": "x"}]},
              {"nodeType": "Future Container", "children": [
                {"nodeType": "Test Case", "name": "testLogout()", "nodeIdentifier": "LoginTests/testLogout()",
                 "result": "Expected Failure", "duration": "0,5s"}]}]}]}
            """
        let report = try XCResultReader.read(Data(json.utf8), origin: "t.json").report(flakyFails: true)
        let byName = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0) })
        let login = try #require(byName["AppTests.LoginTests/testLogin"])
        #expect(login.status == .flaky && login.attempts == 2 && login.seconds == 62.5)
        #expect(byName["AppTests.LoginTests/testLogout"]?.status == .passed, "an expected failure passes")
        #expect(!report.passed, "flaky fails the run under the flaky: fail policy")
        #expect(
            try XCResultReader.read(Data(json.utf8), origin: "t.json").report(flakyFails: false).passed,
            "and passes under flaky: pass")
    }

    @Test("the legacy object graph: test summaries read; the invocation record names the --id to ask for")
    func legacy() throws {
        func value(_ text: String, _ type: String = "String") -> String {
            #"{"_type": {"_name": "\#(type)"}, "_value": "\#(text)"}"#
        }
        func array(_ items: [String]) -> String {
            #"{"_type": {"_name": "Array"}, "_values": [\#(items.joined(separator: ","))]}"#
        }
        func test(_ identifier: String, _ status: String, _ seconds: String) -> String {
            #"{"_type": {"_name": "ActionTestMetadata"}, "identifier": \#(value(identifier)), "testStatus": \#(value(status)), "duration": \#(value(seconds, "Double"))}"#
        }
        let group =
            #"{"_type": {"_name": "ActionTestSummaryGroup"}, "name": \#(value("LoginTests")), "subtests": \#(array([test("LoginTests/testLogin()", "Failure", "0.5"), test("LoginTests/testLogout()", "Success", "0.25")]))}"#
        let testable =
            #"{"_type": {"_name": "ActionTestableSummary"}, "targetName": \#(value("AppTests")), "tests": \#(array([group, test("LoginTests/testLogin()", "Success", "0.4")]))}"#
        let summaries =
            #"{"_type": {"_name": "ActionTestPlanRunSummaries"}, "summaries": \#(array([#"{"_type": {"_name": "ActionTestPlanRunSummary"}, "testableSummaries": \#(array([testable]))}"#]))}"#
        let report = try XCResultReader.read(Data(summaries.utf8), origin: "l.json").report(flakyFails: true)
        let byName = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0) })
        #expect(
            byName["AppTests.LoginTests/testLogin"]?.status == .flaky
                && byName["AppTests.LoginTests/testLogin"]?.attempts == 2)
        #expect(byName["AppTests.LoginTests/testLogout"]?.seconds == 0.25)
        let record =
            #"{"_type": {"_name": "ActionsInvocationRecord"}, "actions": \#(array([#"{"_type": {"_name": "ActionRecord"}, "actionResult": {"_type": {"_name": "ActionResult"}, "testsRef": {"_type": {"_name": "Reference"}, "id": \#(value("0~abc"))}}}"#]))}"#
        #expect {
            try XCResultReader.read(Data(record.utf8), origin: "r.json")
        } throws: { "\($0)".contains("--id 0~abc") }
    }

    @Test("bad input: one line naming the file and the JSON path; no test is its own error")
    func badXCResult() throws {
        let cases: [(String, String)] = [
            ("", "the file is empty"),
            ("{\"testNodes\": [", "not JSON"),
            ("[1, 2]", "$: a JSON array"),
            ("{\"issues\": {}}", "$.testNodes: missing"),
            ("{\"_type\": {\"_name\": \"ActionsInvocationRecord\"}}", "the legacy invocation record holds no tests"),
        ]
        for (text, reason) in cases {
            #expect {
                try XCResultReader.read(Data(text.utf8), origin: "r.json")
            } throws: { error in
                guard case .notReadable(let file, let said) = error as? XcodeResultsError else { return false }
                return file == "r.json" && said.contains(reason) && !said.contains("\n")
            }
        }
        #expect(throws: XcodeResultsError.noTests(file: "r.json", reason: "no test case in $.testNodes")) {
            try XCResultReader.read(Data("{\"testNodes\": [{\"nodeType\": \"Test Plan\"}]}".utf8), origin: "r.json")
        }
    }
}

@Suite("per-node .xctestrun files")
struct XctestrunTests {
    func plist(_ data: Data) throws -> [String: Any] {
        try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("format 1: the node's targets run only its tests, a target with none is left out, the rest kept")
    func formatOne() throws {
        let url = Fixture.root.appendingPathComponent("xctestrun/fake.xctestrun")
        let run = try Xctestrun(contentsOf: url)
        #expect(run.targets == ["Atomic Boy Tests", "AtomicBoyUITests"])
        let data = try run.only([
            XcodeTestName(target: "Atomic Boy Tests", suites: ["HappyNapperTests"], method: "testNap"),
            XcodeTestName(target: "Atomic Boy Tests", suites: ["Outer", "Inner"], method: "f(_:)"),
        ])
        let root = try plist(data)
        let target = try #require(root["Atomic Boy Tests"] as? [String: Any])
        #expect(target["OnlyTestIdentifiers"] as? [String] == ["HappyNapperTests/testNap", "Outer/Inner/f(_:)"])
        #expect((target["SkipTestIdentifiers"] as? [String])?.contains("GrumpyWorkerTests") == true)
        #expect(root["AtomicBoyUITests"] == nil && root["__xctestrun_metadata__"] != nil)
        #expect {
            try run.only([XcodeTestName(target: "Nope", suites: ["A"], method: "testB")])
        } throws: { "\($0)".contains("no test target named Nope") }
    }

    @Test("format 2: TestConfigurations' targets, by BlueprintName")
    func formatTwo() throws {
        let run = try Xctestrun(contentsOf: Fixture.root.appendingPathComponent("xctestrun/format-version-2.xctestrun"))
        #expect(run.targets == ["TestAppUITests"])
        let root = try plist(try run.only([XcodeTestName(identifier: "TestAppUITests/LaunchTests/testLaunch()")!]))
        let targets = (root["TestConfigurations"] as? [[String: Any]])?.first?["TestTargets"] as? [[String: Any]]
        #expect(targets?.first?["OnlyTestIdentifiers"] as? [String] == ["LaunchTests/testLaunch()"])
        #expect(throws: XcodeResultsError.self) {
            try Xctestrun(contentsOf: Fixture.root.appendingPathComponent("xctestplan/Fake.xctestplan"))
        }
    }
}
