import XCTest

@testable import TestCore
@testable import TestSharding

#if canImport(FoundationXML)
    import FoundationXML
#endif

final class TestReportTests: XCTestCase {
    private let a = TestID("App.C/testA", framework: .xctest)
    private let b = TestID("App.C/testB_初期起動時", framework: .xctest)
    private let c = TestID("App.S/flaky()", framework: .swiftTesting)
    private let d = TestID("App.S/gone()", framework: .swiftTesting)

    private func report(_ attempts: [TestAttempt], flakyFails: Bool = true) -> TestReport {
        let shards = [
            Shard(index: 1, tests: [a, b], expectedSeconds: 2), Shard(index: 2, tests: [c, d], expectedSeconds: 1),
        ]
        return TestReport(shards: shards, attempts: attempts, seconds: 3, node: .whole, flakyFails: flakyFails)
    }

    func testFailedThenPassedIsFlakyNeverPassed() {
        let result = report([
            TestAttempt(test: a, status: .passed, seconds: 1),
            TestAttempt(test: b, status: .timedOut, seconds: 5, message: "still running"),
            TestAttempt(test: c, status: .failed, seconds: 0.1, message: "boom", output: "log", attempt: 1),
            TestAttempt(test: c, status: .passed, seconds: 0.1, attempt: 2),
        ])
        XCTAssertEqual(result.tests.map(\.status), [.passed, .timedOut, .flaky, .missing])
        XCTAssertEqual(result.tests[2].attempts, 2)
        XCTAssertEqual(result.tests[2].message, "boom", "a flaky test keeps the failure that made it flaky")
        XCTAssertEqual(result.summaryLine, "1 passed, 3 failed, 0 skipped (1 flaky, 1 timed out, 1 missing)")
        XCTAssertFalse(result.passed)
        XCTAssertEqual(
            report(
                [
                    TestAttempt(test: c, status: .failed, seconds: 0),
                    TestAttempt(test: c, status: .passed, seconds: 0, attempt: 2),
                ],
                flakyFails: false
            ).summary.failed, 3, "only the three missing tests fail when flaky passes")
    }

    func testEveryTestExactlyOnce() {
        let result = report([
            TestAttempt(test: a, status: .passed, seconds: 1), TestAttempt(test: a, status: .passed, seconds: 1),
            TestAttempt(test: b, status: .passed, seconds: 1), TestAttempt(test: c, status: .passed, seconds: 1),
            TestAttempt(test: d, status: .passed, seconds: 1),
            TestAttempt(test: TestID("App.C/stranger", framework: .xctest), status: .passed, seconds: 1),
        ])
        XCTAssertEqual(result.summary.duplicated, 1)
        XCTAssertEqual(
            result.problems, ["App.C/testA ran 2 times in one attempt", "App.C/stranger ran without being asked for"])
        XCTAssertFalse(result.passed)
        let clean = report([a, b, c, d].map { TestAttempt(test: $0, status: .passed, seconds: 0.5) })
        XCTAssertTrue(clean.passed)
        XCTAssertEqual(clean.summaryLine, "4 passed, 0 failed, 0 skipped")
        XCTAssertEqual(clean.summary.idealSeconds, 1, "max(longest 0.5, 2 s over 2 shards)")
    }

