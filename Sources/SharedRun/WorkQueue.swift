import Foundation
import ObjectStorage
import PipelineCore
import TestCore

/// A work queue kept in the team's store, shared by the nodes of a CI matrix with no coordinator.
///
/// Under `<prefix>/pipeline-runs/<run>/`: `plan.json` (the batches, written once by whichever node
/// comes first, `If-None-Match: *`), `claims/<batch>.json` (who runs a batch, and until when the
/// claim holds), and `results/<batch>.json` (the batch's report). A node claims the next batch by
/// creating its claim, so two nodes never run the same batch and a fast node takes more; a claim
/// whose lease ran out without a result is taken over (`If-Match` on the claim read).
public struct WorkQueue: Sendable {
    public let store: any SharedStore
    public let run: String
    /// This node, as `--node` names it (`2/4`).
    public let node: Node
    /// How long a claim holds beyond the batch's expected time, and the clock skew tolerated.
    public var leaseMargin: Double = 120
    public var clockSkew: Double = 60
    /// Seconds since 1970, by this machine's clock (tests move it).
    public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    let folder: ObjectKey
    private let seen = SeenClaims()

    public init(store: any SharedStore, prefix: ObjectKey?, run: String, node: Node) throws(StoreError) {
        self.store = store
        self.run = run
        self.node = node
        folder = try TimingsPlace.runFolder(prefix: prefix, run: run)
    }

    /// The run's folder, for messages and the dry run.
    public var location: String { "\(store.name)/\(folder.rawValue)/" }

    // MARK: The plan

    /// The run's batches: the plan already in the store, or `proposed`, written by this node when
    /// it comes first. A plan for another suite means the run id was reused.
    public func plan(proposing proposed: QueuePlan) async throws -> QueuePlan {
        let key = try self.key("plan.json")
        do {
            try await store.put(try QueuePlan.encoder.encode(proposed), to: key, condition: .ifAbsent)
            return proposed
        } catch StoreError.preconditionFailed {
            guard let (data, _) = try await store.get(key) else { return try await plan(proposing: proposed) }
            let existing: QueuePlan
            do {
                existing = try JSONDecoder().decode(QueuePlan.self, from: data)
            } catch {
                throw QueueError.unreadable(object: "\(store.name)/\(key.rawValue)", reason: "not a queue plan")
            }
            guard existing.suite == proposed.suite else {
                throw QueueError.runReused(run: run, planned: existing.suite.count, here: proposed.suite.count)
            }
            return existing
        }
    }

    /// A static split's plan (`QueuePlan(nodes:)`): the one already in the store, or `proposed`.
    /// A store that cannot write conditionally takes it unconditionally when none is there: one
    /// job plans a static split, so there is no race to lose.
    public func staticPlan(proposing proposed: QueuePlan) async throws -> QueuePlan {
        let existing: QueuePlan
        do {
            existing = try await plan(proposing: proposed)
        } catch StoreError.conditionalWritesUnsupported {
            guard (try await store.get(try key("plan.json"))) != nil else {
                try await store.put(
                    try QueuePlan.encoder.encode(proposed), to: try key("plan.json"), condition: .always)
                return proposed
            }
            existing = try await storedPlan()
            guard existing.suite == proposed.suite else {
                throw QueueError.runReused(run: run, planned: existing.suite.count, here: proposed.suite.count)
            }
        }
        guard existing.perNode == true, existing.batches.count == proposed.batches.count else {
            throw QueueError.otherSplit(
                run: run,
                planned: existing.perNode == true
                    ? "a split over \(existing.batches.count) nodes" : "pipeline test's batches",
                here: "\(proposed.batches.count) nodes")
        }
        return existing
    }

    /// Files this node's report as its part of the run's static split: claimed by it, its result
    /// replacing an earlier attempt's.
    public func file(_ report: TestReport) async throws {
        let plan = try await storedPlan()
        guard plan.perNode == true, plan.batches.count == node.count else {
            throw QueueError.otherSplit(
                run: run,
                planned: plan.perNode == true ? "a split over \(plan.batches.count) nodes" : "pipeline test's batches",
                here: "node \(node)")
        }
        let batch = plan.batches[node.index - 1]
        let claim = Claim(node: node.description, claimedAt: now(), leaseSeconds: 0)
        try await store.put(
            try QueuePlan.encoder.encode(claim), to: try key("claims/\(Self.name(batch.index))"), condition: .always)
        try await submit(report, of: batch)
    }

