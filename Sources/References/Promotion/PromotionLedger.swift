import Foundation
import GitChanges
import ObjectStorage

/// Develop's record of each test's promotions, `<develop>/.promotions/<Test>.json`: which merge
/// wrote each file, and the promotion under way. It is the commit point of a promotion, written
/// only by conditional writes, so promotions of one test running at once end as if they ran in
/// merge order:
///
/// 1. a job claims the test by writing its plan (the copies and deletions, with their sources) as
///    `pending`, with a lease, over the record it read or already knew (If-Match, or If-None-Match
///    when there is none; a record changed meanwhile fails the condition and is read again);
/// 2. it copies, and writes the record again with the files it wrote and no `pending`;
/// 3. a file the record says a later merge wrote (a descendant of this merge) is left alone.
///
/// A job that finds another merge's claim waits while its lease runs; after that, it completes
/// the claimed plan itself (roll forward) before its own, so a killed job's half-copied folder is
/// finished by whichever job comes next, and its own re-run finishes it at once. While a claim is
/// held, `<develop>/.promoting/<Test>` is there too: one listing tells readers which folders are
/// being written.
struct PromotionLedger: Sendable {
    let develop: StoreLocation
    let feature: StoreLocation
    /// How long a claim holds before another job may complete it.
    let lease: Duration
    let parallelism: Int
    /// Hears each object copied or deleted.
    var objectDone: @Sendable () async -> Void = {}
    /// The time leases run by.
    var now: @Sendable () -> Date = { Date() }

    static let recordsFolder = ".promotions"
    static let markersFolder = ".promoting"

    /// What develop's record says of one test.
    struct Entry: Codable, Sendable, Equatable {
        struct File: Codable, Sendable, Equatable {
            var md5: String
            /// The merge that wrote it.
            var commit: String
        }

        struct Copy: Codable, Sendable, Equatable {
            var name: String
            /// The source object's key in feature, its prefix included.
            var source: String
            var md5: String
        }

        struct Pending: Codable, Sendable, Equatable {
            var commit: String
            /// Seconds since 1970 when the claim runs out.
            var leaseUntil: Double
            var copies: [Copy]
            var deletes: [String]
        }

        var commit: String?
        var files: [String: File] = [:]
        var pending: Pending?
    }

    private var shared: any SharedStore {
        get throws(StoreError) {
            guard let shared = develop.store as? any SharedStore else {
                throw .conditionalWritesUnsupported(store: develop.store.name, reason: "not a shared store")
            }
            return shared
        }
    }

