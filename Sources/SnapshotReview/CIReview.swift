import Foundation
import ImageDiff
import References

/// A run's failed snapshots as CI kept them for review, for the CI's summary.
public struct CIReview: Sendable {
    public var published: ReviewArchive.Published
    public var entries: [ReviewEntry]
    /// The command that accepts the candidates; nil when none were kept.
    public var accept: AcceptCommand?

    public init(published: ReviewArchive.Published, entries: [ReviewEntry], accept: AcceptCommand?) {
        (self.published, self.entries, self.accept) = (published, entries, accept)
    }

    /// The entries a reviewer accepts or not: failed snapshots and new ones.
    var reviewed: [ReviewEntry] { entries.filter { $0.status == .failed || $0.status == .new } }

    /// The lead of the review: where the page is, how many snapshots of how many test files, and
    /// the one command that accepts them all (when more than one file failed; the accept
    /// workflow's `tests: all` does the same), then one per file. Small whatever the run's size.
    ///
    /// The page's link opens where the reader is: the store's address (presigned with S3), else
    /// the CI run's page (`runPage`), whose artifacts hold it; never a path on the runner.
    public func lead(runPage: String? = nil) -> String {
        let page =
            if published.page.hasPrefix("http") {
                "[The review page](\(published.page))" + (published.expires.map { " (links valid for \($0))" } ?? "")
            } else if let runPage {
                "The review page (`\(URL(fileURLWithPath: published.page).lastPathComponent)`) is in "
                    + "[the run's artifacts](\(runPage)); the store keeps it at `\(published.page)`"
            } else {
                "The review page: `\(published.page)`"
            }
        var lines = ["", "#### Snapshots to review", "", page, ""]
        let files = reviewed.map(\.test).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        lines.append("\(reviewed.count) snapshot(s) to review in \(files.count) test file(s).")
        if let accept, !files.isEmpty {
            if files.count > 1 {
                lines += [
                    "", "Accept every rendering this run kept (the accept workflow with `tests: all` does the same):",
                    "", "```sh", accept.all, "```", "", "Or one test file at a time:", "",
                ]
                let shown = files.prefix(20)
                lines += shown.map { "- `\(accept.line([$0]))`" }
                if files.count > shown.count { lines.append("- …and \(files.count - shown.count) more test files") }
            } else {
                lines += ["", "Accept its rendering:", "", "```sh", accept.line(files), "```"]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each failed snapshot: its match ratio, its reference, new and overlay images inline (where
    /// the links open in a browser), a text reference's first changed lines; the review page has
    /// them all.
    public func details() -> [String] {
        let links = published.page.hasPrefix("http")
        return reviewed.map { entry in
            let ratio = entry.comparison.map { String(format: " — %.2f%% of pixels match", $0.matchRatio * 100) } ?? ""
            var lines = ["**\(entry.key)** (\(entry.status.rawValue))\(ratio)"]
            if links, let images = published.images[entry.key] {
                let cells = [("reference", images.reference), ("new", images.new), ("overlay", images.overlay)]
                    .compactMap { name, link in link.map { "<img src=\"\($0)\" alt=\"\(name)\" width=\"240\">" } }
                lines += ["", cells.joined(separator: " ")]
            }
            if let diff = entry.textDiff, !diff.isEmpty {
                let marks: [TextDiff.Kind: String] = [.added: "+ ", .removed: "- ", .same: "  "]
                let changed: [String] = diff.hunks(context: 1).flatMap { $0 }.prefix(12).map { line in
                    (marks[line.kind] ?? "  ") + line.text
                }
                lines += ["", "```diff"] + changed + ["```"]
            }
            return lines.joined(separator: "\n") + "\n\n"
        }
    }

    /// The lead, then every detail: the review section whole, for a run small enough to show it.
    public func markdown(runPage: String? = nil) -> String {
        lead(runPage: runPage) + "\n" + details().joined()
    }
}

extension SnapshotFindings {
    /// The failed snapshots for the CI's summary, with their kept images and accept commands.
    public var reviewForCI: CIReview? {
        kept.map { CIReview(published: $0.review, entries: entries, accept: $0.accept) }
    }
}