    func testJUnitIsWellFormedAndCarriesEveryOutcome() throws {
        let result = report([
            TestAttempt(
                test: a, status: .failed, seconds: 1.5, message: "XCTAssertEqual failed: (\"<a & b>\")",
                output: "out\u{1B}[31m\u{0}"),
            TestAttempt(test: b, status: .crashed, seconds: 0.2, message: "signal 4"),
            TestAttempt(test: c, status: .failed, seconds: 0.1, message: "first"),
            TestAttempt(test: c, status: .passed, seconds: 0.1, attempt: 2),
            TestAttempt(test: d, status: .skipped, seconds: 0),
        ])
        let xml = JUnitReport.xml(result, flakyFails: false)
        let document = try XMLDocument(data: Data(xml.utf8))
        let cases = try document.nodes(forXPath: "//testcase")
        XCTAssertEqual(cases.count, 4)
        func element(_ path: String) throws -> XMLElement? { try document.nodes(forXPath: path).first as? XMLElement }
        let failure = try XCTUnwrap(element("//testcase[@name='testA']/failure"))
        XCTAssertEqual(failure.attribute(forName: "message")?.stringValue, "XCTAssertEqual failed: (\"<a & b>\")")
        XCTAssertEqual(try element("//testcase[@name='testA']")?.attribute(forName: "classname")?.stringValue, "App.C")
        XCTAssertEqual(try element("//testcase[@name='testA']")?.attribute(forName: "time")?.stringValue, "1.500")
        XCTAssertNotNil(try element("//testcase[@name='testB_初期起動時']/error[@type='crashed']"))
        XCTAssertNotNil(try element("//testcase[@name='flaky()']/flakyFailure"))
        XCTAssertNil(try element("//testcase[@name='flaky()']/failure"))
        XCTAssertNotNil(try element("//testcase[@name='gone()']/skipped"))
        XCTAssertEqual(try element("/testsuites")?.attribute(forName: "failures")?.stringValue, "1")
        XCTAssertEqual(try element("/testsuites")?.attribute(forName: "errors")?.stringValue, "1")
        let failing = try XMLDocument(data: Data(JUnitReport.xml(result, flakyFails: true).utf8))
        XCTAssertEqual(try failing.nodes(forXPath: "//testcase[@name='flaky()']/failure").count, 1)
    }

    func testJUnitStaysUnderItsBudgetKeepingEachFailuresEnd() throws {
        // 400 failures with 100 kB of output each: 40 MB of text, over GitLab's 30 MB a file.
        let attempts = (0..<400).map { index in
            var attempt = TestAttempt(
                test: TestID("App.Cards/test\(index)", framework: .xctest), status: .failed, seconds: 0.1,
                message: "Snapshot does not match reference. é",
                output: String(repeating: "é line\n", count: 12_500) + "the end \(index)")
            attempt.log = "/w/.build/pipeline/logs/shard-1.log"
            return attempt
        }
        func report(_ attempts: [TestAttempt]) -> TestReport {
            TestReport(
                shards: [Shard(index: 1, tests: attempts.map(\.test), expectedSeconds: 1)], attempts: attempts,
                seconds: 1, node: .whole, flakyFails: true)
        }
        let xml = JUnitReport.xml(report(attempts), flakyFails: true)
        XCTAssertLessThan(xml.utf8.count, JUnitReport.byteBudget + 1_000_000, "\(xml.utf8.count) bytes")
        let document = try XMLDocument(data: Data(xml.utf8))
        let failure = try XCTUnwrap(document.nodes(forXPath: "//testcase[@name='test7']/failure").first as? XMLElement)
        let text = try XCTUnwrap(failure.stringValue)
        XCTAssertTrue(
            text.hasPrefix("… ")
                && text.contains(
                    "bytes cut (the report's size limit); the whole is in /w/.build/pipeline/logs/shard-1.log\n"),
            String(text.prefix(200)))
        XCTAssertTrue(text.hasSuffix("the end 7"), "the end of the output, where the failure is, is kept")
        XCTAssertEqual(
            failure.attribute(forName: "message")?.stringValue, "Snapshot does not match reference. é",
            "a short message is whole")
        // A report that fits is whole.
        let small = JUnitReport.xml(report(Array(attempts.prefix(2))), flakyFails: true)
        XCTAssertFalse(small.contains("bytes cut"))
    }

    func testResultsTakenFromAVerifiedRunCountAndAreNamed() throws {
        let verified = report([a, b, c, d].map { TestAttempt(test: $0, status: .passed, seconds: 0.5) })
        let shard = Shard(index: 1, tests: [b], expectedSeconds: 1)
        var here = TestReport(
            shards: [shard], attempts: [TestAttempt(test: b, status: .passed, seconds: 0.5)], seconds: 1,
            node: .whole, flakyFails: true)
        here.take(verified.tests.filter { $0.name != b.name }, verifiedBy: "981")
        XCTAssertEqual(here.tests.map(\.name), [a, b, c, d].map(\.name).sorted())
        XCTAssertEqual(here.tests.map(\.verifiedBy), ["981", nil, "981", "981"])
        XCTAssertTrue(here.passed)
        XCTAssertEqual(here.summaryLine, "4 passed, 0 failed, 0 skipped; 3 of them not run here: verified in run 981")
        let document = try XMLDocument(data: Data(JUnitReport.xml(here, flakyFails: true).utf8))
        let named = try document.nodes(forXPath: "//testcase/properties/property[@name='verified-by']")
        XCTAssertEqual(named.count, 3)
        XCTAssertEqual((named.first as? XMLElement)?.attribute(forName: "value")?.stringValue, "981")
        XCTAssertEqual(try document.nodes(forXPath: "//testcase[@name='testB_初期起動時']/properties").count, 0)
    }

