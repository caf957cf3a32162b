import Foundation
import ObjectStorage
import PipelineSpec

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
    func restrict(_ plan: inout SyncWork) {
        plan.copies.removeAll { !changed.contains($0) }
        plan.overwrites.removeAll { !changed.contains($0) }
        plan.stale.removeAll { !removed.contains($0) }
    }
}

/// The team's reference scripts as operations: pull from a store into the checkout, push the
/// checkout's references of named tests to stores, promote feature to develop after a merge, and
/// find orphans. Every transfer copies only what differs and is safe to re-run.
public struct ReferenceTransfers: Sendable {
    public private(set) var stores: ReferenceStores
    public let testPattern: String
    public let parallelism: Int
    /// Hears `(action, done, total)` as objects are copied or deleted.
    public let progress: @Sendable (String, Int, Int) async -> Void
    /// How long a promotion's claim on a test holds before another job may complete it: 60 s, or
    /// `PIPELINE_PROMOTION_LEASE` seconds (docs/references.md).
    public let promotionLease = ReferenceTransfers.lease(ProcessInfo.processInfo.environment)
    /// The time records are written with, leases run by and ages are measured against: the
    /// system's, or a test's.
    public let now: @Sendable () -> Date
    /// The branch pull requests merge into, when the spec names it (`changes.base`): where a
    /// branch's change is counted from, before the remote's default branch and the usual names.
    public let integrationBranch: String?
    /// The merged branch's head when a person names it (`refs promote --branch-head`): its commits
    /// count as merged, whatever the merge style.
    public private(set) var mergedBranchHead: String?
    /// `from`'s store listed whole, when a command already listed it (`promoteEverySet`): plans
    /// read their source side from it.
    var listedSource: [ObjectInfo]?

    /// These transfers with the merged branch's head a person named (`refs promote --branch-head`).
    public func merged(from branchHead: String?) -> ReferenceTransfers {
        var transfers = self
        transfers.mergedBranchHead = branchHead
        return transfers
    }

    /// These transfers in `name`'s set (nil: the shared set) instead of the run's own.
    public func inSet(_ name: String?) -> ReferenceTransfers {
        var transfers = self
        transfers.stores = stores.inSet(name)
        return transfers
    }

    static func lease(_ variables: [String: String]) -> Duration {
        guard let seconds = variables["PIPELINE_PROMOTION_LEASE"].flatMap(Double.init), seconds > 0, seconds < 86_400
        else { return .seconds(60) }
        return .milliseconds(Int64(seconds * 1000))
    }

    public init(
        stores: ReferenceStores, testPattern: String, integrationBranch: String? = nil, parallelism: Int = 16,
        now: @escaping @Sendable () -> Date = { Date() },
        progress: @escaping @Sendable (String, Int, Int) async -> Void = { _, _, _ in }
    ) {
        self.stores = stores
        self.now = now
        self.testPattern = testPattern
        self.integrationBranch = integrationBranch
        self.parallelism = parallelism
        self.progress = progress
    }

    /// A test's files in a store: name → MD5.
    static func files(of test: String, in folder: StoreLocation) async throws -> [String: String] {
        let root = try ObjectKey(test).under(folder.prefix)
        var files: [String: String] = [:]
        for object in try await folder.store.list(under: root) {
            if let name = object.key.relative(to: root) { files[name.rawValue] = object.md5 }
        }
        return files
    }

    /// Executes `plan` (unless a dry run) and fills in the report.
    func carryOut(
        _ plan: SyncWork, with sync: StoreSync, report: TransferReport, commit: String?,
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
