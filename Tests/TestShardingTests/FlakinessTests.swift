import Foundation
import XCTest

@testable import TestCore
@testable import TestSharding

/// Quarantined failures, flakiness history in the timings, and the flake hunt's report.
final class FlakinessTests: XCTestCase {
    private let a = TestID("App.C/testA", framework: .xctest)
    private let b = TestID("App.C/testB", framework: .xctest)
    private let c = TestID("App.S/flaky()", framework: .swiftTesting)
    private let note = TestReport.QuarantineNote(owner: "@alice", reason: "hangs, #12", expires: "2026-12-01")

    private func report(_ statuses: [TestStatus], retried: Set<Int> = []) -> TestReport {
        let tests = [a, b, c]
        var attempts: [TestAttempt] = []
        for (index, status) in statuses.enumerated() {
            if retried.contains(index) {
                attempts.append(TestAttempt(test: tests[index], status: .failed, seconds: 1, message: "first"))
            }
            attempts.append(
                TestAttempt(
                    test: tests[index], status: status, seconds: 1, message: status == .passed ? nil : "boom",
                    attempt: retried.contains(index) ? 2 : 1))
        }
        return TestReport(
            shards: [Shard(index: 1, tests: tests, expectedSeconds: 3)], attempts: attempts, seconds: 3,
            node: .whole, flakyFails: true)
    }

