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

    /// The failed snapshots: each one's match ratio, its reference, new and overlay images inline
    /// (where the links open in a browser), and the command that accepts CI's rendering.
    public func markdown() -> String {
        let links = published.page.hasPrefix("http")
        var lines = [
            "", "#### Snapshots to review", "",
            "[The review page](\(links ? published.page : "file://" + published.page))"
                + (published.expires.map { " (links valid for \($0))" } ?? ""), "",
        ]
        for entry in entries where entry.status == .failed || entry.status == .new {
            let ratio = entry.comparison.map { String(format: " — %.2f%% of pixels match", $0.matchRatio * 100) } ?? ""
            lines.append("**\(entry.key)** (\(entry.status.rawValue))\(ratio)")
            if links, let images = published.images[entry.key] {
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
            if let accept = accept {
                lines += ["", "```sh", accept.line([entry.test]), "```"]
            }
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension SnapshotFindings {
    /// The failed snapshots for the CI's summary, with their kept images and accept commands.
    public var reviewForCI: CIReview? {
        kept.map { CIReview(published: $0.review, entries: entries, accept: $0.accept) }
    }
}
