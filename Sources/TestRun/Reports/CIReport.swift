import CISystem
import Coverage
import Foundation
import SnapshotReview
import TestCore
import TestSharding

/// Test results where the CI system shows them: on GitHub Actions (GITHUB_ACTIONS=true), an
/// annotation per failing test on standard error and a Markdown summary in $GITHUB_STEP_SUMMARY,
/// with the coverage totals when coverage was measured.
public enum CIReport {
    /// `annotate: false` for a report merged from nodes that annotated their own tests.
    public static func publish(
        _ report: TestReport, coverage: CoverageReport? = nil, title: String, review: CIReview? = nil,
        package: URL? = nil, annotate: Bool = true, variables: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let ci = CIContext(variables)
        guard let gitHub = ci.gitHub else { return }
        let readAt = places(review: review, ci: ci)
        let snapshots = snapshotTests(report)
        if annotate {
            for line in annotations(
                report, review: review, package: package, variables: variables, snapshots: snapshots)
            {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        }
        guard let path = gitHub.summary, let handle = FileHandle(forWritingAtPath: path) else {
            return
        }
        handle.seekToEndOfFile()
        handle.write(
            Data(
                summary(
                    report, title: title, review: review, coverage: coverage, snapshotTests: snapshots,
                    elsewhere: readAt.isEmpty ? "the job's log" : readAt.joined(separator: " and "),
                    runPage: ci.gitHubRunPage
                ).utf8))
        handle.closeFile()
    }

    /// Where every failure can be read: links that open on GitHub, never a path on the runner.
    static func places(review: CIReview?, ci: CIContext) -> [String] {
        [
            review.map(\.published.page).flatMap { $0.hasPrefix("http") ? "the review page (\($0))" : nil },
            ci.gitHubRunPage.map { "the run's log and artifacts (\($0))" },
        ].compactMap { $0 }
    }

    /// The tests that failed only on their snapshots (a mismatch, a missing or recorded reference).
    static func snapshotTests(_ report: TestReport) -> Set<String> {
        Set(
            report.tests.filter { SnapshotCheck.failedOnReferences(status: $0.status, text: [$0.message, $0.output]) }
                .map(\.name))
    }

    /// The step's annotations: within GitHub's limits, crashes, timeouts and other failures first,
    /// tests that failed only on their snapshots last, the last one saying where all of them are.
    static func annotations(
        _ report: TestReport, review: CIReview?, package: URL?, variables: [String: String],
        snapshots: Set<String>? = nil
    ) -> [String] {
        let ci = CIContext(variables)
        return GitHubReport.annotations(
            report, workspace: ci.gitHub?.workspace, package: package?.path,
            snapshotTests: snapshots ?? snapshotTests(report),
            elsewhere: (["this step's summary"] + places(review: review, ci: ci)).joined(separator: " and "))
    }

    /// GitHub drops a step's summary whole when it passes 1 MiB (accept command included): this one
    /// stays under 400 kB whatever the run's size, leaving room for the other steps' output.
    static let summaryBudget = 400_000

    /// The step's summary within `budget` bytes: the counts, the review's lead (its page, the one
    /// command that accepts every rendering, a command per file), the coverage, then as many of
    /// the failed tests (grouped by kind) and of the snapshots' details as fit, and how many more
    /// are in `elsewhere`.
    static func summary(
        _ report: TestReport, title: String, review: CIReview?, coverage: CoverageReport?,
        snapshotTests: Set<String> = [], elsewhere: String, runPage: String? = nil, budget: Int = summaryBudget
    ) -> String {
        var text =
            GitHubReport.counts(report, title: title) + GitHubReport.notRunHere(report)
            + (review?.lead(runPage: runPage) ?? "")
            + (coverage?.markdown() ?? "")
        // Room for the line saying what was left out.
        var room = budget - text.utf8.count - 1_000
        var left = (tests: 0, snapshots: 0)
        let rows = GitHubReport.failureRows(
            report, snapshotTests: snapshotTests,
            reviewAddress: review.map(\.published.page).flatMap { $0.hasPrefix("http") ? $0 : nil })
        for (index, row) in rows.enumerated() {
            let line = row + "\n"
            guard line.utf8.count <= room else {
                left.tests = rows.count - max(index, 3)
                break
            }
            text += line
            room -= line.utf8.count
        }
        let details = review?.details() ?? []
        for (index, detail) in details.enumerated() {
            let block = (index == 0 ? "\n" : "") + detail
            guard left.tests == 0, block.utf8.count <= room else {
                left.snapshots = details.count - index
                break
            }
            text += block
            room -= block.utf8.count
        }
        if left.tests > 0 || left.snapshots > 0 {
            let parts = [(left.tests, "failed test"), (left.snapshots, "snapshot")].filter { $0.0 > 0 }
                .map { "\($0.0) more \($0.1)\($0.0 == 1 ? "" : "s")" }
            text +=
                "\n_…and \(parts.joined(separator: " and ")) not shown here (GitHub's summary limit): every one is in \(elsewhere)._\n"
        }
        return text
    }
}