    /// The timings every node of the run plans from: the first node's copy of `timings`, kept in
    /// the run's folder, so a node that starts after another has folded its durations in still
    /// computes the same split (the static split needs that; the queue's plan is fixed anyway).
    public func pinned(_ timings: StoredTimings) async throws -> Timings {
        let key = try self.key("timings.json")
        let origin = "\(store.name)/\(key.rawValue)"
        if let (data, _) = try await store.get(key) { return try Timings.decode(data, origin: origin) }
        let current = try await timings.load()
        do {
            try await store.put(try current.encoded(), to: key, condition: .ifAbsent)
        } catch StoreError.preconditionFailed {
            guard let (data, _) = try await store.get(key) else { return current }
            return try Timings.decode(data, origin: origin)
        } catch StoreError.conditionalWritesUnsupported {
            // Nodes starting together read the same timings; a later one finds this copy.
            try await store.put(try current.encoded(), to: key, condition: .always)
        }
        return current
    }

    // MARK: Claims

    public struct Claim: Codable, Sendable, Equatable {
        public var node: String
        public var claimedAt: Double
        public var leaseSeconds: Double
    }

    /// The node of a claim that cannot be read.
    public static let unreadable = "(unreadable claim)"

    /// A batch this node claimed.
    public struct Claimed: Sendable {
        public let batch: QueuePlan.Batch
        /// The node whose lease on it ran out, when this claim took it over.
        public let takenOverFrom: String?
        /// The claim object's version, which a renewal must still find.
        public let etag: String
        /// How long the claim holds from when it was written.
        public let leaseSeconds: Double
    }

    /// The next batch for this node, claimed, or nil when every batch is claimed by a live claim
    /// or finished. First the batches this node claimed on an earlier attempt of the same CI job
    /// (a re-run repeats its own share), then unclaimed ones, then those whose lease ran out.
    public func claimNext(in plan: QueuePlan, rerunning: inout Set<Int>) async throws -> Claimed? {
        // The listing gives every claim's ETag; a claim is read only when its lease may have run out.
        // A batch is claimed before it runs, so only a claimed batch can be finished: the results
        // are listed only when no batch is left unclaimed.
        let claims = try await claimObjects()
        for index in rerunning.sorted() {
            rerunning.remove(index)
            if let taken = try await take(plan.batches[index], replacing: claims[index]?.etag, from: nil) {
                return taken
            }
        }
        for batch in plan.batches where claims[batch.index] == nil {
            if let taken = try await take(batch, replacing: nil, from: nil) { return taken }
        }
        let finished = try await finishedBatches()
        for batch in plan.batches where !finished.contains(batch.index) {
            guard let object = claims[batch.index], let (claim, etag) = try await read(object),
                claim.node != node.description, claim.claimedAt + claim.leaseSeconds + clockSkew < now()
            else { continue }
            if let taken = try await take(batch, replacing: etag, from: claim.node) { return taken }
        }
        return nil
    }

    /// The batches an earlier attempt of this node claimed.
    public func earlierClaims() async throws -> Set<Int> {
        var mine: Set<Int> = []
        for (index, object) in try await claimObjects() {
            if let (claim, _) = try await read(object), claim.node == node.description { mine.insert(index) }
        }
        return mine
    }

    /// Whether every batch has a result.
    public func isFinished(_ plan: QueuePlan) async throws -> Bool {
        try await finishedBatches().count >= plan.batches.count
    }

