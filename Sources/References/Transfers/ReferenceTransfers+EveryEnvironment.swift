import Foundation
import GitChanges
import PipelineSpec

/// The commands that keep every render environment's set, whatever the run's own: a merge
/// promotes what its branch pushed in each, and maintenance sees each.
extension ReferenceTransfers {
    /// The sets of `role`'s store, the run's own first, then each environment's set the store holds
    /// (by name), then the shared set (nil). Without environments: the shared set alone.
    public func everySet(_ role: StoreRole) async throws -> [String?] {
        everySet(among: try await stores.environmentSets(role))
    }

    /// The sets in that order, of those `found` in the store.
    private func everySet(among found: [String]) -> [String?] {
        let own = stores.environmentName
        return [own] + found.filter { $0 != own }.map(Optional.some) + (own == nil ? [] : [nil])
    }

    /// `promote` in every set of `from`, each from the branch's pushes in that set, through that
    /// set's own promotion record: one merge job promotes what Linux CI and a macOS laptop pushed,
    /// and a promotion in one set never touches another's files. The run's own set's report comes
    /// first and always; another set's only when it promoted, or has something to say.
    public func promoteEverySet(
        tests: [String]?, changes: ChangeSet, history: CommitHistory,
        from: StoreRole = .feature, to: StoreRole = .develop,
        force: Bool, prune: Bool, dryRun: Bool, changed: (all: [String], pushed: [String])? = nil
    ) async throws -> [TransferReport] {
        var reports: [TransferReport] = []
        // Feature listed once: its sets, and each set's latest copies for the promotion's plans.
        let listed = try await stores.listing(from)
        for name in everySet(among: stores.environmentSets(from, among: listed)) {
            let own = name == stores.environmentName
            var promoting = inSet(name)
            promoting.listedSource = listed
            let report = try await promoting.promote(
                tests: tests, changes: changes, history: history, from: from, to: to, force: force, prune: prune,
                dryRun: dryRun, changed: own ? changed : nil)
            if own || report.didSomething { reports.append(report) }
        }
        return reports
    }
}

extension ReferenceTransfers {
    /// `refs accept` in the set that kept the candidates: the run's own, else (when the run's
    /// environment was not named for it) the one other set that kept candidates of the commit, so
    /// a laptop accepts what Linux CI rendered into Linux's set. Several such sets need a name.
    public func acceptInCandidatesSet(_ request: AcceptRequest, history: CommitHistory?) async throws
        -> AcceptOutcome
    {
        do {
            return try await accept(request, history: history)
        } catch ReferenceError.noCandidates(let commit, let run, let folder) where !stores.environmentNamed {
            var holding: [String?] = []
            for name in try await everySet(.feature) where name != stores.environmentName {
                let archive = CandidateArchive(feature: try stores.inSet(name).folder(.feature), now: now)
                let runs = try await archive.runs(of: request.commit)
                if runs.contains(where: { !$0.tests.isEmpty && (run == nil || $0.run == run) }) { holding.append(name) }
            }
            guard holding.count == 1 else {
                guard holding.isEmpty else {
                    throw ReferenceError.notConfigured(
                        "CI kept candidates of \(commit.prefix(12)) in the sets "
                            + holding.map { $0 ?? "shared" }.joined(separator: ", ")
                            + "; name the one to accept into with --environment")
                }
                throw ReferenceError.noCandidates(commit: commit, run: run, folder: folder)
            }
            return try await inSet(holding[0]).accept(request, history: history)
        }
    }
}

extension TransferReport {
    /// Whether the transfer copied or deleted (in a dry run: would), or has a conflict or failure to report.
    var didSomething: Bool {
        !copied.isEmpty || !deleted.isEmpty || !conflicts.isEmpty || !notOverwritten.isEmpty
            || !neverAccepted.isEmpty || !failures.isEmpty || !notPromoted.isEmpty
    }
}
