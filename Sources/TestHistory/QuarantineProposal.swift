import Foundation
import PipelineSpec

/// `pipeline quarantine propose`: the quarantine file edited by what the history says. The flaky
/// tests not quarantined yet get an entry (owner from CODEOWNERS, else `fallbackOwner`; expiry
/// `days` ahead; the evidence as the reason); the quarantined tests stable over the window are
/// named for release. Nothing is written: the caller writes `text` for a reviewer to commit.
public struct QuarantineProposal: Sendable {
    /// The file's new text; nil when nothing was added.
    public var text: String?
    /// A line per entry added, and per entry that can go.
    public var added: [String]
    public var releases: [String]

    /// Proposes from `report` (the last `window` days) against the file's `current` text (nil: no
    /// file yet), named `display` in errors; owners from `codeOwners` for the files below `root`.
    public init(
        _ report: HistoryReport, current: String?, display: String, codeOwners: CodeOwners?, root: URL,
        threshold: Double, window: Int, days: Int, fallbackOwner: String, today: CalendarDay = .today
    ) throws {
        var text = current
        let existing = try current.map { try QuarantineLoader.parse($0, file: display, today: .past).entries } ?? []
        added = []
        for proposal in report.quarantineProposals(threshold: threshold, days: window)
        where !existing.contains(where: { $0.name == proposal.test }) {
            // `Module.Class/test`: the file declaring the class names its owners.
            let type = proposal.test.split(separator: "/").first.flatMap { $0.split(separator: ".").last } ?? ""
            let owners = codeOwners?.owners(ofType: String(type), in: root)?.owners ?? []
            let entry = Quarantine.Entry(
                target: .test(proposal.test), owner: owners.isEmpty ? fallbackOwner : owners.joined(separator: " "),
                reason: proposal.reason, expires: today.adding(days: days))
            text = try QuarantineEditor.adding(entry, to: text, file: display)
            added.append("proposed \(proposal.test) (owner \(entry.owner), until \(entry.expires)): \(proposal.reason)")
        }
        self.text = added.isEmpty ? nil : text
        releases = report.stable(among: existing.map(\.name)).map {
            "release \($0.name): passed all \($0.runs) of its runs in \(window) days; remove its entry"
        }
    }
}