    /// The claim, when this node now holds it (nil when another node was first).
    private func take(_ batch: QueuePlan.Batch, replacing etag: String?, from previous: String?) async throws
        -> Claimed?
    {
        let lease = batch.expectedSeconds * 3 + leaseMargin
        let claim = Claim(node: node.description, claimedAt: now(), leaseSeconds: lease)
        do {
            let written = try await store.put(
                try QueuePlan.encoder.encode(claim), to: try key("claims/\(Self.name(batch.index))"),
                condition: etag.map { .ifMatch(etag: $0) } ?? .ifAbsent)
            return Claimed(batch: batch, takenOverFrom: previous, etag: written, leaseSeconds: lease)
        } catch StoreError.preconditionFailed {
            return nil  // another node was first
        }
    }

    /// Writes the claim again with a fresh time, so a batch that runs longer than planned keeps its
    /// lease while its node lives. Nil when another node took the batch over meanwhile.
    public func renew(_ claimed: Claimed) async throws -> Claimed? {
        try await take(claimed.batch, replacing: claimed.etag, from: claimed.takenOverFrom)
    }

    private func claimObjects() async throws -> [Int: ObjectInfo] {
        var claims: [Int: ObjectInfo] = [:]
        for object in try await store.list(under: try key("claims")) {
            if let index = Self.index(of: object.key) { claims[index] = object }
        }
        return claims
    }

    /// A claim and its ETag. A claim written by hand with garbage is no claim: it reads as one
    /// whose lease ran out long ago, so the batch is free to take over. A claim whose ETag was
    /// read before is not read again (a waiting node looks at the live claims every poll).
    private func read(_ object: ObjectInfo) async throws -> (claim: Claim, etag: String)? {
        if let claim = await seen.claim(etag: object.etag) { return (claim, object.etag) }
        guard let (data, etag) = try await store.get(object.key) else { return nil }
        let claim =
            (try? JSONDecoder().decode(Claim.self, from: data))
            ?? Claim(node: Self.unreadable, claimedAt: 0, leaseSeconds: 0)
        await seen.remember(claim, etag: etag)
        return (claim, etag)
    }

    // MARK: Results

    /// Stores a batch's report, replacing an earlier attempt's.
    public func submit(_ report: TestReport, of batch: QueuePlan.Batch) async throws {
        try await store.put(
            try QueuePlan.encoder.encode(report), to: try key("results/\(Self.name(batch.index))"), condition: .always)
    }

    /// Every stored batch report, by batch.
    public func results() async throws -> [Int: TestReport] {
        var reports: [Int: TestReport] = [:]
        for object in try await store.list(under: try key("results")) {
            guard let index = Self.index(of: object.key), let (data, _) = try await store.get(object.key) else {
                continue
            }
            do {
                reports[index] = try JSONDecoder().decode(TestReport.self, from: data)
            } catch {
                throw QueueError.unreadable(
                    object: "\(store.name)/\(object.key.rawValue)", reason: "not a batch report")
            }
        }
        return reports
    }

    /// The whole run's report: every batch's result merged and checked against the suite, so a test
    /// no node ran is missing and a test that ran twice is duplicated. A batch with no result says
    /// who claimed it.
    public func report() async throws -> TestReport {
        let plan = try await storedPlan()
        let results = try await results()
        var report = TestReport(
            merging: results.keys.sorted().map { results[$0]! }, suite: plan.batches.flatMap(\.tests),
            flakyFails: results.values.first?.flakyFails ?? true)
        let claims = try await claimObjects()
        for batch in plan.batches where results[batch.index] == nil {
            if plan.perNode == true {
                for test in batch.tests {
                    report.explain(
                        test.name, "no node reported it: node \(batch.index + 1)/\(plan.batches.count) filed no results"
                    )
                }
                continue
            }
            var why = "never claimed"
            if let object = claims[batch.index], let (claim, _) = try await read(object) {
                why = "claimed by node \(claim.node), which did not finish it"
            }
            for test in batch.tests {
                report.explain(test.name, "no node reported it: batch \(batch.index + 1) was \(why)")
            }
        }
        return report
    }

    /// The nodes (`I/N`) holding the claims of finished batches: those whose coverage the run's
    /// report needs. A node that ran no batch has none to give.
    public func nodesThatRan() async throws -> Set<String> {
        let finished = Set(try await store.list(under: try key("results")).compactMap { Self.index(of: $0.key) })
        var nodes: Set<String> = []
        for (index, object) in try await claimObjects() where finished.contains(index) {
            if let (claim, _) = try await read(object), claim.node != Self.unreadable { nodes.insert(claim.node) }
        }
        return nodes
    }

