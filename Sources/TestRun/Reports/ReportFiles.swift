import Foundation
import TestCore
import TestSharding

/// Where a run's final report is written, always together so they never disagree: the JUnit file
/// when one was asked for, and the package's `last-run.json`, which `--failed` reads. A run, a
/// verified tree, a run that took part of its verdict from another, and a shared run's report
/// all write through here.
public struct ReportFiles: Sendable {
    public let junit: URL?
    public let package: URL

    public init(junit: URL?, package: URL) {
        self.junit = junit
        self.package = package
    }

    /// Writes the report to both. The JUnit file's failure throws (the CI's test-report step
    /// expects it); last-run.json's is returned as a note, since the run's outcome stands without it.
    public func write(_ report: TestReport) throws(TestRunError) -> String? {
        if let junit { try JUnitReport.write(report, to: junit) }
        do {
            try report.save(TestSession.lastRun(of: package))
            return nil
        } catch {
            return "\(error)"
        }
    }
}
