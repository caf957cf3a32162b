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
    /// branch stood before it (`CIContext.pushedFrom`) to the head.
    public func changes(
        in directory: URL, settings: ChangeSettings = ChangeSettings(),
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ChangeSet {
        let detector = ChangeDetector(
            repositoryPath: directory.path, testPattern: testPattern ?? settings.tests, detectRenames: detectRenames)
        var comparison = try comparison(settings: settings)
        if case .merge(let head) = comparison, self.head == nil, settings.head == nil,
            let before = CIContext(variables).pushedFrom
        {
            let history = try CommitHistory(repositoryPath: directory.path)
            let parents = try history.parents(of: head)
            if try history.sha(head) != before, parents.first != before,
                try history.isAncestor(before, of: head) == true
            {
                comparison = .range(base: before, head: head)
            }
        }
        return try detector.changes(comparison)
    }
}