    /// The stored plan, for the report of the whole run.
    public func storedPlan() async throws -> QueuePlan {
        let key = try self.key("plan.json")
        guard let (data, _) = try await store.get(key) else { throw QueueError.noSuchRun(run: run, store: store.name) }
        do {
            return try JSONDecoder().decode(QueuePlan.self, from: data)
        } catch {
            throw QueueError.unreadable(object: "\(store.name)/\(key.rawValue)", reason: "not a queue plan")
        }
    }

    private func finishedBatches() async throws -> Set<Int> {
        Set(try await store.list(under: try key("results")).compactMap { Self.index(of: $0.key) })
    }

    // MARK: The verdict

    /// Keeps `data` as the run's verdict note `name` (`verdicts/<name>`): what a node's tests were
    /// keyed by, or the record that verified the run's tree (docs/ci.md, "Tested once").
    public func keepNote(_ data: Data, as name: String) async throws {
        _ = try await store.put(data, to: try key("verdicts/\(name)"), condition: .always)
    }

    /// The run's verdict notes, by name.
    public func notes() async throws -> [String: Data] {
        var notes: [String: Data] = [:]
        for object in try await store.list(under: try key("verdicts")) {
            guard let (data, _) = try await store.get(object.key) else { continue }
            notes[String(object.key.rawValue.split(separator: "/").last ?? "")] = data
        }
        return notes
    }

    private func key(_ path: String) throws(StoreError) -> ObjectKey { try ObjectKey(folder.rawValue + "/" + path) }

    static func name(_ index: Int) -> String {
        "batch-\(String(repeating: "0", count: max(0, 4 - String(index).count)))\(index).json"
    }

    static func index(of key: ObjectKey) -> Int? {
        let name = key.lastSegment
        guard name.hasPrefix("batch-"), name.hasSuffix(".json") else { return nil }
        return Int(name.dropFirst("batch-".count).dropLast(".json".count))
    }
}

extension WorkQueue {
    /// Whether `error` is the store's or the queue's: a failure that ends a node's claiming (the
    /// batch under way is still finished and reported), not one of the tests.
    public static func isStoreFailure(_ error: any Error) -> Bool {
        error is StoreError || error is QueueError
    }

    /// Whether `error` says the store cannot write conditionally, so the nodes cannot share a
    /// queue (each runs its part of the static split instead).
    public static func cannotShare(_ error: any Error) -> Bool {
        if case .conditionalWritesUnsupported? = error as? StoreError { true } else { false }
    }
}

/// Why a shared run cannot go on. Each reads as one line.
public enum QueueError: Error, Equatable, CustomStringConvertible {
    case runReused(run: String, planned: Int, here: Int)
    case unreadable(object: String, reason: String)
    case noSuchRun(run: String, store: String)
    case otherSplit(run: String, planned: String, here: String)

    public var description: String {
        switch self {
        case .runReused(let run, let planned, let here):
            "the queue '\(run)' already holds a plan of \(planned) tests, and this node lists \(here) other ones: "
                + "another run used the same id (pass a fresh --queue)"
        case .unreadable(let object, let reason):
            "\(object): \(reason)"
        case .noSuchRun(let run, let store):
            "\(store): no queue '\(run)' (no plan.json)"
        case .otherSplit(let run, let planned, let here):
            "the run '\(run)' was planned as \(planned), not for \(here): plan it once with the same --nodes "
                + "(pipeline plan --format xcodebuild --queue), or pass a fresh --queue"
        }
    }
}

/// The claims a node has read, by ETag: an object with the same ETag has the same content.
private actor SeenClaims {
    private var claims: [String: WorkQueue.Claim] = [:]

    func claim(etag: String) -> WorkQueue.Claim? { claims[etag] }

    func remember(_ claim: WorkQueue.Claim, etag: String) { claims[etag] = claim }
}

extension QueueError: ExitCoded {
    public var exitStatus: ExitStatus {
        if case .unreadable = self { .storage } else { .usage }
    }
}