    func testQuarantinedFailuresDoNotFailTheRunButAreShownApart() throws {
        var result = report([.passed, .failed, .timedOut])
        XCTAssertFalse(result.passed)
        result.quarantine { $0 == self.b.name ? self.note : nil }
        XCTAssertFalse(result.passed, "the unquarantined timeout still fails the run")
        XCTAssertEqual(result.notPassed, [c.name])
        result.quarantine { $0 == self.a.name ? nil : self.note }
        XCTAssertTrue(result.passed)
        XCTAssertEqual(result.notPassed, [], "--failed does not re-run quarantined tests")
        XCTAssertEqual(result.summary.quarantined, 2)
        XCTAssertEqual(result.summaryLine, "1 passed, 0 failed, 0 skipped (2 quarantined)")
        XCTAssertNil(result.tests[0].quarantine, "a passing test is never marked")
        let text = result.render()
        XCTAssertTrue(
            text.contains(
                "Quarantined (2, not failing the run):\n⊘ App.C/testB — failed — boom\n"
                    + "    quarantined by @alice until 2026-12-01: hangs, #12"), text)
        XCTAssertFalse(text.contains("✗"), text)

        let xml = JUnitReport.xml(result, flakyFails: true)
        XCTAssertTrue(xml.contains(#"failures="0" errors="0" skipped="2""#), xml)
        XCTAssertTrue(
            xml.contains(
                #"<property name="quarantined" value="quarantined by @alice until 2026-12-01: hangs, #12"/>"#
                    + #"<property name="status" value="timed-out"/>"#), xml)
        XCTAssertTrue(xml.contains(#"<skipped message="quarantined, failed: boom"/>"#), xml)

        let annotations = GitHubReport.annotations(result, workspace: nil)
        XCTAssertEqual(annotations.count, 2)
        XCTAssertTrue(
            annotations.allSatisfy { $0.hasPrefix("::warning title=") && $0.contains("(quarantined)") },
            "\(annotations)")
        XCTAssertTrue(
            (GitHubReport.counts(result, title: "t") + GitHubReport.failureRows(result).joined(separator: "\n"))
                .contains("| 1 | 0 | 0 | 0 | 0 | 0 | 2 |"))

        let decoded = try TestReport.decode(try result.encoded(), origin: "x")
        XCTAssertEqual(decoded.tests.map(\.quarantine), result.tests.map(\.quarantine))
        XCTAssertTrue(decoded.passed)

        let merged = TestReport(merging: [result], suite: [a, b, c], flakyFails: true)
        XCTAssertTrue(merged.passed, "the batches of a shared run keep their marks when merged")
    }

    func testFlakinessIsFlippingOnTheSameCode() throws {
        var timings = Timings()
        let commits = (0..<10).map { String(repeating: "\($0)", count: 40) }
        for (index, commit) in commits.enumerated() {
            // a breaks on some commits and is fixed on the next (changed with the code, never flaky);
            // b fails on every commit's first run and passes on its second (flipping on the same code);
            // c fails on every commit's first run, explained by its change (a rendering awaiting review).
            timings.add(
                report([index % 2 == 0 ? .failed : .passed, .failed, .failed]), commit: commit, explained: [c.name])
            timings.add(report([index % 2 == 0 ? .failed : .passed, .passed, .passed]), commit: commit)
        }
        XCTAssertEqual(
            timings.tests[a.name]?.history?.flips, 0, "failing on one commit, passing on the next is no flip")
        XCTAssertEqual(timings.tests[b.name]?.history?.flips ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(timings.tests[c.name]?.history?.flips, 0, "an explained failure leaves no history")
        XCTAssertEqual(timings.tests[c.name]?.history?.runs, 10, "only the runs that passed are counted")
        XCTAssertEqual(timings.flaky(threshold: 0.1).map(\.name), [b.name])
        XCTAssertEqual(timings.tests[b.name]?.history?.last, "\(commits[9].prefix(12)):passed")

        // A file written before commits were kept: its in-run flakiness counts as flips from then on.
        var old = Timings()
        for run in 0..<6 { old.add(report([.passed, .failed, .passed], retried: run % 2 == 0 ? [2] : [])) }
        XCTAssertNil(old.tests[c.name]?.history?.flips)
        XCTAssertEqual(old.flaky(threshold: 0.1).map(\.name), [c.name])
        old.add(report([.passed, .failed, .passed]), commit: commits[0])
        XCTAssertEqual(old.tests[c.name]?.history?.flips ?? 0, 3.0 / 7.0, accuracy: 1e-9)
        XCTAssertEqual(old.tests[b.name]?.history?.flips, 0, "failing every run is a breakage")
        let decoded = try Timings.decode(try old.encoded(), origin: "x")
        XCTAssertEqual(decoded, old)
    }

    func testHistoryKeepsRecentOutcomesAndNamesTheFlakyTests() throws {
        var timings = Timings()
        for run in 0..<10 {
            // c is flaky every other run, b fails every run, a always passes.
            timings.add(report([.passed, .failed, .passed], retried: run % 2 == 0 ? [2] : []))
        }
        XCTAssertEqual(timings.tests[a.name]?.history, Timings.History(runs: 10, flaky: 0, failed: 0))
        XCTAssertEqual(timings.tests[c.name]?.history?.runs, 10)
        XCTAssertEqual(timings.tests[c.name]?.history?.flaky ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(timings.tests[b.name]?.history?.failed ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(
            timings.flaky(threshold: 0.1).map(\.name), [c.name], "a test failing every time is broken, not flaky")
        XCTAssertEqual(timings.flaky(threshold: 0.6).map(\.name), [])
        XCTAssertEqual(timings.flaky(threshold: 0.1, minimumRuns: 11).map(\.name), [], "too few runs to say")

        for _ in 0..<30 { timings.add(report([.passed, .passed, .passed])) }
        XCTAssertEqual(timings.tests[c.name]?.history?.runs, Timings.historyWindow)
        XCTAssertLessThan(timings.tests[c.name]?.history?.flaky ?? 1, 0.1, "old flakiness fades as clean runs come in")

        var other = Timings()
        other.add(report([.failed, .passed, .passed], retried: [0]))
        var left = timings
        var right = other
        left.merge(other)
        right.merge(timings)
        XCTAssertEqual(left, right, "merging keeps history independent of the order")
        XCTAssertEqual(left.tests[a.name]?.history?.runs, Timings.historyWindow)

        let data = try timings.encoded()
        XCTAssertEqual(try Timings.decode(data, origin: "t"), timings)
        let old = Data(#"{"version": 1, "tests": {"App.C/testA": {"seconds": 1, "samples": 2}}}"#.utf8)
        XCTAssertNil(try Timings.decode(old, origin: "t").tests[a.name]?.history, "files without history still read")
        let bad = Data(
            #"{"version": 1, "tests": {"x": {"seconds": 1, "samples": 2, "history": {"runs": 3, "flaky": 2, "failed": 0}}}}"#
                .utf8)
        XCTAssertThrowsError(try Timings.decode(bad, origin: "t.json")) { error in
            XCTAssertEqual("\(error)".contains("t.json"), true, "\(error)")
        }
    }

    func testRepeatReportCountsEachRunAndKeepsTheFirstFailure() {
        let attempts = [
            TestAttempt(test: a, status: .passed, seconds: 1, attempt: 1),
            TestAttempt(test: b, status: .passed, seconds: 2, attempt: 1),
            TestAttempt(test: a, status: .failed, seconds: 1, message: "first", output: "out", attempt: 2),
            TestAttempt(test: b, status: .passed, seconds: 4, attempt: 2),
            TestAttempt(test: a, status: .timedOut, seconds: 10, message: "hung", attempt: 3),
            // b never reported in run 3; a run past the completed ones does not count.
            TestAttempt(test: a, status: .failed, seconds: 1, attempt: 4),
        ]
        let hunt = RepeatReport(
            tests: [a, b], attempts: attempts, requested: 5, completed: 3, stoppedEarly: true, seconds: 9,
            timeout: .seconds(10))
        XCTAssertEqual(hunt.tests.map(\.name), [a.name, b.name], "the most often failing first")
        let first = hunt.tests[0]
        let second = hunt.tests[1]
        XCTAssertEqual([first.runs, first.passed, first.failed, first.timedOut], [3, 1, 1, 1])
        XCTAssertEqual(first.failureRate, 2.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(first.firstFailure?.run, 2)
        XCTAssertEqual(first.firstFailure?.output, "out")
        XCTAssertEqual(first.maxSeconds, 10)
        XCTAssertEqual([second.passed, second.missing], [2, 1])
        XCTAssertEqual(second.firstFailure?.run, 3)
        XCTAssertEqual(second.firstFailure?.status, .missing)
        XCTAssertEqual(second.meanSeconds, 3)
        XCTAssertFalse(hunt.passed)
        let text = hunt.render()
        XCTAssertTrue(text.contains(" 66.7%  2/3  App.C/testA (1 timed out after 10 s)"), text)
        XCTAssertTrue(text.contains("first failure of App.C/testA: run 2, failed\n    first\n    | out"), text)
        XCTAssertTrue(
            text.hasSuffix(
                "2 tests run 3 times (stopped at the first failing run of 5) in 9.0 s: 2 failed at least once"), text)

        let clean = RepeatReport(
            tests: [a], attempts: [TestAttempt(test: a, status: .passed, seconds: 1, attempt: 1)], requested: 1,
            completed: 1, stoppedEarly: false, seconds: 1, timeout: .seconds(5))
        XCTAssertTrue(clean.passed)
        XCTAssertEqual(clean.tests[0].failureRate, 0)
    }
}
