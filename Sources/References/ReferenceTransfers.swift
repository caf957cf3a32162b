import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore

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
    /// Develop references promoted after the branch was cut (overwritten only with `--force`).
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
    /// Tests whose references are committed in git: promoted from the merge commit itself.
    public var committed: [String] = []
    /// What the command could not guarantee, one line each.
    public var notes: [String] = []
    public var failures: [String] = []
}

/// One source of a promotion and what it copies. A recorded unit (a push, or the merge commit)
/// names the files it changed; an unrecorded one (feature's latest copy) is checked against
/// merges after the branch was cut.
struct PromotionUnit {
    var sync: StoreSync
    var plan: SyncPlan
    var recorded: Bool
}

/// The files a push or a merge changed, as keys (`Test/name`): added or changed, and removed.
struct FileChanges {
    var changed: Set<ObjectKey> = []
    var removed: Set<ObjectKey> = []

    /// From each test's changed and removed file names.
    init(_ tests: [String: (changed: [String], removed: [String])]) throws(StoreError) {
        for (test, change) in tests {
            for name in change.changed { changed.insert(try ObjectKey("\(test)/\(name)")) }
            for name in change.removed { removed.insert(try ObjectKey("\(test)/\(name)")) }
        }
    }

    var all: Set<ObjectKey> { changed.union(removed) }

    /// Keeps of `plan` only the copies of changed files and the deletions of removed ones.
    func restrict(_ plan: inout SyncPlan) {
        plan.copies.removeAll { !changed.contains($0) }
        plan.overwrites.removeAll { !changed.contains($0) }
        plan.stale.removeAll { !removed.contains($0) }
    }
}

/// Objects done of a known total, counted across the tests promoted at once.
actor ObjectCounter {
    nonisolated let total: Int
    private var done = 0

    init(total: Int) { self.total = total }

    func next() -> Int {
        done += 1
        return done
    }
}

/// A push of feature's archive that `refs prune` removed (or, in a dry run, would remove).
public struct PrunedPush: Sendable, Equatable, Encodable {
    public let test: String
    public let commit: String
    public let reason: String
}

/// A test with references in develop and no test file in the checkout.
public struct Orphan: Sendable, Equatable, Encodable {
    public let test: String
    public let objects: Int
    public let bytes: Int64
}

/// The team's reference scripts as operations: pull from a store into the checkout, push the
/// checkout's references of named tests to stores, promote feature to develop after a merge, and
/// find orphans. Every transfer copies only what differs and is safe to re-run.
public struct ReferenceTransfers: Sendable {
    public let stores: ReferenceStores
    public let testPattern: String
    public let parallelism: Int
    /// Hears `(action, done, total)` as objects are copied or deleted.
    public let progress: @Sendable (String, Int, Int) async -> Void
    /// How long a promotion's claim on a test holds before another job may complete it: 60 s, or
    /// `PIPELINE_PROMOTION_LEASE` seconds (docs/references.md).
    public var promotionLease = ReferenceTransfers.lease(ProcessInfo.processInfo.environment)

    static func lease(_ environment: [String: String]) -> Duration {
        guard let seconds = environment["PIPELINE_PROMOTION_LEASE"].flatMap(Double.init), seconds > 0, seconds < 86_400
        else { return .seconds(60) }
        return .milliseconds(Int64(seconds * 1000))
    }

