import Foundation
import GitChanges
import ImageDiff
import ObjectStorage
import PipelineCore
import PipelineSpec

/// The reference commands' work, one entry point each, over one context read from the spec.
extension ReferenceContext {
    /// `refs promote`: the tests a merge changed (or `tests`), feature to develop, in every render
    /// environment's set the branch pushed to (a report each). With `overwrite`, a conflict with a
    /// later merge is overwritten after `confirm` agrees. With `force`, the checkout's references
    /// of `tests` (every test's that has them with `all`) go to feature and develop instead, after
    /// `confirm` agrees. `branchHead` names the merged branch's head when the merge cannot be matched to it.
    public func promote(
        tests: [String], all: Bool = false, changes query: ChangeQuery, force: Bool = false, overwrite: Bool = false,
        prune: Bool, dryRun: Bool, branchHead: String? = nil, confirm: (String) throws -> Void
    ) async throws -> [TransferReport] {
        let transfers = transfers.merged(from: branchHead)
        if force {
            guard all || !tests.isEmpty else {
                throw RequestError(
                    "refs promote --force pushes the checkout's references to feature and develop: name the tests, "
                        + "or pass --all (to overwrite develop's later promotions in a merge's promotion: --overwrite)")
            }
            let preview = try await transfers.push(
                tests: tests, all: all, to: [.feature, .develop], commit: headCommit, prune: prune, dryRun: true)
            if dryRun { return preview }
            let count = preview.map(\.copied.count).reduce(0, +)
            let named = preview.first.map { $0.tests.joined(separator: ", ") } ?? ""
            try confirm(
                "Push \(count) local reference file(s) of \(named) to feature and develop, replacing what is there?")
            return try await transfers.push(
                tests: tests, all: all, to: [.feature, .develop], commit: headCommit, prune: prune, dryRun: false)
        }
        let changes = try self.changes(query)
        let history = try history()
        func promote(force: Bool, dryRun: Bool) async throws -> [TransferReport] {
            try await transfers.promoteEverySet(
                tests: tests.isEmpty ? nil : tests, changes: changes, history: history, force: force, prune: prune,
                dryRun: dryRun)
        }
        if overwrite, !dryRun {
            let conflicts = try await promote(force: true, dryRun: true).map(\.conflicts.count).reduce(0, +)
            if conflicts > 0 {
                try confirm("Overwrite \(conflicts) develop reference(s) that later merges promoted?")
            }
        }
        return try await promote(force: overwrite, dryRun: dryRun)
    }

    /// `refs push`: the checkout's references of `tests` (every test's that has them with `all`) to
    /// feature, as HEAD's push.
    public func push(tests: [String], all: Bool, prune: Bool, dryRun: Bool) async throws -> [TransferReport] {
        try await transfers.push(
            tests: tests, all: all, to: [.feature], commit: headCommit, prune: prune, dryRun: dryRun)
    }

    /// `refs pull`: the checkout's references from `role`. A reviewer's named tests from feature
    /// come from the branch's own push: the newest from `commit` (default the checkout's HEAD) or
    /// its ancestors; outside a repository, or for tests never pushed with a record, feature's latest copy.
    public func pull(tests: [String], from role: StoreRole, commit: String?, dryRun: Bool) async throws
        -> [TransferReport]
    {
        let history = try? self.history()
        guard role == .feature, !tests.isEmpty, let history, let sha = try? history.sha(commit ?? "HEAD") else {
            if let commit, role == .feature {
                _ = try self.history().sha(commit)  // says why the revision cannot be read
            }
            return [try await transfers.pull(tests: tests.isEmpty ? nil : tests, from: role, dryRun: dryRun)]
        }
        return try await transfers.pull(tests: tests, pushedBy: sha, history: history, dryRun: dryRun)
    }

    /// `refs accept`: CI's candidates of `tests` (every test's with `all`) rendered at `commit`
    /// (default the checkout's HEAD), from `run` (default the latest), become the branch's references.
    public func accept(
        tests: [String], all: Bool, commit: String?, run: String?, force: Bool, dryRun: Bool
    ) async throws -> AcceptOutcome {
        let history = try? self.history()
        let sha: String
        if let history {
            sha = try history.sha(commit ?? "HEAD")
        } else if let commit, PushArchive.isCommit(commit) {
            sha = commit
        } else {
            throw RequestError("outside a git repository, --commit takes the full SHA CI rendered at")
        }
        var request = AcceptRequest(tests: tests, all: all, commit: sha, run: run, force: force, dryRun: dryRun)
        if let history { request.pushAs = try Self.branchCommit(standingFor: sha, history: history) }
        return try await transfers.acceptInCandidatesSet(request, history: history)
    }

    /// The commit a push accepted from `commit`'s candidates is recorded under: none (nil) when
    /// HEAD's history holds `commit`; its parent on the branch when `commit` is a CI's synthetic
    /// merge of the branch (a merge commit one of whose parents HEAD's history holds, the branch
    /// side first). Otherwise refused: a push under a commit the branch does not contain is never merged.
    static func branchCommit(standingFor commit: String, history: CommitHistory) throws -> String? {
        let head = try history.sha("HEAD")
        guard try history.isAncestor(commit, of: head) != true else { return nil }
        let parents = try history.parents(of: commit)
        if parents.count > 1,
            let parent = try parents.reversed().first(where: { try history.isAncestor($0, of: head) == true })
        {
            return parent
        }
        throw ReferenceError.notOnBranch(commit: commit, head: head)
    }