    func testGitHubAnnotationsPointAtTheFailingLineInOneEscapedLine() {
        let result = report([
            TestAttempt(test: a, status: .passed, seconds: 1),
            TestAttempt(
                test: b, status: .failed, seconds: 1,
                message: "/work/repo/Tests/AppTests/C Tests.swift:42: error: 100% wrong,\nsecond line"),
            TestAttempt(test: c, status: .failed, seconds: 0.1, message: "boom", attempt: 1),
            TestAttempt(test: c, status: .passed, seconds: 0.1, attempt: 2),
        ])
        let lines = GitHubReport.annotations(result, workspace: "/work/repo")
        XCTAssertEqual(
            lines,
            [
                // Errors first, a test that never reported before an assertion; warnings after.
                "::error title=App.S/gone() missing::never reported by any test process",
                "::error file=Tests/AppTests/C Tests.swift,line=42,title=App.C/testB_初期起動時 failed::"
                    + "/work/repo/Tests/AppTests/C Tests.swift:42: error: 100%25 wrong,",
                "::warning title=App.S/flaky() flaky::boom",
            ])
        let markdown =
            GitHubReport.counts(result, title: "tests") + GitHubReport.failureRows(result).joined(separator: "\n")
        XCTAssertTrue(markdown.hasPrefix("### ❌ tests\n"), markdown)
        XCTAssertTrue(markdown.contains("| `App.S/flaky()` | flaky | boom |"), markdown)
    }

    func testAnAnnotationKeepsItsFirstLineWholeToTheCommandItEndsWith() throws {
        let command = "pipeline refs accept ProfileViewTests --commit 0123456789abcdef0123456789abcdef01234567"
        let message =
            "/work/repo/Tests/AppTests/ProfileViewTests.swift:12: error: No reference was found on disk for "
            + String(repeating: "a very long snapshot name ", count: 8) + "; CI kept its rendering: " + command
        XCTAssertGreaterThan(message.count, 300)
        /// The annotation of test b (the report's other planned tests are missing).
        func annotation(_ message: String, workspace: String?) -> String {
            GitHubReport.annotations(
                report([TestAttempt(test: b, status: .failed, seconds: 1, message: message)]), workspace: workspace
            ).first { !$0.contains(" missing::") } ?? ""
        }
        let whole = annotation(message + "\nmore", workspace: "/work/repo")
        XCTAssertTrue(whole.hasSuffix(command), whole)
        let runaway = [annotation(String(repeating: "x", count: 5000), workspace: nil)]
        XCTAssertTrue(runaway[0].hasSuffix("x…"), "a runaway line is still shortened")
        // Swift Testing names a file by module and name: never read as the absolute '/File.swift'.
        let swiftTesting = [annotation("AppTests/BadgeTests.swift:12: failed", workspace: "/nonexistent/workspace")]
        XCTAssertFalse(swiftTesting[0].contains("file="), swiftTesting[0])
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: workspace) }
        try FileManager.default.createDirectory(
            at: workspace.appendingPathComponent("Tests/AppTests"), withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: workspace.appendingPathComponent("Tests/AppTests/BadgeTests.swift").path, contents: Data()))
        let found = [annotation("AppTests/BadgeTests.swift:12: failed", workspace: workspace.path)]
        XCTAssertTrue(found[0].hasPrefix("::error file=Tests/AppTests/BadgeTests.swift,line=12,"), found[0])
        // … in a folder of the module's.
        try FileManager.default.createDirectory(
            at: workspace.appendingPathComponent("Tests/AppTests/Cards"), withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: workspace.appendingPathComponent("Tests/AppTests/Cards/CardTests.swift").path, contents: Data())
        )
        let nested = [annotation("AppTests/CardTests.swift:7: failed", workspace: workspace.path)]
        XCTAssertTrue(nested[0].hasPrefix("::error file=Tests/AppTests/Cards/CardTests.swift,line=7,"), nested[0])
        XCTAssertLessThan(runaway[0].count, 2100)
    }
}
