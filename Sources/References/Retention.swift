import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore

extension ReferenceTransfers {
    /// `refs prune`: removes feature's kept pushes and CI's candidate runs that are older than `age`
    /// (when given), and the pushes a promotion already took in (their commit is an ancestor of the
    /// merge develop's record says last promoted the test; only with `history`), in every set. The
    /// latest copies, in any set, are never touched.
    public func prunePushes(olderThan age: Duration?, history: CommitHistory?, dryRun: Bool) async throws
        -> [PrunedPush]
    {
        var pruned: [PrunedPush] = []
        for name in try await everySet(.feature) {
            pruned += try await inSet(name).prunePushesInSet(olderThan: age, history: history, dryRun: dryRun)
        }
        return pruned
    }

    /// `refs prune` in the run's own set: its kept pushes, checked against its own promotion record.
    private func prunePushesInSet(olderThan age: Duration?, history: CommitHistory?, dryRun: Bool) async throws
        -> [PrunedPush]
    {
        let set = stores.environmentName
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
                pruned.append(PrunedPush(test: test, commit: commit, reason: reason, set: set))
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
                        reason: "CI's candidates of \(run.createdAt), older than \(age.specText)", set: set))
            }
        }
        return pruned
    }

    /// Tests with references in develop (or `role`) whose test file is gone from the checkout, in
    /// every set: the shared one and each environment's, found in one listing of the store.
    public func orphans(in role: StoreRole = .develop) async throws -> [Orphan] {
        let location = try stores.sharedFolder(role)
        let local = stores.local(testPattern: testPattern)
        let objects = try await location.store.list(under: location.prefix).map { object in
            (key: location.prefix.flatMap { object.key.relative(to: $0) } ?? object.key, size: object.size)
        }
        let sets = Set(ObjectKey.environmentSets(among: objects.map(\.key)))
        var totals: [Orphan.Place: (objects: Int, bytes: Int64)] = [:]
        for object in objects {
            let set = sets.contains(object.key.firstSegment) ? object.key.firstSegment : nil
            guard
                let key = set.map({ name in (try? ObjectKey(name)).flatMap(object.key.relative) }) ?? object.key,
                key.isReference
            else { continue }
            totals[Orphan.Place(set: set, test: key.firstSegment), default: (0, 0)].objects += 1
            totals[Orphan.Place(set: set, test: key.firstSegment), default: (0, 0)].bytes += object.size
        }
        return totals.filter { !local.testFiles.contains($0.key.test) }
            .map { Orphan(test: $0.key.test, objects: $0.value.objects, bytes: $0.value.bytes, set: $0.key.set) }
            .sorted { ($0.set ?? "", $0.test) < ($1.set ?? "", $1.test) }
    }
}
