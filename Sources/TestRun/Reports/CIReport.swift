import CISystem
import Coverage
import Foundation
import ImageDiff
import References
import TestCore
import TestSharding

/// Test results where the CI system shows them: on GitHub Actions (GITHUB_ACTIONS=true), an
/// annotation per failing test on standard error and a Markdown summary in $GITHUB_STEP_SUMMARY,
/// with the coverage totals when coverage was measured.
public enum CIReport {
    /// A run's failed snapshots as CI kept them for review.
    public struct Review: Sendable {
        public var published: ReviewArchive.Published
        public var entries: [ReviewEntry]
        /// The command that accepts the candidates; nil when none were kept.
        public var accept: AcceptCommand?
    }

    /// `annotate: false` for a report merged from nodes that annotated their own tests.
    public static func publish(
        _ report: TestReport, coverage: CoverageReport? = nil, title: String, review: Review? = nil,
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
        if let review { handle.write(Data(markdown(review).utf8)) }
        if let coverage { handle.write(Data(coverage.markdown().utf8)) }
        handle.closeFile()
    }

    /// The failed snapshots: each one's match ratio, its reference, new and overlay images inline
    /// (where the links open in a browser), and the command that accepts CI's rendering.
    static func markdown(_ review: Review) -> String {
        let links = review.published.page.hasPrefix("http")
        var lines = [
            "", "#### Snapshots to review", "",
            "[The review page](\(links ? review.published.page : "file://" + review.published.page))"
                + (review.published.expires.map { " (links valid for \($0))" } ?? ""), "",
        ]
        for entry in review.entries where entry.status == .failed || entry.status == .new {
            let ratio = entry.comparison.map { String(format: " — %.2f%% of pixels match", $0.matchRatio * 100) } ?? ""
            lines.append("**\(entry.key)** (\(entry.status.rawValue))\(ratio)")
            if links, let images = review.published.images[entry.key] {
                let cells = [("reference", images.reference), ("new", images.new), ("overlay", images.overlay)]
                    .compactMap { name, link in link.map { "<img src=\"\($0)\" alt=\"\(name)\" width=\"240\">" } }
                lines.append("")
                lines.append(cells.joined(separator: " "))
            }
            // A text reference: its first changed lines, as a diff.
            if let diff = entry.textDiff, !diff.isEmpty {
                let marks: [TextDiff.Kind: String] = [.added: "+ ", .removed: "- ", .same: "  "]
                let changed: [String] = diff.hunks(context: 1).flatMap { $0 }.prefix(12).map { line in
                    (marks[line.kind] ?? "  ") + line.text
                }
                lines += ["", "```diff"] + changed + ["```"]
            }
            if let accept = review.accept {
                lines += ["", "```sh", accept.line([entry.test]), "```"]
            }
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