    private func recordKey(_ test: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.recordsFolder)/\(test).json").under(develop.prefix)
    }

    private func markerKey(_ test: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.markersFolder)/\(test)").under(develop.prefix)
    }

    func read(_ test: String) async throws(StoreError) -> Known {
        guard let (data, etag) = try await shared.get(try recordKey(test)) else { return (Entry(), nil) }
        guard let record = try? JSONDecoder().decode(Entry.self, from: data) else {
            throw .io(path: try recordKey(test).rawValue, reason: "not a promotion record")
        }
        return (record, etag)
    }

    /// Writes `record` if the one read (`etag`, nil when there was none) is still there.
    private func write(_ record: Entry, of test: String, over etag: String?) async throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(record) else {
            throw .io(path: try recordKey(test).rawValue, reason: "cannot encode the promotion record")
        }
        return try await shared.put(
            data, to: try recordKey(test), condition: etag.map { .ifMatch(etag: $0) } ?? .ifAbsent)
    }

    /// What a job already knows of one test's record: read earlier, or absent because develop has
    /// no file of the test. The first claim is written over it; a conditional write that finds
    /// the record changed since reads it again, so a stale guess costs a request, never safety.
    typealias Known = (record: Entry, etag: String?)

    /// Promotes `copies` (file name → source key in feature and MD5) and `deletes` of `test` as
    /// `merge`, in merge order with any other job promoting the test. Returns the files written and
    /// deleted, the ones left because a later merge wrote them, and failures.
    func promote(
        _ test: String, copies: [Entry.Copy], deletes: [String], merge: String, history: CommitHistory,
        known: Known? = nil
    ) async throws -> Outcome {
        var outcome = Outcome()
        var guess = known
        while true {
            let (record, etag) = if let guess { guess } else { try await read(test) }
            guess = nil
            if let pending = record.pending {
                if pending.commit != merge, now().timeIntervalSince1970 < pending.leaseUntil {
                    try await Task.sleep(for: .milliseconds(200))
                    continue
                }
                // This merge's own earlier attempt, or another whose job stopped: finish it first,
                // so the folder is whole again.
                let finished = try await completing(pending, of: test, record: record, etag: etag)
                if pending.commit == merge, let finished {
                    outcome.copied += finished.copied
                    outcome.deleted += finished.deleted
                }
                if let failure = finished?.failures.first { throw StoreError.io(path: test, reason: failure) }
                continue
            }
            // A file a later merge wrote is left as it is.
            var later: Set<String> = []
            outcome.notOverwritten = []
            for name in copies.map(\.name) + deletes {
                guard let file = record.files[name], file.commit != merge,
                    try history.isAncestor(merge, of: file.commit) == true
                else { continue }
                later.insert(name)
                outcome.notOverwritten.append(PromotionConflict(key: "\(test)/\(name)", commit: file.commit))
            }
            let plan = Entry.Pending(
                commit: merge, leaseUntil: now().timeIntervalSince1970 + lease.seconds,
                copies: copies.filter { !later.contains($0.name) }, deletes: deletes.filter { !later.contains($0) })
            if plan.copies.isEmpty, plan.deletes.isEmpty { return outcome }
            var claimed = record
            claimed.pending = plan
            guard let claim = try await claiming(claimed, of: test, over: etag) else { continue }
            guard let done = try await completing(plan, of: test, record: claimed, etag: claim) else { continue }
            outcome.copied += done.copied
            outcome.deleted += done.deleted
            outcome.failures += done.failures
            return outcome
        }
    }

    /// Writes the claim; nil when another job's write came first.
    private func claiming(_ record: Entry, of test: String, over etag: String?) async throws(StoreError) -> String? {
        do {
            return try await write(record, of: test, over: etag)
        } catch .preconditionFailed {
            return nil
        }
    }

    /// Completes `plan`; nil when another job completed it first.
    private func completing(_ plan: Entry.Pending, of test: String, record: Entry, etag: String?)
        async throws(StoreError) -> Outcome?
    {
        do {
            return try await complete(plan, of: test, record: record, etag: etag)
        } catch .preconditionFailed {
            return nil
        }
    }

    /// What one test's promotion did.
    struct Outcome: Sendable {
        var copied: [String] = []
        var deleted: [String] = []
        var failures: [String] = []
        var notOverwritten: [PromotionConflict] = []
    }

    /// Carries out a claimed plan and writes the record without it, over the claim (`etag`). The
    /// record is left claimed when a copy fails, for a re-run to complete.
    private func complete(_ plan: Entry.Pending, of test: String, record: Entry, etag: String?)
        async throws(StoreError) -> Outcome
    {
        let marker = try markerKey(test)
        _ = try? await shared.put(Data(plan.commit.utf8), to: marker, condition: .always)
        enum Work: Sendable {
            case copy(Entry.Copy)
            case delete(String)
        }
        let work = plan.copies.map(Work.copy) + plan.deletes.map(Work.delete)
        var outcome = Outcome()
        let develop = develop
        let feature = feature
        await StoreSync.bounded(work, limit: parallelism) { (item: Work) async throws(StoreError) in
            switch item {
            case .copy(let copy):
                // The push's own metadata goes with it (one request on S3); which merge wrote the
                // file is this record's to say.
                try await develop.store.copyAsIs(
                    try ObjectKey(copy.source), from: feature.store,
                    to: try ObjectKey("\(test)/\(copy.name)").under(develop.prefix))
            case .delete(let name):
                try await develop.store.delete(try ObjectKey("\(test)/\(name)").under(develop.prefix))
            }
        } completed: { index, result in
            switch (work[index], result) {
            case (.copy(let copy), .success): outcome.copied.append("\(test)/\(copy.name)")
            case (.delete(let name), .success): outcome.deleted.append("\(test)/\(name)")
            case (_, .failure(let error)): outcome.failures.append(error.description)
            }
            await objectDone()
            return true
        }
        guard outcome.failures.isEmpty else { return outcome }
        var done = record
        for copy in plan.copies { done.files[copy.name] = Entry.File(md5: copy.md5, commit: plan.commit) }
        for name in plan.deletes { done.files[name] = nil }
        done.commit = plan.commit
        done.pending = nil
        _ = try await write(done, of: test, over: etag)
        try? await develop.store.delete(marker)
        return outcome
    }

    /// The tests whose folders a promotion is writing now (or a stopped job left half written).
    func inProgress() async throws(StoreError) -> Set<String> {
        let folder = try ObjectKey(Self.markersFolder).under(develop.prefix)
        return Set(try await develop.store.list(under: folder).compactMap { $0.key.relative(to: folder)?.rawValue })
    }
}
