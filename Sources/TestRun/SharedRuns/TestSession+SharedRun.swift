import Foundation
import PipelineCore
import References
import SharedRun
import SnapshotReview
import TestCore
import TestSharding

extension TestSession {
    /// `pipeline test --queue`: this node's share of a run spread over CI machines through a work
    /// queue in the team's store. The first node writes the plan of batches; each node then claims
    /// batches one at a time and runs them until every batch has a result, so a fast node takes
    /// more and a slow or late one takes less. A batch whose node stopped is taken over when its
    /// lease runs out. A store that cannot write conditionally gets the static split instead.
    ///
    /// A store failure ends the claiming: the batch under way is finished and reported (JUnit,
    /// review page) and the outcome carries the error.
    public func run(
        _ prepared: SuiteRun.Prepared, queue: WorkQueue,
        poll: Duration = .milliseconds(250)
    ) async throws -> SharedOutcome {
        let proposal = QueuePlan(tests: prepared.tests, estimates: prepared.estimates, nodes: queue.node.count)
        let plan: QueuePlan
        do {
            plan = try await queue.plan(proposing: proposal)
        } catch let error where WorkQueue.cannotShare(error) {
            write(
                "note: \(queue.store.name) cannot write conditionally (it answered 501 to If-None-Match), so the "
                    + "nodes cannot share a queue; node \(queue.node) runs its part of the split planned from the timings\n"
            )
            let (report, findings) = try await run(prepared)
            return SharedOutcome(report: report, findings: findings)
        }
        var rerunning = try await queue.earlierClaims()
        write(
            "Queue \(queue.location): \(counted(plan.batches.count, "batch", plural: "batches")) of \(counted(plan.suite.count, "test")) for \(counted(queue.node.count, "node"))"
                + (rerunning.isEmpty
                    ? "" : "; node \(queue.node) runs again the \(rerunning.count) it ran on an earlier attempt") + "\n"
        )
        _ = snapshots.begin()
        var parts: [TestReport] = []
        var ran: [TestID] = []
        var findings = SnapshotFindings()
        var storeFailure: (any Error)?
        do {
            var waiting = false
            while true {
                guard let claimed = try await queue.claimNext(in: plan, rerunning: &rerunning) else {
                    if try await queue.isFinished(plan) { break }
                    if !waiting {
                        write(
                            "Every batch is claimed; waiting for the other nodes to finish theirs "
                                + "(a batch whose node stopped is taken over when its lease runs out)\n")
                        waiting = true
                    }
                    try await Task.sleep(for: poll)
                    continue
                }
                waiting = false
                let batch = claimed.batch
                let part = prepared.only(batch.tests, shards: suite.options.shards)
                write(
                    "Batch \(batch.index + 1) of \(plan.batches.count): \(counted(batch.tests.count, "test")), "
                        + "expected \(String(format: "%.1f", part.expectedSeconds)) s"
                        + (claimed.takenOverFrom.map {
                            $0 == WorkQueue.unreadable
                                ? " (its claim object was unreadable, so it was taken over)"
                                : " (taken over from node \($0), whose lease ran out)"
                        } ?? "") + "\n")
                let inventory = snapshots.inventory()
                var report = try await holding(claimed, in: queue) {
                    try await execute(part, part: "batch-\(batch.index + 1)")
                }
                if let previous = claimed.takenOverFrom { report.takenOver(from: previous) }
                findings.add(snapshots.check(&report, since: inventory))
                applyQuarantine(&report)
                parts.append(report)
                ran += batch.tests
                try await queue.submit(report, of: batch)
            }
        } catch let error where WorkQueue.isStoreFailure(error) {
            storeFailure = error
        }
        guard !parts.isEmpty else {
            if let storeFailure { throw storeFailure }
            // The CI's artifact and test-report steps expect the file: an empty report, not none.
            let empty = TestReport(merging: [], suite: [], flakyFails: suite.options.flakyFails)
            if let note = try ReportFiles(junit: junit, package: suite.settings.packagePath).write(empty) {
                findings.notes.append(note)
            }
            return SharedOutcome(report: nil, findings: findings)
        }
        var report = TestReport(merging: parts, suite: ran, flakyFails: suite.options.flakyFails)
        let (checked, published) = try await finish(
            &report, findings: findings, planned: prepared.timings,
            storeFailed: storeFailure != nil)
        return SharedOutcome(report: checked, findings: published, storeFailure: storeFailure)
    }
}

extension TestSession {
    /// Runs `work` while writing the claim again every third of its lease, so a batch that takes
    /// longer than planned is not taken over while its node lives. A renewal that finds the claim
    /// taken over (or cannot reach the store) stops renewing; the batch still runs to its end.
    func holding<Result: Sendable>(
        _ claimed: WorkQueue.Claimed, in queue: WorkQueue,
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await Self.racing(work) {
            var current = claimed
            while true {
                try await Task.sleep(for: .seconds(max(0.25, current.leaseSeconds / 3)))
                guard let renewed = try? await queue.renew(current) else { return }
                current = renewed
            }
        }
    }
}

/// What one node of a shared run did.
public struct SharedOutcome: Sendable {
    /// This node's part; nil when the other nodes ran every batch.
    public var report: TestReport?
    public var findings: SnapshotFindings
    /// The store error that ended the claiming, after the batch under way was finished and reported.
    public var storeFailure: (any Error)?
}
