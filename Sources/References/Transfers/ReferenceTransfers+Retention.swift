import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec

/// What `refs prune` keeps however old: pushes whose commit an open branch still holds.
public struct RetentionGuard: Sendable {
    /// The branch tips that hold open work, by name: each branch the checkout knows (remote and
    /// local) that is not merged into its HEAD, and each branch named for it.
    public var openBranches: [(name: String, sha: String)] = []
    /// The checkout's HEAD (the integration branch a scheduled job prunes from): what it holds is
    /// merged, whichever open branch holds it too.
    public var head: String?
    /// Remove old pushes even so.
    public var force = false

    public init(openBranches: [(name: String, sha: String)] = [], head: String? = nil, force: Bool = false) {
        (self.openBranches, self.head, self.force) = (openBranches, head, force)
    }

    /// The open branches of `history`'s checkout: its remote-tracking and local branches not
    /// merged into HEAD, and `named` (revisions such as `origin/feature/login`) whatever they hold.
    public static func openBranches(in history: CommitHistory, named: [String]) throws(GitError)
        -> [(name: String, sha: String)]
    {
        let head = try? history.sha("HEAD")
        var open: [(name: String, sha: String)] = []
        for branch in try history.branches(matching: "refs/remotes/*") + history.branches(matching: "refs/heads/*") {
            if let head, try history.isAncestor(branch.sha, of: head) == true { continue }
            open.append(branch)
        }
        for name in named { open.append((name, try history.sha(name))) }
        return open
    }
}

/// What `refs prune` removed, and what it kept although old, with why.
public struct PruneOutcome: Sendable {
    public var removed: [PrunedPush] = []
    public var kept: [PrunedPush] = []
}

extension ReferenceTransfers {
    /// `refs prune`: removes feature's kept pushes and CI's candidate runs that are older than `age`
    /// (when given), and the pushes a promotion already took in (their commit is an ancestor of the
    /// merge develop's record says last promoted the test; only with `history`), in every set. The
    /// latest copies, in any set, are never touched; nor, unless `guarding.force`, an old push whose
    /// commit an open branch holds (a pull request open for long still merges what it pushed).
    public func prunePushes(
        olderThan age: Duration?, history: CommitHistory?, guarding: RetentionGuard = RetentionGuard(), dryRun: Bool
    ) async throws -> PruneOutcome {
        var outcome = PruneOutcome()
        for name in try await everySet(.feature) {
            let part = try await inSet(name).prunePushesInSet(
                olderThan: age, history: history, guarding: guarding, dryRun: dryRun)
            outcome.removed += part.removed
            outcome.kept += part.kept
        }
        return outcome
    }