    public init(
        stores: ReferenceStores, testPattern: String, parallelism: Int = 16,
        progress: @escaping @Sendable (String, Int, Int) async -> Void = { _, _, _ in }
    ) {
        self.stores = stores
        self.testPattern = testPattern
        self.parallelism = parallelism
        self.progress = progress
    }

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
            tests: tests, from: folder, excluding: excluded, skippingMissing: skippingMissing, dryRun: dryRun)
        if !unfinished.isEmpty {
            report.notes.append(
                "a promotion of \(unfinished.joined(separator: ", ")) stopped midway, so \(folder.name) may hold files of "
                    + "two merges there; re-running that promotion (or the next one) completes it")
        }
        return report
    }

    /// Waits, up to a promotion's lease, while promotions write the folders of `tests` (all when
    /// nil) in `develop`; returns those still being written then (a job that stopped midway).
    private func awaitPromotions(in develop: StoreFolder, of tests: [String]?) async throws -> [String] {
        guard develop.store is any SharedStore else { return [] }
        let ledger = PromotionLedger(develop: develop, feature: develop, lease: promotionLease, parallelism: 1)
        let deadline = ContinuousClock.now + promotionLease
        while true {
            var busy = try await ledger.inProgress()
            if let tests { busy.formIntersection(tests) }
            if busy.isEmpty || ContinuousClock.now >= deadline { return busy.sorted() }
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

    /// Pulls `tests` (all when nil, but `excluded`) from `source`, but `excludedFiles`; with `only`,
    /// just those files are copied or deleted, over what the checkout holds.
    private func pull(
        tests: [String]?, from source: StoreFolder, excluding excluded: Set<String> = [],
        excludingFiles excludedFiles: Set<ObjectKey> = [], skippingMissing: Bool = false,
        only files: FileChanges? = nil,
        dryRun: Bool
    ) async throws -> TransferReport {
        let local = stores.local(testPattern: testPattern)
        let sync = StoreSync(from: source, to: StoreFolder(store: local), parallelism: parallelism)
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
            return [try await pull(tests: nil, from: try stores.folder(base), dryRun: dryRun)]
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
        // Develop's files first, but those the pushes replace or remove.
        var reports = [
            try await pull(
                tests: nil, from: try stores.folder(base), excluding: Set(sources.unrecorded),
                excludingFiles: overlays.reduce(into: Set<ObjectKey>()) { $0.formUnion($1.files.all) }, dryRun: dryRun)
        ]
        for overlay in overlays {
            var report = try await pull(
                tests: overlay.tests, from: try archive.pushed(by: overlay.commit), skippingMissing: true,
                only: overlay.files, dryRun: dryRun)
            for test in overlay.tests { report.pushCommits[test] = overlay.commit }
            reports.append(report)
        }
        if !sources.unrecorded.isEmpty {
            reports.append(
                try await pull(tests: sources.unrecorded, from: source, skippingMissing: true, dryRun: dryRun))
        }
        return reports
    }

    /// Where each of `tests` comes from in `feature` for the comparison `changes`: the push of the
    /// newest commit it brought in (an ancestor of the head, not of the base), grouped by commit;
    /// tests never pushed with a record (feature's latest copy, as before records were kept); and
    /// tests whose pushes all come from other commits.
    func pushSources(of tests: [String], in feature: StoreFolder, changes: ChangeSet, history: CommitHistory)
        async throws -> (pushed: [String: [String]], unrecorded: [String], notPushed: [String])
    {
        let archive = PushArchive(feature: feature)
        let recorded = try await archive.allCommits()  // one listing for every test
        var pushed: [String: [String]] = [:]
        var unrecorded: [String] = []
        var notPushed: [String] = []
        var known: [String: Bool] = [:]
        for test in Set(tests).sorted() {
            guard let commits = recorded[test], !commits.isEmpty else {
                unrecorded.append(test)
                continue
            }
            let commit = try await archive.newestPush(of: test, among: commits, history: history) { commit in
                if let answer = known[commit] { return answer }
                let answer = try Self.isBroughtIn(commit, by: changes, history: history)
                known[commit] = answer
                return answer
            }
            if let commit { pushed[commit, default: []].append(test) } else { notPushed.append(test) }
        }
        return (pushed, unrecorded, notPushed)
    }

    /// Whether the comparison `changes` brought `commit` in: an ancestor of its head, not of its base.
    static func isBroughtIn(_ commit: String, by changes: ChangeSet, history: CommitHistory) throws -> Bool {
        guard try history.isAncestor(commit, of: changes.head) == true else { return false }
        guard let base = changes.base else { return true }
        return try history.isAncestor(commit, of: base) != true
    }

    /// The tests whose references a comparison changed: those whose test file or reference folder
    /// it changed in git, and those whose references in `from` (feature) were pushed from one of
    /// its commits and differ from `to` (develop) — what a branch recorded while its test files did
    /// not change, as with references kept out of git or a shared component changed.
    public func changedTests(
        _ changes: ChangeSet, history: CommitHistory, from: StoreRole = .feature,
        to: StoreRole = .develop
    ) async throws -> (all: [String], pushed: [String]) {
        guard stores.settings.address(of: from) != nil, stores.settings.address(of: to) != nil else {
            return (changes.promotable, [])
        }
        let source = try stores.folder(from)
        let destination = try stores.folder(to)
        let candidates = try await StoreSync(from: source, to: destination, parallelism: parallelism).plan(tests: nil)
            .copies
            .filter { !changes.promotable.contains($0.firstSegment) }
        let commits = try await StoreSync.concurrently(candidates, limit: parallelism) { key async throws(StoreError) in
            try await source.store.metadata(of: key.under(source.prefix))[StoreSync.commitMetadata]
        }
        var pushed: Set<String> = []
        var known: [String: Bool] = [:]
        for (key, commit) in zip(candidates, commits) {
            guard let commit, !pushed.contains(key.firstSegment) else { continue }
            if known[commit] == nil {
                let inHead = try history.isAncestor(commit, of: changes.head) == true
                let inBase = try changes.base.map { try history.isAncestor(commit, of: $0) } ?? false
                known[commit] = inHead && inBase == false
            }
            if known[commit] == true { pushed.insert(key.firstSegment) }
        }
        // Pushes kept with a record: the latest copy may be another branch's by now.
        for (test, commits) in try await PushArchive(feature: source).allCommits()
        where !changes.promotable.contains(test) && !pushed.contains(test) {
            for commit in commits {
                if known[commit] == nil { known[commit] = try Self.isBroughtIn(commit, by: changes, history: history) }
                if known[commit] == true { pushed.insert(test) }
            }
        }
        return (Set(changes.promotable).union(pushed).sorted(), pushed.sorted())
    }

    /// Uploads the checkout's references of `tests` to each of `roles`, recording `commit`.
    /// Every name must be a test of the checkout with local references.
    public func push(
        tests: [String], to roles: [StoreRole], commit: String?, prune: Bool,
        dryRun: Bool
    ) async throws -> [TransferReport] {
        let local = stores.local(testPattern: testPattern)
        let withReferences = Set(try await local.testsWithReferences())
        for test in tests {
            guard local.testFiles.contains(test) else {
                throw ReferenceError.notATest(test, reason: "no test file \(test).swift in \(local.checkout.path)")
            }
            if let problem = local.problem(placing: test) {
                throw ReferenceError.notATest(test, reason: problem.description)
            }
            guard withReferences.contains(test) else {
                throw ReferenceError.notATest(test, reason: "it has no local references in \(local.name)")
            }
        }
        return try await push(
            tests: tests, from: StoreFolder(store: local), to: roles, commit: commit, prune: prune, dryRun: dryRun,
            renderedOn: RenderEnvironment.current(package: stores.base, environment: stores.environment))
    }

    /// Uploads `source`'s references of `tests` to each of `roles`, recording `commit` and where
    /// they were rendered; feature keeps the push under the commit, its record naming
    /// `acceptedFrom` when it came from CI's candidates.
    func push(
        tests: [String], from source: StoreFolder, to roles: [StoreRole], commit: String?, prune: Bool,
        dryRun: Bool, renderedOn: RenderEnvironment?, acceptedFrom run: String? = nil
    ) async throws -> [TransferReport] {
        let metadata = renderedOn.map { [StoreSync.renderedOnMetadata: $0.metadataValue] } ?? [:]
        var reports: [TransferReport] = []
        for role in roles {
            let destination = try stores.folder(role)
            let sync = StoreSync(from: source, to: destination, parallelism: parallelism)
            let plan = try await sync.plan(tests: tests)
            let report = TransferReport(
                action: run == nil ? "push" : "accept", from: source.name, to: destination.name,
                tests: Set(tests).sorted(), commit: commit, dryRun: dryRun)
            reports.append(
                await carryOut(plan, with: sync, report: report, commit: commit, prune: prune, metadata: metadata))
            if role == .feature, let commit, !dryRun, reports.last?.failures.isEmpty == true {
                try await keep(
                    tests, from: source, pushedBy: commit, in: destination, metadata: metadata, acceptedFrom: run)
            }
        }
        return reports
    }

    /// Keeps `commit`'s push of `tests` from `source` in feature's archive beside the latest copy:
    /// the files, then a record naming them and what develop held of each test (read from develop
    /// unless given), which later says what the push changed.
    private func keep(
        _ tests: [String], from source: StoreFolder, pushedBy commit: String, in feature: StoreFolder,
        develop bases: [String: [String: String]]? = nil, metadata: [String: String] = [:],
        acceptedFrom run: String? = nil
    ) async throws {
        let archive = PushArchive(feature: feature)
        let kept = StoreSync(from: source, to: try archive.pushed(by: commit), parallelism: parallelism)
        let plan = try await kept.plan(tests: tests)
        let result = await kept.execute(plan, commit: commit, prune: true, metadata: metadata)
        if let failure = result.failures.first {
            throw StoreError.transport(
                endpoint: feature.name, reason: "keeping the push of \(commit.prefix(12)): \(failure)")
        }
        let develop = stores.settings.address(of: .develop) == nil ? nil : try? stores.folder(.develop)
        let pushedAt = Timestamp.now()
        for test in Set(tests).sorted() {
            let files = try await Self.files(of: test, in: source)
            var base = bases?[test]
            if bases == nil, let develop { base = try? await Self.files(of: test, in: develop) }
            try await archive.save(
                PushRecord(commit: commit, pushedAt: pushedAt, files: files, develop: base, acceptedFrom: run), of: test
            )
        }
    }

    /// A test's files in a store: name → MD5.
    static func files(of test: String, in folder: StoreFolder) async throws -> [String: String] {
        let root = try ObjectKey(test).under(folder.prefix)
        var files: [String: String] = [:]
        for object in try await folder.store.list(under: root) {
            if let name = object.key.relative(to: root) { files[name.rawValue] = object.etag }
        }
        return files
    }

    /// Promotes to `to` (develop) what the compared commits pushed of `tests` to `from` (feature),
    /// by default the tests the comparison changed, recording the compared head commit. A test
    /// pushed with a record is taken file by file from the push of the newest commit the comparison
    /// brought in: the files that push added or changed against what develop held when it was
    /// pushed (and, with `prune`, removes the ones it removed); every other file stays as develop
    /// has it. A test never pushed with a record is taken whole from feature's latest copy. A
    /// develop file a later merge promoted is not overwritten; one a merge promoted after the
    /// branch was cut is a conflict: reported, and overwritten only when `force` is set.
    public func promote(
        tests: [String]?, changes: ChangeSet, history: CommitHistory,
        from: StoreRole = .feature, to: StoreRole = .develop,
        force: Bool, prune: Bool, dryRun: Bool
    ) async throws -> TransferReport {
        var pushed: [String] = []
        if tests == nil { pushed = try await changedTests(changes, history: history, from: from, to: to).pushed }
        let tests = Set(tests ?? (changes.promotable + pushed)).sorted()
        let source = try stores.folder(from)
        let destination = try stores.folder(to)
        var report = TransferReport(
            action: "promote", from: source.name, to: destination.name, tests: tests,
            commit: changes.head, dryRun: dryRun)
        report.pushed = pushed
        guard !tests.isEmpty else { return report }
        let committed = try CommittedReferences.find(
            tests, changes: changes, history: history, local: stores.local(testPattern: testPattern))
        let sources = try await pushSources(
            of: tests.filter { committed.tests[$0] == nil }, in: source, changes: changes, history: history)
        for test in sources.notPushed {
            report.skipped[test] = "changed by this merge, but no references were pushed from its commits"
        }
        // A unit is one source: feature's latest copy (whose changes are checked against merges
        // after the branch was cut), one commit's push (whose record says which files it changed),
        // or the merge commit's references committed in git (which git says it changed).
        var units: [PromotionUnit] = []
        if !sources.unrecorded.isEmpty {
            let sync = StoreSync(from: source, to: destination, parallelism: parallelism)
            let plan = try await sync.plan(tests: sources.unrecorded)
            for test in plan.testsWithoutReferences { report.skipped[test] = "no references in \(source.name)" }
            units.append(PromotionUnit(sync: sync, plan: plan, recorded: false))
        }
        let archive = PushArchive(feature: source)
        for (commit, group) in sources.pushed.sorted(by: { $0.key < $1.key }) {
            var changed: [String: (changed: [String], removed: [String])] = [:]
            for test in group {
                report.pushCommits[test] = commit
                changed[test] = try await archive.record(of: test, by: commit)?.changes
            }
            units.append(
                try await unit(from: try archive.pushed(by: commit), to: destination, tests: group, changes: changed))
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-git-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        if !committed.isEmpty {
            report.committed = committed.tests.keys.sorted()
            let changed = committed.tests.mapValues(\.changes).filter {
                !$0.value.changed.isEmpty || !$0.value.removed.isEmpty
            }
            for test in committed.tests.keys where changed[test] == nil {
                report.skipped[test] = "its references are committed in git, and this merge did not change them"
            }
            let staged = CommittedReferences(tests: committed.tests.filter { changed[$0.key] != nil })
            if !staged.isEmpty {
                let from = try await stage(staged, of: changes.head, at: scratch, in: source, dryRun: dryRun)
                for test in staged.tests.keys { report.pushCommits[test] = changes.head }
                units.append(
                    try await unit(from: from, to: destination, tests: staged.tests.keys.sorted(), changes: changed))
            }
        }
        let cut = try history.branchPoint(of: changes)
        for index in units.indices {
            let later = try await check(
                units[index].plan.overwrites + (prune ? units[index].plan.stale : []), in: destination,
                cut: units[index].recorded ? nil : cut, head: changes.head, history: history, report: &report)
            units[index].plan.copies.removeAll(where: later.contains)
            units[index].plan.overwrites.removeAll(where: later.contains)
            units[index].plan.stale.removeAll(where: later.contains)
        }
        if !report.conflicts.isEmpty, !force, !dryRun { throw ReferenceError.developChanged(report.conflicts) }
        for unit in units {
            report.identical += unit.plan.identical.count
            report.stale += unit.plan.stale.map(\.rawValue)
        }
        if dryRun {
            report.copied = units.flatMap { $0.plan.copies.map(\.rawValue) }
            if prune { report.deleted = report.stale }
            return report
        }
        do {
            try await promoteInOrder(
                units, into: destination, merge: changes.head, history: history, prune: prune,
                report: &report)
        } catch StoreError.conditionalWritesUnsupported(let store, _) {
            report.notes.append(
                "\(store) cannot write conditionally, so promotions running at the same time are not ordered; "
                    + "each object was checked before it was overwritten")
            for unit in units {
                let done = await carryOut(
                    unit.plan, with: unit.sync, report: report, commit: changes.head, prune: prune)
                report.copied += done.copied
                report.deleted += done.deleted
                report.failures += done.failures
            }
        }
        report.copied.sort()
        report.deleted.sort()
        return report
    }

    /// The promotion of `changes`' tests from `folder`: the files each test added or changed
    /// (and removed, for `--prune`) and nothing else. A test without changes promotes nothing.
    private func unit(
        from folder: StoreFolder, to destination: StoreFolder, tests: [String],
        changes: [String: (changed: [String], removed: [String])]
    ) async throws -> PromotionUnit {
        let sync = StoreSync(from: folder, to: destination, parallelism: parallelism)
        var plan = try await sync.plan(tests: tests)
        try FileChanges(changes).restrict(&plan)
        return PromotionUnit(sync: sync, plan: plan, recorded: true)
    }

    /// Makes the merge commit's references committed in git a source: kept in feature's archive as
    /// the merge commit's push (so a job completing this promotion reads them there too), or in a
    /// dry run, which writes nothing to the stores, only written to `scratch`.
    private func stage(
        _ committed: CommittedReferences, of merge: String, at scratch: URL, in feature: StoreFolder, dryRun: Bool
    ) async throws -> StoreFolder {
        try committed.write(to: scratch)
        let written = StoreFolder(store: FolderStore(root: scratch, keepsMetadata: false))
        if dryRun { return written }
        try await keep(
            committed.tests.keys.sorted(), from: written, pushedBy: merge, in: feature,
            develop: committed.tests.mapValues(\.base))
        return try PushArchive(feature: feature).pushed(by: merge)
    }

    /// Carries the units' plans out test by test through develop's promotion record, so jobs
    /// promoting one test at once end in merge order and a stopped job's test is completed by the next.
    private func promoteInOrder(
        _ units: [PromotionUnit], into destination: StoreFolder, merge: String,
        history: CommitHistory, prune: Bool, report: inout TransferReport
    ) async throws {
        var work: [(test: String, copies: [PromotionLedger.Record.Copy], deletes: [String])] = []
        for unit in units {
            let source = unit.sync.source
            let tests = Set(unit.plan.copies.map(\.firstSegment) + (prune ? unit.plan.stale.map(\.firstSegment) : []))
            for test in tests.sorted() {
                let copies = unit.plan.copies.filter { $0.firstSegment == test }.map { key in
                    PromotionLedger.Record.Copy(
                        name: String(key.rawValue.dropFirst(test.count + 1)), source: key.under(source.prefix).rawValue,
                        md5: unit.plan.sourceETags[key] ?? "")
                }
                let deletes =
                    prune
                    ? unit.plan.stale.filter { $0.firstSegment == test }.map {
                        String($0.rawValue.dropFirst(test.count + 1))
                    } : []
                work.append((test, copies, deletes))
            }
        }
        var ledger = PromotionLedger(
            develop: destination, feature: StoreFolder(store: units.first?.sync.source.store ?? destination.store),
            lease: promotionLease, parallelism: max(2, parallelism / 4))
        let counter = ObjectCounter(total: work.map { $0.copies.count + $0.deletes.count }.reduce(0, +))
        let progress = progress
        ledger.objectDone = { await progress("promote", await counter.next(), counter.total) }
        let promoting = ledger
        // Four tests at a time, each with its own reading of the history (libgit2's handles have one owner).
        let repository = history.workTree
        let outcomes = try await StoreSync.concurrently(work, limit: 4) { item async throws(StoreError) in
            do {
                return try await promoting.promote(
                    item.test, copies: item.copies, deletes: item.deletes, merge: merge,
                    history: try CommitHistory(repositoryPath: repository))
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.io(path: item.test, reason: "\(error)")
            }
        }
        for outcome in outcomes {
            report.copied += outcome.copied
            report.deleted += outcome.deleted
            report.failures += outcome.failures
            report.notOverwritten += outcome.notOverwritten
        }
    }

    /// `refs prune`: removes feature's kept pushes and CI's candidate runs that are older than `age`
    /// (when given), and the pushes a promotion already took in (their commit is an ancestor of the
    /// merge develop's record says last promoted the test; only with `history`). The latest copies
    /// are never touched.
    public func prunePushes(olderThan age: Duration?, history: CommitHistory?, dryRun: Bool, now: Date = Date())
        async throws -> [PrunedPush]
    {
        let feature = try stores.folder(.feature)
        let archive = PushArchive(feature: feature)
        let develop = stores.settings.address(of: .develop) == nil ? nil : try stores.folder(.develop)
        let ledger = develop.map {
            PromotionLedger(develop: $0, feature: feature, lease: promotionLease, parallelism: 1)
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
            let candidates = CandidateArchive(feature: feature)
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

    /// Reads who promoted the destination objects about to be replaced or deleted: one a later
    /// merge promoted (a descendant of `head`) is not to be touched, and is returned; with a `cut`,
    /// one a merge that is not an ancestor of it promoted (merged after the branch was cut) is a conflict.
    private func check(
        _ keys: [ObjectKey], in destination: StoreFolder, cut: String?, head: String,
        history: CommitHistory, report: inout TransferReport
    ) async throws -> Set<ObjectKey> {
        guard !keys.isEmpty else { return [] }
        let commits = try await StoreSync.concurrently(keys, limit: parallelism) { key async throws(StoreError) in
            try await destination.store.metadata(of: key.under(destination.prefix))[StoreSync.commitMetadata]
        }
        var later: Set<ObjectKey> = []
        for (key, commit) in zip(keys, commits) {
            guard let commit, commit != head else { continue }
            if try history.isAncestor(head, of: commit) == true {
                later.insert(key)
                report.notOverwritten.append(PromotionConflict(key: key.rawValue, commit: commit))
                continue
            }
            guard let cut else { continue }
            switch try history.isAncestor(commit, of: cut) {
            case true?: break
            case false?: report.conflicts.append(PromotionConflict(key: key.rawValue, commit: commit))
            case nil: report.unverified.append(key.rawValue)
            }
        }
        return later
    }

    /// Executes `plan` (unless a dry run) and fills in the report.
    func carryOut(
        _ plan: SyncPlan, with sync: StoreSync, report: TransferReport, commit: String?,
        prune: Bool, metadata: [String: String] = [:]
    ) async -> TransferReport {
        var report = report
        report.identical = plan.identical.count
        report.stale = plan.stale.map(\.rawValue)
        guard !report.dryRun else {
            report.copied = plan.copies.map(\.rawValue)
            if prune { report.deleted = report.stale }
            return report
        }
        let action = report.action
        let result = await sync.execute(plan, commit: commit ?? "unknown", prune: prune, metadata: metadata) {
            done, total in
            await progress(action, done, total)
        }
        report.copied = result.copied.map(\.rawValue)
        report.deleted = result.deleted.map(\.rawValue)
        report.failures = result.failures
        return report
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
            "changed in develop after the branch was cut" + (dryRun ? " (needs --force)" : " (overwritten: --force)"),
            conflicts.map(\.description))
        list("not checked (their promoting commit is not in this clone)", unverified)
        list("failed", failures)
        return lines
    }
}
