import CISystem
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec

/// Which commits to compare, as a command line asks: flags first, then a spec's change settings.
public struct ChangeQuery: Sendable {
    public var head: String?
    public var base: String?
    /// `--merge-base A B`: the merge base of A and B against B.
    public var mergeBase: (base: String, head: String)?
    public var detectRenames: Bool
    /// How test directories and files are named; the spec's (or `*Tests`) when nil.
    public var testPattern: String?
    /// Develop's record of the last promoted commit (`PromotedHead`), read by a post-merge run: a
    /// merge comparison catches up from it.
    public var promoted: PromotedHead.Read?

    /// How many commits of the base branch a run catches up at most; a longer gap falls back to
    /// the push's own commits, saying so.
    public var catchUpLimit = 200

    public init(
        head: String? = nil, base: String? = nil, mergeBase: (base: String, head: String)? = nil,
        detectRenames: Bool = true, testPattern: String? = nil
    ) {
        self.head = head
        self.base = base
        self.mergeBase = mergeBase
        self.detectRenames = detectRenames
        self.testPattern = testPattern
    }

    /// The comparison asked for, falling back to `settings` from a spec.
    public func comparison(settings: ChangeSettings = ChangeSettings()) throws(RequestError) -> Comparison {
        if let mergeBase { return .mergeBase(base: mergeBase.base, head: mergeBase.head) }
        let head = head ?? settings.head ?? "HEAD"
        if let base { return .range(base: base, head: head) }
        switch settings.compare {
        case .merge:
            return .merge(head: head)
        case .range, .mergeBase:
            guard let base = settings.base else {
                throw RequestError(
                    "changes.compare is \(settings.compare.rawValue) but no base is given; pass --base REV or set changes.base"
                )
            }
            return settings.compare == .range ? .range(base: base, head: head) : .mergeBase(base: base, head: head)
        }
    }

    /// What the compared commits of the repository at `directory` changed, with the change
    /// settings of `pipeline`'s spec when one is named.
    public func changes(in directory: URL, pipeline: String?) throws -> ChangeSet {
        let settings = try pipeline.map { try PipelineCatalog.locate(from: directory).load(named: $0).changes }
        return try changes(in: directory, settings: settings ?? ChangeSettings())
    }

    /// What the compared commits of the repository at `directory` changed. On a CI push that
    /// brought several commits (a merge queue's fast-forward over its entries, two merges served by
    /// one run), a merge comparison of the pushed head covers the whole push: from where the
    /// branch stood before it (`CIContext.pushedFrom`) to the head. With develop's record of the
    /// last promoted commit (`promoted`), it covers every merge since that commit: the merges whose
    /// own run never ran are tested and promoted by this one. The change set's `note` says which.
    public func changes(
        in directory: URL, settings: ChangeSettings = ChangeSettings(),
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ChangeSet {
        let detector = ChangeDetector(
            repositoryPath: directory.path, testPattern: testPattern ?? settings.tests, detectRenames: detectRenames)
        var comparison = try comparison(settings: settings)
        var note: String?
        if case .merge(let head) = comparison, self.head == nil, settings.head == nil {
            let history = try CommitHistory(repositoryPath: directory.path)
            let headSHA = try history.sha(head)
            let parents = try history.parents(of: head)
            var start = parents.first
            if let before = CIContext(variables).pushedFrom, headSHA != before, parents.first != before,
                try history.isAncestor(before, of: head) == true
            {
                comparison = .range(base: before, head: head)
                start = before
            }
            if let promoted, let start {
                let caughtUp = catchUp(promoted, start: start, head: headSHA, history: history)
                note = caughtUp.note
                if let base = caughtUp.base { comparison = .range(base: base, head: head) }
            }
        }
        var changes = try detector.changes(comparison)
        changes.note = note
        return changes
    }

    /// Where a post-merge comparison that would start at `start` starts instead, given develop's
    /// record: the recorded commit when it is an ancestor of `start` within `catchUpLimit`
    /// first-parent commits; nil (today's comparison) otherwise, with the reason.
    func catchUp(_ read: PromotedHead.Read, start: String, head: String, history: CommitHistory)
        -> (base: String?, note: String?)
    {
        guard let recorded = read.record?.commit else {
            let why =
                read.problem.map { "develop's promotion record cannot be read (\($0))" }
                ?? "develop has no record of its last promoted commit yet"
            return (
                nil,
                "\(why): comparing from \(start.prefix(12)) only; a merge before it whose run never ran is not caught up"
            )
        }
        if recorded == start || recorded == head { return (nil, nil) }
        // A commit this clone does not have counts as one off the branch.
        guard (try? history.isAncestor(recorded, of: start)) == true else {
            if (try? history.isAncestor(start, of: recorded)) == true { return (nil, nil) }  // promoted past it already
            return (
                nil,
                "develop's last promoted commit, \(recorded.prefix(12)), is not in this branch's history (rewritten?): "
                    + "comparing from \(start.prefix(12)) only"
            )
        }
        // The base branch's own commits between the record and the start, along first parents.
        var skipped: [String] = []
        var cursor = start
        while cursor != recorded {
            guard skipped.count < catchUpLimit, let parent = (try? history.parents(of: cursor))?.first else {
                return (
                    nil,
                    "develop's last promoted commit, \(recorded.prefix(12)), is more than \(catchUpLimit) commits "
                        + "before \(start.prefix(12)): comparing from \(start.prefix(12)) only; to promote what came "
                        + "between: pipeline refs promote --base \(recorded.prefix(12)) --head \(start.prefix(12))"
                )
            }
            skipped.append(cursor)
            cursor = parent
        }
        return (
            recorded,
            "caught up from develop's last promoted commit, \(recorded.prefix(12)): \(skipped.count) "
                + "commit\(skipped.count == 1 ? "" : "s") before \(start.prefix(12)) whose promotion never ran "
                + "(\(skipped.map { String($0.prefix(12)) }.joined(separator: ", "))) are tested and promoted with this one"
        )
    }
}
