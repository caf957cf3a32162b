import Coverage
import Foundation
import TestSharding

/// What the CI system around a run tells it, and where the CI shows results.
public enum CIEnvironment {
    /// The run id variables of GitHub Actions, Bitrise, Buildkite and GitLab: the same for every
    /// job of one run, and kept when a failed job is re-run. On Bitrise each parallel copy of a
    /// pipeline's workflow is a build of its own, so the pipeline's id comes before the build's.
    public static let runVariables = [
        "GITHUB_RUN_ID", "BITRISEIO_PIPELINE_ID", "BITRISE_BUILD_NUMBER", "BUILDKITE_BUILD_ID", "CI_PIPELINE_ID",
    ]

    /// The CI's run id, when a CI sets one.
    public static func runID(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        runVariables.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    /// Whether progress may redraw one line in place: standard error is a terminal, outside CI.
    public static var isInteractive: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
    }
}

/// Test results where the CI system shows them: on GitHub Actions (GITHUB_ACTIONS=true), an
/// annotation per failing test on standard error and a Markdown summary in $GITHUB_STEP_SUMMARY,
/// with the coverage totals when coverage was measured.
public enum CIReport {
    public static func publish(
        _ report: TestReport, coverage: CoverageReport? = nil, title: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        guard environment["GITHUB_ACTIONS"] == "true" else { return }
        for line in GitHubReport.annotations(report, workspace: environment["GITHUB_WORKSPACE"]) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        guard let path = environment["GITHUB_STEP_SUMMARY"], let handle = FileHandle(forWritingAtPath: path) else {
            return
        }
        handle.seekToEndOfFile()
        handle.write(Data(GitHubReport.summary(report, title: title).utf8))
        if let coverage { handle.write(Data(coverage.markdown().utf8)) }
        handle.closeFile()
    }
}
