import Foundation
import TestCore
import TestSupport
import Testing

@testable import TestRun

/// The JUnit file and last-run.json are written by one writer, from one report.
@Suite("a run's report files")
struct ReportFilesTests {
    static func report() -> TestReport {
        let one = TestID("AppTests.A/testOne", framework: .xctest)
        let two = TestID("AppTests.A/testTwo", framework: .xctest)
        return TestReport(
            shards: [Shard(index: 1, tests: [one, two], expectedSeconds: 1)],
            attempts: [
                TestAttempt(test: one, status: .passed, seconds: 0.5),
                TestAttempt(test: two, status: .failed, seconds: 0.2, message: "boom"),
            ], seconds: 1, node: .whole, flakyFails: true)
    }

    @Test("both files hold the same tests; --failed's reader sees the failure the JUnit file shows")
    func bothWritten() throws {
        let package = try Scratch.folder("report-files")
        defer { try? FileManager.default.removeItem(at: package) }
        let junit = package.appendingPathComponent("out/junit.xml")
        try FileManager.default.createDirectory(
            at: junit.deletingLastPathComponent(), withIntermediateDirectories: true)
        let note = try ReportFiles(junit: junit, package: package).write(Self.report())
        #expect(note == nil)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count == 3)
        #expect(xml.contains("testTwo") && xml.contains("<failure"))
        let last = try TestReport.load(TestSession.lastRun(of: package))
        #expect(last.tests.map(\.name) == ["AppTests.A/testOne", "AppTests.A/testTwo"])
        #expect(last.notPassed == ["AppTests.A/testTwo"])
    }

    @Test("a last run that cannot be written is a note; the JUnit file is still written")
    func lastRunUnwritable() throws {
        let package = try Scratch.folder("report-files")
        defer { try? FileManager.default.removeItem(at: package) }
        // A file where the work folder should be.
        try Data().write(to: package.appendingPathComponent(".build"))
        let junit = package.appendingPathComponent("junit.xml")
        let note = try ReportFiles(junit: junit, package: package).write(Self.report())
        #expect(note?.contains("last-run.json") == true, "\(note ?? "no note")")
        #expect(FileManager.default.fileExists(atPath: junit.path))
    }
}
