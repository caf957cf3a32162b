import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec

/// One source of a promotion and what it copies. A recorded unit (a push, or the merge commit)
/// names the files it changed; an unrecorded one (feature's latest copy) is checked against
/// merges after the branch was cut.
struct PromotionUnit {
    var sync: StoreSync
    var plan: SyncWork
    var recorded: Bool
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

extension ReferenceTransfers {
    /// Where each of `tests` comes from in `feature` for the comparison `changes`: the push of the
    /// newest commit it merged (`merged`: by ancestry, or a squash or rebase found through the
    /// branch changes kept), grouped by commit; tests never pushed with a record (feature's latest
    /// copy, as before records were kept); and tests whose pushes all come from other commits.
    func pushSources(
        of tests: [String], in feature: StoreLocation, changes: ChangeSet, history: CommitHistory,
        merged given: MergedCommits? = nil
    ) async throws -> (pushed: [String: [String]], unrecorded: [String], notPushed: [String]) {
        let merged: MergedCommits
        if let given {
            merged = given
        } else {
            merged = try await mergedCommits(changes, history: history, feature: feature)
        }
        let archive = PushArchive(feature: feature)
        let recorded = try await archive.allCommits()  // one listing for every test
        var pushed: [String: [String]] = [:]
        var unrecorded: [String] = []
        var notPushed: [String] = []
        for test in Set(tests).sorted() {
            guard let commits = recorded[test], !commits.isEmpty else {
                unrecorded.append(test)
                continue
            }
            let commit = try await archive.newestPush(of: test, among: commits, history: history) { commit in
                try merged.match(commit) != nil
            }
            if let commit { pushed[commit, default: []].append(test) } else { notPushed.append(test) }
        }
        return (pushed, unrecorded, notPushed)
    }

    /// The commits `changes` merged, as `feature`'s kept branch changes and a named branch head tell.
    func mergedCommits(_ changes: ChangeSet, history: CommitHistory, feature: StoreLocation?) async throws
        -> MergedCommits
    {
        try await MergedCommits.resolve(
            changes, history: history, feature: feature, branchHead: mergedBranchHead, parallelism: parallelism,
            confirmation: feature == nil
                ? .unasked : await MergeConfirmation.of(changes, history: history, variables: stores.variables))
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
        return try await changedTests(
            changes, history: history, from: source, to: try stores.folder(to),
            merged: try await mergedCommits(changes, history: history, feature: source))
    }

    func changedTests(
        _ changes: ChangeSet, history: CommitHistory, from source: StoreLocation, to destination: StoreLocation,
        merged: MergedCommits
    ) async throws -> (all: [String], pushed: [String]) {
        var sync = StoreSync(from: source, to: destination, parallelism: parallelism)
        sync.listedSource = listedSource
        let candidates = try await sync.plan(tests: nil)
            .copies
            .filter { !changes.promotable.contains($0.firstSegment) }
        let commits = try await StoreSync.concurrently(candidates, limit: parallelism) { key async throws(StoreError) in
            try await source.store.metadata(of: key.under(source.prefix))[StoreSync.commitMetadata]
        }
        var pushed: Set<String> = []
        for (key, commit) in zip(candidates, commits) {
            guard let commit, !pushed.contains(key.firstSegment) else { continue }
            if try merged.match(commit) != nil { pushed.insert(key.firstSegment) }
        }
        // Pushes kept with a record: the latest copy may be another branch's by now.
        for (test, commits) in try await PushArchive(feature: source).allCommits()
        where !changes.promotable.contains(test) && !pushed.contains(test) {
            if try commits.contains(where: { try merged.match($0) != nil }) { pushed.insert(test) }
        }
        return (Set(changes.promotable).union(pushed).sorted(), pushed.sorted())
    }

