import Foundation

/// A develop reference that a later merge promoted after this branch was cut: overwriting it
/// would undo that merge's references.
public struct PromotionConflict: Sendable, Equatable, Encodable, CustomStringConvertible {
    /// Relative to the store's prefix: `Test/image.png`.
    public let key: String
    /// The merge that put develop's copy there.
    public let commit: String

    public var description: String { "\(key), promoted by \(commit.prefix(12))" }
}

/// What a reference command did (or, in a dry run, would do). Its JSON form is documented in
/// docs/json.md; fields are only ever added.
public struct TransferReport: Sendable, Encodable {
    /// `pull`, `push`, `accept` or `promote`.
    public let action: String
    public let from: String
    public let to: String
    public let tests: [String]
    /// The commit recorded with each copied object (`pipeline-commit`).
    public let commit: String?
    public let dryRun: Bool
    /// Objects copied (in a dry run: that would be), relative to the prefixes.
    public var copied: [String] = []
    public var identical = 0
    /// Objects the destination has and the source does not.
    public var stale: [String] = []
    /// Stale objects deleted (with `--prune`, or by a pull, which replaces).
    public var deleted: [String] = []
    /// Tests left alone, with the reason.
    public var skipped: [String: String] = [:]
    /// Develop references promoted after the branch was cut (overwritten only with `--overwrite`).
    public var conflicts: [PromotionConflict] = []
    /// Tests found through the commits recorded in the source store (pushed by the compared
    /// commits) rather than through changed files.
    public var pushed: [String] = []
    /// Develop references whose promoting commit is not in this clone, so could not be checked.
    public var unverified: [String] = []
    /// Develop references a later merge promoted, which this promotion did not overwrite.
    public var notOverwritten: [PromotionConflict] = []
    /// For each test taken from feature's pushes, the commit whose push was taken.
    public var pushCommits: [String: String] = [:]
    /// For each test taken from feature's pushes, how the merge was found to bring that push's
    /// commit in: `ancestry`, `squash`, `rebase` or `named` (`MergeMatch`).
    public var pushMatches: [String: String] = [:]
    /// Tests the merged change touched whose references did not reach develop, each with the
    /// command that fixes it: any makes the promotion fail (develop would be stale).
    public var notPromoted: [NotPromoted] = []
    /// Tests whose references are committed in git: promoted from the merge commit itself.
    public var committed: [String] = []
    /// Tests the merged commit's last CI run failed and kept new renderings of, which nobody
    /// accepted and this promotion therefore did not promote (`neverAccepted` then fails it).
    public var neverAccepted: [String] = []
    /// The merged commit those renderings were kept under.
    public var candidatesCommit: String?
    /// The render environment's set the transfer worked in; nil (absent in JSON) for the shared set.
    public var environment: String?
    /// A pull along a fallback chain: how many files (copied or identical) each set gave, by the
    /// set's name (`shared` for the shared set), and which set each file came from. Nil otherwise.
    public var sets: [String: Int]?
    public var fileSets: [String: String]?
    /// What the command could not guarantee, one line each.
    public var notes: [String] = []
    public var failures: [String] = []
}

/// A test the merged change touched whose references did not reach develop: why, and the
/// command that fixes it.
public struct NotPromoted: Sendable, Equatable, Encodable, CustomStringConvertible {
    public let test: String
    public let reason: String
    public let fix: String

    public var description: String { "\(test): \(reason); fix: \(fix)" }
}

/// A push of feature's archive that `refs prune` removed (or, in a dry run, would remove).
public struct PrunedPush: Sendable, Equatable, Encodable {
    public let test: String
    public let commit: String
    public let reason: String
    /// The render environment's set it was kept in; nil (absent in JSON) for the shared set.
    public var set: String? = nil

    /// The test, after its set's name when it is in one: `linux/ProfileTests`.
    public var place: String { self.set.map { "\($0)/\(test)" } ?? test }
}

/// A test with references in develop and no test file in the checkout.
public struct Orphan: Sendable, Equatable, Encodable {
    public let test: String
    public let objects: Int
    public let bytes: Int64
    /// The render environment's set holding them; nil (absent in JSON) for the shared set.
    public var set: String? = nil

    /// The test, after its set's name when it is in one: `linux/ProfileTests`.
    public var place: String { self.set.map { "\($0)/\(test)" } ?? test }

    /// A test in a set.
    struct Place: Hashable {
        var set: String?
        var test: String
    }
}

extension TransferReport {
    /// The report as people read it: a heading, the counts, then each list (long ones cut short).
    public func render(listLimit: Int = 20) -> [String] {
        var lines = [
            "\(action): \(from) → \(to)" + (commit.map { " (commit \($0.prefix(12)))" } ?? "")
                + (dryRun ? " — dry run, nothing written" : "")
        ]
        lines.append("  tests: " + (tests.isEmpty ? "none" : tests.joined(separator: ", ")))
        if !pushed.isEmpty {
            lines.append(
                "  pushed by the compared commits (their test files did not change): " + pushed.joined(separator: ", "))
        }
        if let sets {
            lines.append(
                "  taken from the sets: "
                    + sets.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                        separator: ", "))
        }
        lines += notes.map { "  note: \($0)" }
        let deleting = dryRun ? "would delete" : "deleted"
        lines.append(
            "  \(dryRun ? "would copy" : "copied") \(copied.count), identical \(identical), \(deleting) \(deleted.count)"
                + (failures.isEmpty ? "" : ", failed \(failures.count)"))
        func list(_ title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            lines.append("  \(title):")
            lines += items.prefix(listLimit).map { "    \($0)" }
            if items.count > listLimit { lines.append("    … and \(items.count - listLimit) more") }
        }
        if dryRun { list("would copy", copied) }
        let kept = stale.filter { !deleted.contains($0) }
        list("in the destination but not the source (kept; --prune deletes them)", kept)
        list(deleting, deleted)
        list("skipped", skipped.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        list(
            "changed in develop after the branch was cut"
                + (dryRun ? " (needs --overwrite)" : " (overwritten: --overwrite)"),
            conflicts.map(\.description))
        list("not checked (their promoting commit is not in this clone)", unverified)
        list(
            "failed in the merged commit's CI run, and never accepted (develop keeps their old references)",
            neverAccepted.map { test in
                candidatesCommit.map {
                    "\(test): " + CandidateArchive.acceptCommand(commit: $0, environment: environment).line([test])
                } ?? test
            })
        list(
            "not promoted, so develop would be stale (the command fails)",
            notPromoted.map { "\($0.test): \($0.reason)\n      fix: \($0.fix)" })
        list(
            "found after a squash or rebase (the branch's commits are not in the merged history)",
            pushMatches.filter { $0.value != MergeMatch.ancestry.rawValue }.sorted { $0.key < $1.key }.map {
                "\($0.key): the push of \(pushCommits[$0.key]?.prefix(12) ?? "?"), matched by \($0.value)"
            })
        list("failed", failures)
        return lines
    }
}
