import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore

extension ReferenceTransfers {
    /// `refs prune`: removes feature's kept pushes and CI's candidate runs that are older than `age`
    /// (when given), and the pushes a promotion already took in (their commit is an ancestor of the
    /// merge develop's record says last promoted the test; only with `history`). The latest copies
    /// are never touched.
    public func prunePushes(olderThan age: Duration?, history: CommitHistory?, dryRun: Bool) async throws
        -> [PrunedPush]
    {
        let now = self.now()
        let feature = try stores.folder(.feature)
        let archive = PushArchive(feature: feature)
        let develop = stores.settings.address(of: .develop) == nil ? nil : try stores.folder(.develop)
        let ledger = develop.map {
            PromotionLedger(develop: $0, feature: feature, lease: promotionLease, parallelism: 1, now: self.now)
        }
        var pruned: [PrunedPush] = []
        for (test, commits) in try await archive.allCommits().sorted(by: { $0.key < $1.key }) {
            let promoted = try await ledger?.read(test).record.commit
            for commit in commits.sorted() {
                var reason: String?
                if let age, let record = try await archive.record(of: test, by: commit),
                    let pushedAt = Timestamp.date(record.pushedAt), now.timeIntervalSince(pushedAt) >= age.seconds
                {
                    reason = "pushed \(record.pushedAt), older than \(age.specText)"
                } else if let promoted, let history, try history.isAncestor(commit, of: promoted) == true {
                    reason = "merged and promoted by \(promoted.prefix(12))"
                }
                guard let reason else { continue }
                if !dryRun { try await archive.remove(test, by: commit) }
                pruned.append(PrunedPush(test: test, commit: commit, reason: reason))
            }
        }
        if let age {
            let candidates = CandidateArchive(feature: feature, now: self.now)
            for run in try await candidates.allRuns() {
                guard let at = Timestamp.date(run.createdAt), now.timeIntervalSince(at) >= age.seconds else {
                    continue
                }
                if !dryRun { try await candidates.remove(run) }
                pruned.append(
                    PrunedPush(
                        test: "\(CandidateArchive.folder)/\(run.run)", commit: run.commit,
                        reason: "CI's candidates of \(run.createdAt), older than \(age.specText)"))
            }
        }
        return pruned
    }

    /// Tests with references in develop (or `role`) whose test file is gone from the checkout.
    public func orphans(in role: StoreRole = .develop) async throws -> [Orphan] {
        let location = try stores.folder(role)
        let local = stores.local(testPattern: testPattern)
        var totals: [String: (objects: Int, bytes: Int64)] = [:]
        for object in try await location.store.list(under: location.prefix) {
            let key = location.prefix.flatMap { object.key.relative(to: $0) } ?? object.key
            guard key.isReference else { continue }
            totals[key.firstSegment, default: (0, 0)].objects += 1
            totals[key.firstSegment, default: (0, 0)].bytes += object.size
        }
        return totals.filter { !local.testFiles.contains($0.key) }
            .map { Orphan(test: $0.key, objects: $0.value.objects, bytes: $0.value.bytes) }
            .sorted { $0.test < $1.test }
    }
}
