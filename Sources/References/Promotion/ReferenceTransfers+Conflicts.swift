import Foundation
import GitChanges
import ObjectStorage

/// Who promoted what a promotion would replace: later merges' files kept, merges after the cut reported.
extension ReferenceTransfers {
    /// Reads who promoted the destination objects about to be replaced or deleted: one a later
    /// merge promoted (a descendant of `head`) is not to be touched, and is returned; with a `cut`,
    /// one a merge that is not an ancestor of it promoted (merged after the branch was cut) is a conflict.
    func check(
        _ keys: [ObjectKey], in destination: StoreLocation, cut: String?, head: String,
        history: CommitHistory, report: inout TransferReport, records known: inout [String: PromotionLedger.Known]
    ) async throws -> Set<ObjectKey> {
        guard !keys.isEmpty else { return [] }
        // Develop's record names the merge that wrote each file (one read per test); an object it
        // does not name (promoted before records were kept, or on a store without them) says so itself.
        let tests = Set(keys.map(\.firstSegment)).sorted()
        let ledger = PromotionLedger(
            develop: destination, feature: destination, lease: promotionLease, parallelism: 1, now: now)
        let records = try await StoreSync.concurrently(tests, limit: parallelism) { test async throws(StoreError) in
            destination.store is any SharedStore ? try await ledger.read(test) : nil
        }
        for (test, record) in zip(tests, records) { known[test] = record }
        let recorded = Dictionary(uniqueKeysWithValues: zip(tests, records.map { $0?.record }))
        let commits = try await StoreSync.concurrently(keys, limit: parallelism) {
            key async throws(StoreError) -> String? in
            let name = String(key.rawValue.dropFirst(key.firstSegment.count + 1))
            if let record = recorded[key.firstSegment], let commit = record?.files[name]?.commit { return commit }
            return try await destination.store.metadata(of: key.under(destination.prefix))[StoreSync.commitMetadata]
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
}
