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
        annotate: Bool = true, variables: [String: String] = ProcessInfo.processInfo.environment
    ) {
        guard let gitHub = CIContext(variables).gitHub else { return }
        for line in annotate ? GitHubReport.annotations(report, workspace: gitHub.workspace) : [] {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        guard let path = gitHub.summary, let handle = FileHandle(forWritingAtPath: path) else {
            return
        }
        handle.seekToEndOfFile()
        handle.write(Data(GitHubReport.summary(report, title: title).utf8))
        if let review { handle.write(Data(review.markdown().utf8)) }
        if let coverage { handle.write(Data(coverage.markdown().utf8)) }
        handle.closeFile()
    }
}