    /// `refs prune` in the run's own set: its kept pushes, checked against its own promotion record.
    private func prunePushesInSet(
        olderThan age: Duration?, history: CommitHistory?, guarding: RetentionGuard, dryRun: Bool
    ) async throws -> PruneOutcome {
        let set = stores.environmentName
        let now = self.now()
        let feature = try stores.folder(.feature)
        let archive = PushArchive(feature: feature)
        let develop = stores.settings.address(of: .develop) == nil ? nil : try stores.folder(.develop)
        let ledger = develop.map {
            PromotionLedger(develop: $0, feature: feature, lease: promotionLease, parallelism: 1, now: self.now)
        }
        var outcome = PruneOutcome()
        // A removal a stopped prune began is finished first.
        for (test, commit) in try await archive.unfinishedRemovals() where !dryRun {
            try await archive.remove(test, by: commit)
            outcome.removed.append(
                PrunedPush(test: test, commit: commit, reason: "its removal had been stopped midway", set: set))
        }
        var holders: [String: String?] = [:]
        /// The open branch holding `commit`, if any.
        func holder(of commit: String) throws -> String? {
            if let known = holders[commit] { return known }
            var found: String?
            if let history, try guarding.head.map({ try history.isAncestor(commit, of: $0) }) != true {
                for branch in guarding.openBranches where try history.isAncestor(commit, of: branch.sha) == true {
                    found = branch.name
                    break
                }
            }
            holders[commit] = found
            return found
        }
        for (test, commits) in try await archive.allCommits().sorted(by: { $0.key < $1.key }) {
            let promoted = try await ledger?.read(test).record.commit
            for commit in commits.sorted() {
                var reason: String?
                if let promoted, let history, try history.isAncestor(commit, of: promoted) == true {
                    reason = "merged and promoted by \(promoted.prefix(12))"
                } else if let age, let record = try await archive.record(of: test, by: commit),
                    let pushedAt = Timestamp.date(record.pushedAt), now.timeIntervalSince(pushedAt) >= age.seconds
                {
                    if !guarding.force, let branch = try holder(of: commit) {
                        outcome.kept.append(
                            PrunedPush(
                                test: test, commit: commit,
                                reason:
                                    "pushed \(record.pushedAt), older than \(age.specText), but still on \(branch), "
                                    + "not merged; --force removes it", set: set))
                        continue
                    }
                    reason = "pushed \(record.pushedAt), older than \(age.specText)"
                }
                guard let reason else { continue }
                if !dryRun { try await archive.remove(test, by: commit) }
                outcome.removed.append(PrunedPush(test: test, commit: commit, reason: reason, set: set))
            }
        }
        if let age {
            let candidates = CandidateArchive(feature: feature, now: self.now)
            for run in try await candidates.allRuns() {
                guard let at = Timestamp.date(run.createdAt), now.timeIntervalSince(at) >= age.seconds else {
                    continue
                }
                if !dryRun { try await candidates.remove(run) }
                outcome.removed.append(
                    PrunedPush(
                        test: "\(CandidateArchive.folder)/\(run.run)", commit: run.commit,
                        reason: "CI's candidates of \(run.createdAt), older than \(age.specText)", set: set))
            }
        }
        return outcome
    }

    /// Tests with references in develop (or `role`) whose test file is gone from the checkout, in
    /// every set: the shared one and each environment's, found in one listing of the store.
    public func orphans(in role: StoreRole = .develop) async throws -> [Orphan] {
        let local = stores.local(testPattern: testPattern)
        return try await referencesByTest(in: role).filter { !local.testFiles.contains($0.key.test) }
            .map { Orphan(test: $0.key.test, objects: $0.value.objects, bytes: $0.value.bytes, set: $0.key.set) }
            .sorted { ($0.set ?? "", $0.test) < ($1.set ?? "", $1.test) }
    }

    /// How many references, and how many bytes, `role` holds of each test in each set (the shared
    /// one and each environment's), in one listing of the store.
    func referencesByTest(in role: StoreRole) async throws -> [Orphan.Place: (objects: Int, bytes: Int64)] {
        let objects = try await stores.everyObject(role)
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
        return totals
    }
}

extension ReferenceTransfers {
    /// What `refs migrate` did to one store.
    public struct RecordsMoved: Sendable, Encodable, Equatable {
        public let store: String
        public let moved: Int
        public let bytes: Int64
        /// Where they went: `<store> (.pipeline/migrated/feature)`.
        public let destination: String
    }

    /// `refs migrate`: moves the records an earlier release kept below feature's and develop's
    /// prefixes (`.pushes/`, `.candidates/`, `.promotions/`, `pipeline-timings.json`, …) beside
    /// them, below `.pipeline/` (`RecordLayout`); each copied, checked and then deleted, so a run
    /// stopped anywhere loses nothing and the next finishes it. Every release since reads both
    /// layouts; this makes `feature/` and `develop/` hold references only.
    public func migrateRecords(
        dryRun: Bool, progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in }
    ) async throws -> [RecordsMoved] {
        var result: [RecordsMoved] = []
        for role in StoreRole.allCases where stores.settings.address(of: role) != nil {
            guard let scoped = try stores.sharedFolder(role).store as? ScopedRecords else {
                throw ReferenceError.notConfigured(
                    "PIPELINE_RECORDS=earlier keeps the records below the reference prefixes; unset it to migrate them")
            }
            let moved = try await scoped.migrate(dryRun: dryRun) { done, total in progress(role.rawValue, done, total) }
            result.append(
                RecordsMoved(
                    store: role.rawValue, moved: moved.moved, bytes: moved.bytes, destination: moved.destination))
        }
        return result
    }
}