    /// `refs prune`: feature's kept pushes older than `age`, or already merged and promoted,
    /// removed; an old one an open branch of the checkout (or one of `branches`) holds is kept
    /// unless `force`.
    public func prune(olderThan age: Duration?, keeping branches: [String], force: Bool, dryRun: Bool) async throws
        -> PruneOutcome
    {
        let history = branches.isEmpty ? try? self.history() : try self.history()
        let guarding = RetentionGuard(
            openBranches: try history.map { try RetentionGuard.openBranches(in: $0, named: branches) } ?? [],
            head: try? history?.sha("HEAD"), force: force)
        return try await transfers.prunePushes(olderThan: age, history: history, guarding: guarding, dryRun: dryRun)
    }

    /// `refs report`: one review page of `new` against `reference` (a store, or a folder when
    /// given) for `tests`, every test (`all`), or the tests the compared commits changed.
    public func review(
        _ selection: ReviewSelection, tolerance: Int, output: URL
    ) async throws -> ReviewOutcome {
        func folder(_ path: URL?, _ role: StoreRole) throws -> StoreLocation {
            guard let path else { return try transfers.stores.folder(role) }
            return StoreLocation(store: FolderStore(root: path), prefix: nil)
        }
        let new = try folder(selection.newFolder, selection.new)
        let reference =
            try selection.against.map { try transfers.stores.folder(selection.reference, environment: $0) }
            ?? folder(selection.referenceFolder, selection.reference)
        return try await ReferenceReview(tolerance: tolerance, parallelism: transfers.parallelism).page(
            tests: try await reviewedTests(selection), reference: reference, new: new, title: "Reference review",
            subtitle: "\(new.name) against \(reference.name)", output: output)
    }

    /// The named tests, every test (nil), or the tests the compared commits changed.
    private func reviewedTests(_ selection: ReviewSelection) async throws -> [String]? {
        if !selection.tests.isEmpty { return selection.tests }
        if selection.all { return nil }
        do {
            return try await transfers.changedTests(
                try changes(selection.changes), history: try history(), from: selection.new, to: selection.reference
            ).all
        } catch let error as GitError {
            throw ReviewError.noChanges(error)
        }
    }
}

/// Which references `refs report` compares: the named tests, every test (`all`), or the tests the
/// compared commits changed; `new` against `reference`, each a store or a folder.
public struct ReviewSelection: Sendable {
    public var tests: [String]
    public var all: Bool
    public var changes: ChangeQuery
    public var new = StoreRole.feature
    public var reference = StoreRole.develop
    public var newFolder: URL?
    public var referenceFolder: URL?
    /// The render environment whose set of `reference` to compare with (`--against`), instead of
    /// the run's own: one environment's references against another's.
    public var against: String?

    public init(tests: [String], all: Bool, changes: ChangeQuery) {
        (self.tests, self.all, self.changes) = (tests, all, changes)
    }
}

/// The review page written, and what it shows.
public struct ReviewOutcome: Sendable {
    public let page: URL
    public let entries: [ReviewEntry]

    public func count(_ status: ReviewEntry.Status) -> Int {
        entries.filter { $0.status == status }.count
    }

    /// How many references changed, are new and were removed: `["2 changed", "1 new", "0 removed"]`.
    public var counts: [String] {
        [ReviewEntry.Status.changed, .new, .removed].map { "\(count($0)) \($0.rawValue)" }
    }

    /// One line: where the page is and how many references changed, are new, were removed, and
    /// how many changed ones were rendered elsewhere than the references they replace.
    public var summary: String {
        let elsewhere = entries.filter { $0.rendering != nil }.count
        return "\(page.path): " + counts.joined(separator: ", ")
            + (elsewhere == 0 ? "" : " (\(elsewhere) rendered elsewhere than their reference)")
    }
}

/// Why the tests to review could not be found.
public enum ReviewError: Error, CustomStringConvertible {
    /// The compared commits could not be read.
    case noChanges(GitError)

    public var description: String {
        switch self {
        case .noChanges(let error): "\(error); to review every test, pass --all, or name the tests"
        }
    }
}

extension TransferReport {
    /// A failed object makes the command fail, after its report is out.
    public static func requireComplete(_ reports: [TransferReport]) throws(ReferenceError) {
        if let report = reports.first(where: { !$0.neverAccepted.isEmpty && !$0.dryRun }),
            let commit = report.candidatesCommit
        {
            throw .neverAccepted(tests: report.neverAccepted, commit: commit, environment: report.environment)
        }
        let stale = reports.filter { !$0.dryRun }.flatMap(\.notPromoted)
        if !stale.isEmpty { throw .developStale(stale) }
        let failed = reports.map(\.failures.count).reduce(0, +)
        if failed > 0 {
            throw .incomplete(
                failed: failed, total: reports.map { $0.copied.count + $0.deleted.count }.reduce(failed, +))
        }
    }
}

extension ReviewError: ExitCoded {
    public var exitStatus: ExitStatus { .git }
}