    /// Promotes to `to` (develop) what the compared commits pushed of `tests` to `from` (feature),
    /// by default the tests the comparison changed, recording the compared head commit. A test
    /// pushed with a record is taken file by file from the push of the newest commit the comparison
    /// brought in: the files that push added or changed against what develop held when it was
    /// pushed (and, with `prune`, removes the ones it removed); every other file stays as develop
    /// has it. A test never pushed with a record is taken whole from feature's latest copy. A
    /// develop file a later merge promoted is not overwritten; one a merge promoted after the
    /// branch was cut is a conflict: reported, and overwritten only when `force` is set.
    ///
    /// When the merged commit's last CI run kept new renderings that nobody accepted, the report
    /// names those tests (`neverAccepted`), which fails the command: develop keeps references the
    /// run showed failing. `changed` passes what `changedTests` already found.
    public func promote(
        tests named: [String]?, changes: ChangeSet, history: CommitHistory,
        from: StoreRole = .feature, to: StoreRole = .develop,
        force: Bool, prune: Bool, dryRun: Bool, changed: (all: [String], pushed: [String])? = nil
    ) async throws -> TransferReport {
        let source = try stores.folder(from)
        // Named tests may start develop; a merge's promotion reads develop, which must exist.
        let created = named == nil || dryRun ? nil : stores.missingFolder(to)
        let destination = try stores.folder(to, creating: named != nil)
        let merged = try await mergedCommits(changes, history: history, feature: source)
        var pushed: [String] = []
        var tests = named ?? []
        if named == nil {
            if let changed {
                (tests, pushed) = (changed.all, changed.pushed)
            } else {
                (tests, pushed) = try await changedTests(
                    changes, history: history, from: source, to: destination, merged: merged)
            }
        }
        tests = Set(tests).sorted()
        var report = TransferReport(
            action: "promote", from: source.name, to: destination.name, tests: tests,
            commit: changes.head, dryRun: dryRun)
        report.pushed = pushed
        report.environment = stores.environmentName
        if let created { report.notes.append("created the \(to.rawValue) store at \(created)") }
        report.notes += merged.passedOver
        let unaccepted = try await neverAccepted(changes, history: history, among: named, merged: merged)
        (report.neverAccepted, report.candidatesCommit) = (unaccepted?.tests ?? [], unaccepted?.commit)
        guard !tests.isEmpty else { return report }
        let committed = try CommittedReferences.find(
            tests, changes: changes, history: history, local: stores.local(testPattern: testPattern))
        let sources = try await pushSources(
            of: tests.filter { committed.tests[$0] == nil }, in: source, changes: changes, history: history,
            merged: merged)
        for test in sources.notPushed {
            report.skipped[test] = "changed by this merge, but no references were pushed from its commits"
        }
        // A unit is one source: feature's latest copy (whose changes are checked against merges
        // after the branch was cut), one commit's push (whose record says which files it changed),
        // or the merge commit's references committed in git (which git says it changed).
        var units: [PromotionUnit] = []
        if !sources.unrecorded.isEmpty {
            var sync = StoreSync(from: source, to: destination, parallelism: parallelism)
            sync.listedSource = listedSource
            let plan = try await sync.plan(tests: sources.unrecorded)
            for test in plan.testsWithoutReferences { report.skipped[test] = "no references in \(source.name)" }
            units.append(PromotionUnit(sync: sync, plan: plan, recorded: false))
        }
        let archive = PushArchive(feature: source)
        for (commit, group) in sources.pushed.sorted(by: { $0.key < $1.key }) {
            var changed: [String: (changed: [String], removed: [String])] = [:]
            let how = try merged.match(commit)?.rawValue
            for test in group {
                report.pushCommits[test] = commit
                report.pushMatches[test] = how
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
        var records: [String: PromotionLedger.Known] = [:]
        for index in units.indices {
            let later = try await check(
                units[index].plan.overwrites + (prune ? units[index].plan.stale : []), in: destination,
                cut: units[index].recorded ? nil : cut, head: changes.head, history: history, report: &report,
                records: &records)
            units[index].plan.copies.removeAll(where: later.contains)
            units[index].plan.overwrites.removeAll(where: later.contains)
            units[index].plan.stale.removeAll(where: later.contains)
        }
        if !report.conflicts.isEmpty, !force, !dryRun { throw ReferenceError.developChanged(report.conflicts) }
        // An accepted rendering is a push of the merged commit: promoted, not "never accepted".
        report.neverAccepted.removeAll { report.pushCommits[$0] != nil }
        if named == nil {
            report.notPromoted = try await notPromoted(
                report, changes: changes, merged: merged, notPushed: sources.notPushed, committed: committed,
                develop: destination, history: history)
        }
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
                units, into: destination, merge: changes.head, history: history, prune: prune, known: records,
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

    /// The tests a merged branch head's last CI run failed and kept new renderings of (among
    /// `tests` when named), with that head; nil without a feature store that keeps candidates.
    /// The heads: the branch a merge commit brings in (its second parent), else the compared head,
    /// and the last commits of the branches a squash or rebase was matched to (`merged`: a failure on
    /// an earlier commit of the branch may have been fixed since). Whether they were accepted is the
    /// caller's to say: an accepted one is a push of that commit.
    func neverAccepted(
        _ changes: ChangeSet, history: CommitHistory, among tests: [String]?, merged: MergedCommits? = nil
    ) async throws -> (tests: [String], commit: String)? {
        guard stores.settings.address(of: .feature) != nil else { return nil }
        let parents = try history.parents(of: changes.head)
        let first = changes.comparison == "merge" && parents.count > 1 ? parents[1] : changes.head
        let heads = [first] + (merged?.tips ?? []).filter { $0 != first }
        let archive = CandidateArchive(feature: try stores.folder(.feature))
        for head in heads {
            let last = Set(CandidateRun.latest(try await archive.runs(of: head)).flatMap(\.tests)).sorted()
            let failed = tests.map { named in last.filter(named.contains) } ?? last
            if !failed.isEmpty { return (failed, head) }
        }
        return nil
    }

    /// The promotion of `changes`' tests from `folder`: the files each test added or changed
    /// (and removed, for `--prune`) and nothing else. A test without changes promotes nothing.
    private func unit(
        from folder: StoreLocation, to destination: StoreLocation, tests: [String],
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
        _ committed: CommittedReferences, of merge: String, at scratch: URL, in feature: StoreLocation, dryRun: Bool
    ) async throws -> StoreLocation {
        try committed.write(to: scratch)
        let written = StoreLocation(store: FolderStore(root: scratch, keepsMetadata: false))
        if dryRun { return written }
        try await keep(
            committed.tests.keys.sorted(), from: written, pushedBy: merge, in: feature,
            develop: committed.tests.mapValues(\.base))
        return try PushArchive(feature: feature).pushed(by: merge)
    }

    /// Carries the units' plans out test by test through develop's promotion record, so jobs
    /// promoting one test at once end in merge order and a stopped job's test is completed by the next.
    /// `known`: the records `check` read; a test of which develop holds no file has none yet.
    private func promoteInOrder(
        _ units: [PromotionUnit], into destination: StoreLocation, merge: String,
        history: CommitHistory, prune: Bool, known: [String: PromotionLedger.Known], report: inout TransferReport
    ) async throws {
        var work: [(test: String, copies: [PromotionLedger.Entry.Copy], deletes: [String])] = []
        var known = known
        for unit in units {
            let source = unit.sync.source
            let tests = Set(unit.plan.copies.map(\.firstSegment) + (prune ? unit.plan.stale.map(\.firstSegment) : []))
            let held = Set((unit.plan.overwrites + unit.plan.identical + unit.plan.stale).map(\.firstSegment))
            for test in tests.sorted() {
                if known[test] == nil, !held.contains(test) { known[test] = (PromotionLedger.Entry(), nil) }
                let copies = unit.plan.copies.filter { $0.firstSegment == test }.map { key in
                    PromotionLedger.Entry.Copy(
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
            develop: destination, feature: StoreLocation(store: units.first?.sync.source.store ?? destination.store),
            lease: promotionLease, parallelism: max(2, parallelism / 4), now: now)
        let counter = ObjectCounter(total: work.map { $0.copies.count + $0.deletes.count }.reduce(0, +))
        let progress = progress
        ledger.objectDone = { await progress("promote", await counter.next(), counter.total) }
        let promoting = ledger
        let guesses = known
        // Four tests at a time, each with its own reading of the history (libgit2's handles have one owner).
        let repository = history.workTree
        let outcomes = try await StoreSync.concurrently(work, limit: 4) { item async throws(StoreError) in
            do {
                return try await promoting.promote(
                    item.test, copies: item.copies, deletes: item.deletes, merge: merge,
                    history: try CommitHistory(repositoryPath: repository), known: guesses[item.test])
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
}
