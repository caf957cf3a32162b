import Foundation
import ImageDiff
import References

/// What the snapshot check found after a run.
public struct SnapshotFindings: Sendable {
    /// Everything the review page shows.
    public var entries: [ReviewEntry] = []
    /// Written outside CI (the library's default, `missing`, records a missing reference): noted, not failed.
    public var recorded: [String] = []
    public var page: URL?
    public var notes: [String] = []
    /// Where CI kept the review beside its candidates, and the accept command's options.
    public var kept: (review: ReviewArchive.Published, accept: AcceptCommand?)?

    public init() {}

    /// The failed tests their change explains, which are no evidence of flakiness: a new test
    /// without a reference, and, where CI kept the new rendering for review (`reviewable`), a
    /// snapshot that differs from its reference.
    public func explainedFailures(reviewable: Bool) -> Set<String> {
        Set(
            entries.filter { entry in
                entry.status == .new || entry.status == .missing || (reviewable && entry.status == .failed)
            }.compactMap(\.testName))
    }

    /// Adds a later part's findings (a batch of a shared run); an entry already there is kept once.
    public mutating func add(_ other: SnapshotFindings) {
        let keys = Set(entries.map(\.key))
        entries += other.entries.filter { !keys.contains($0.key) }
        recorded += other.recorded
        notes += other.notes
    }

    /// Lines for people: what was recorded, and where the review is.
    public func render() -> [String] {
        var lines = notes
        if !recorded.isEmpty {
            lines.append(
                "recorded \(recorded.count) missing reference(s) (run the tests again to compare with them): "
                    + recorded.prefix(10).joined(separator: ", ") + (recorded.count > 10 ? ", …" : ""))
        }
        if let page {
            lines.append("snapshot review (\(entries.count) entr\(entries.count == 1 ? "y" : "ies")): \(page.path)")
        }
        return lines
    }
}
