import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec

extension ReferenceTransfers {
    /// Makes the checkout hold what `role` holds for `tests` (every test there when nil, but
    /// those `excluded`): downloads what differs and deletes local images the store does not have.
    /// Tests with local references only are kept; tests with no place in the checkout are skipped.
    /// A named test the store has nothing of is an error, or with `skippingMissing` left as it is.
    public func pull(
        tests: [String]?, from role: StoreRole, excluding excluded: Set<String> = [],
        skippingMissing: Bool = false, dryRun: Bool
    ) async throws -> TransferReport {
        let folder = try stores.folder(role)
        let unfinished = role == .develop ? try await awaitPromotions(in: folder, of: tests) : []
        var report = try await pull(
            tests: tests, chain: try stores.chain(role), excluding: excluded, skippingMissing: skippingMissing,
            dryRun: dryRun)
        if !unfinished.isEmpty {
            report.notes.append(
                "a promotion of \(unfinished.joined(separator: ", ")) stopped midway, so \(folder.name) may hold files of "
                    + "two merges there; re-running that promotion (or the next one) completes it")
        }
        return report
    }

    /// Waits, up to a promotion's lease, while promotions write the folders of `tests` (all when
    /// nil) in `develop`; returns those still being written then (a job that stopped midway).
    private func awaitPromotions(in develop: StoreLocation, of tests: [String]?) async throws -> [String] {
        guard develop.store is any SharedStore else { return [] }
        let ledger = PromotionLedger(
            develop: develop, feature: develop, lease: promotionLease, parallelism: 1, now: now)
        let deadline = now().addingTimeInterval(promotionLease.seconds)
        while true {
            var busy = try await ledger.inProgress()
            if let tests { busy.formIntersection(tests) }
            if busy.isEmpty || now() >= deadline { return busy.sorted() }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// `refs pull TEST… --from feature --commit REV`: each named test's references as the newest
    /// push from `commit` or its ancestors left them (feature's latest copy for a test never
    /// pushed with a record).
    public func pull(tests: [String], pushedBy commit: String, history: CommitHistory, dryRun: Bool) async throws
        -> [TransferReport]
    {
        let archive = PushArchive(feature: try stores.folder(.feature))
        let recorded = try await archive.allCommits()  // one listing for every test
        var groups: [String?: [String]] = [:]
        for test in Set(tests).sorted() {
            guard let commits = recorded[test], !commits.isEmpty else {
                groups[nil, default: []].append(test)
                continue
            }
            let found = try await archive.newestPush(of: test, among: commits, history: history) {
                try history.isAncestor($0, of: commit) == true
            }
            guard let found else {
                throw ReferenceError.noReferences(
                    test: test, store: "feature's pushes from \(commit.prefix(12)) and its ancestors")
            }
            groups[found, default: []].append(test)
        }
        var reports: [TransferReport] = []
        for (pushCommit, group) in groups.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            let source = try pushCommit.map(archive.pushed) ?? archive.feature
            var report = try await pull(tests: group, from: source, dryRun: dryRun)
            if let pushCommit { for test in group { report.pushCommits[test] = pushCommit } }
            reports.append(report)
        }
        return reports
    }

    /// Pulls `tests` (all when nil, but `excluded`) along `chain`: each file from the first set that
    /// has it (one listing per set), the report counting what each set gave. A chain of one set is
    /// a plain pull.
    private func pull(
        tests: [String]?, chain: [(name: String?, folder: StoreLocation)], excluding excluded: Set<String> = [],
        excludingFiles excludedFiles: Set<ObjectKey> = [], skippingMissing: Bool = false, dryRun: Bool
    ) async throws -> TransferReport {
        guard chain.count > 1 else {
            return try await pull(
                tests: tests, from: chain[0].folder, excluding: excluded, excludingFiles: excludedFiles,
                skippingMissing: skippingMissing, dryRun: dryRun)
        }
        let left = { (key: ObjectKey) in excluded.contains(key.firstSegment) || excludedFiles.contains(key) }
        let local = stores.local(testPattern: testPattern)
        var taken: [ObjectKey: String] = [:]
        var stale: Set<ObjectKey>?
        var steps: [(name: String, sync: StoreSync, plan: SyncWork)] = []
        for (name, folder) in chain {
            let sync = StoreSync(from: folder, to: StoreLocation(store: local), parallelism: parallelism)
            var plan = try await sync.plan(tests: tests)
            let keep = { (key: ObjectKey) in taken[key] == nil && !left(key) }
            plan.copies.removeAll { !keep($0) }
            plan.identical.removeAll { !keep($0) }
            plan.overwrites.removeAll { !keep($0) }
            for key in plan.copies + plan.identical { taken[key] = name ?? "shared" }
            // What the checkout holds that no set has: stale in every set.
            stale = stale.map { $0.intersection(plan.stale) } ?? Set(plan.stale)
            plan.stale = []
            steps.append((name ?? "shared", sync, plan))
        }
        let found = Set(taken.keys.map(\.firstSegment))
        if !skippingMissing, let missing = tests?.first(where: { !found.contains($0) && !excluded.contains($0) }) {
            throw ReferenceError.noReferences(
                test: missing, store: "any set of " + chain.map { $0.name ?? "shared" }.joined(separator: ", "))
        }
        var skipped: [String: String] = [:]
        let leftover = (stale ?? []).filter { !left($0) }
        for test in Set(leftover.map(\.firstSegment)).subtracting(found) {
            skipped[test] = "only local references; kept"
        }
        for test in found { if let problem = local.problem(placing: test) { skipped[test] = problem.description } }
        var report = TransferReport(
            action: "pull", from: chain.map { $0.folder.name }.joined(separator: " → "), to: local.name,
            tests: tests.map { $0.filter(found.contains) } ?? found.sorted(), commit: nil, dryRun: dryRun,
            skipped: skipped)
        var counts: [String: Int] = [:]
        for (key, name) in taken where skipped[key.firstSegment] == nil { counts[name, default: 0] += 1 }
        report.sets = counts
        report.fileSets = Dictionary(
            uniqueKeysWithValues: taken.filter { skipped[$0.key.firstSegment] == nil }.map {
                ($0.key.rawValue, $0.value)
            })
        for step in steps {
            var plan = step.plan
            plan.copies.removeAll { skipped[$0.firstSegment] != nil }
            let done = await carryOut(plan, with: step.sync, report: report, commit: nil, prune: false)
            report.copied += done.copied.filter { !report.copied.contains($0) }
            report.failures += done.failures
        }
        report.identical = steps.reduce(0) { $0 + $1.plan.identical.filter { skipped[$0.firstSegment] == nil }.count }
        var deletion = steps[0].plan
        (deletion.copies, deletion.identical, deletion.overwrites) = ([], [], [])
        deletion.stale = leftover.filter { skipped[$0.firstSegment] == nil }.sorted()
        let deleted = await carryOut(deletion, with: steps[0].sync, report: report, commit: nil, prune: true)
        report.stale = deleted.stale
        report.deleted = deleted.deleted
        report.failures += deleted.failures.filter { !report.failures.contains($0) }
        return report
    }

    /// Pulls `tests` (all when nil, but `excluded`) from `source`, but `excludedFiles`; with `only`,
    /// just those files are copied or deleted, over what the checkout holds.
    private func pull(
        tests: [String]?, from source: StoreLocation, excluding excluded: Set<String> = [],
        excludingFiles excludedFiles: Set<ObjectKey> = [], skippingMissing: Bool = false,
        only files: FileChanges? = nil,
        dryRun: Bool
    ) async throws -> TransferReport {
        let local = stores.local(testPattern: testPattern)
        let sync = StoreSync(from: source, to: StoreLocation(store: local), parallelism: parallelism)
        var plan = try await sync.plan(tests: tests)
        if let files { files.restrict(&plan) }
        if !skippingMissing, let missing = plan.testsWithoutReferences.first {
            throw ReferenceError.noReferences(test: missing, store: source.name)
        }
        plan.copies.removeAll { excluded.contains($0.firstSegment) || excludedFiles.contains($0) }
        plan.stale.removeAll { excluded.contains($0.firstSegment) || excludedFiles.contains($0) }
        plan.identical.removeAll { excluded.contains($0.firstSegment) || excludedFiles.contains($0) }
        let sourceTests = Set((plan.copies + plan.identical).map(\.firstSegment))
        var skipped: [String: String] = [:]
        for test in Set(plan.stale.map(\.firstSegment)).subtracting(sourceTests) {
            skipped[test] = "only local references; kept"
        }
        for test in sourceTests {
            if let problem = local.problem(placing: test) { skipped[test] = problem.description }
        }
        plan.copies.removeAll { skipped[$0.firstSegment] != nil }
        plan.stale.removeAll { skipped[$0.firstSegment] != nil }
        let report = TransferReport(
            action: "pull", from: source.name, to: local.name,
            tests: tests.map { $0.filter(sourceTests.contains) } ?? sourceTests.sorted(),
            commit: nil, dryRun: dryRun, skipped: skipped)
        return await carryOut(plan, with: sync, report: report, commit: nil, prune: true)
    }

    /// What a run needs before its tests: every test's references from `base` (develop), and the
    /// `changed` tests' from `changedFrom` (feature) where it holds them. A test pushed with a
    /// record gets, over develop's files, the files its push changed (as promotion will copy them);
    /// a test without records gets feature's latest copy whole.
    public func pullForRun(
        changed: [String], changes: ChangeSet, history: CommitHistory?, base: StoreRole, changedFrom: StoreRole?,
        dryRun: Bool
    ) async throws -> [TransferReport] {
        guard let changedFrom, let history, !changed.isEmpty else {
            return [try await pull(tests: nil, chain: try stores.chain(base), dryRun: dryRun)]
        }
        let source = try stores.folder(changedFrom)
        let sources = try await pushSources(of: changed, in: source, changes: changes, history: history)
        let archive = PushArchive(feature: source)
        var overlays: [(commit: String, tests: [String], files: FileChanges)] = []
        for (commit, tests) in sources.pushed.sorted(by: { $0.key < $1.key }) {
            var changed: [String: (changed: [String], removed: [String])] = [:]
            for test in tests { changed[test] = try await archive.record(of: test, by: commit)?.changes }
            overlays.append((commit, tests, try FileChanges(changed)))
        }
        // Tests never pushed with a record come whole from feature's latest copy, where it has one
        // (an environment's set new to feature has none: they stay develop's, along the chain).
        var unrecorded = sources.unrecorded
        if !unrecorded.isEmpty {
            let local = StoreLocation(store: stores.local(testPattern: testPattern))
            let listed = try await StoreSync(from: source, to: local, parallelism: parallelism).plan(tests: unrecorded)
            unrecorded.removeAll(where: listed.testsWithoutReferences.contains)
        }
        // Develop's files first, but those the pushes replace or remove.
        var reports = [
            try await pull(
                tests: nil, chain: try stores.chain(base), excluding: Set(unrecorded),
                excludingFiles: overlays.reduce(into: Set<ObjectKey>()) { $0.formUnion($1.files.all) }, dryRun: dryRun)
        ]
        for overlay in overlays {
            var report = try await pull(
                tests: overlay.tests, from: try archive.pushed(by: overlay.commit), skippingMissing: true,
                only: overlay.files, dryRun: dryRun)
            for test in overlay.tests { report.pushCommits[test] = overlay.commit }
            reports.append(report)
        }
        if !unrecorded.isEmpty {
            reports.append(try await pull(tests: unrecorded, from: source, skippingMissing: true, dryRun: dryRun))
        }
        return reports
    }
}
