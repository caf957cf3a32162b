import CISystem
import Foundation
import GitChanges
import TestHistory

/// Keep: a CI run's record in the test history (`HistoryArchive`, in feature's store under the
/// run's trust scope): its tests' outcomes and seconds, what verified runs stood for. A run outside
/// CI, or without a feature store, keeps none; a store that refuses the write costs a line, never
/// the run's verdict.
struct HistoryKept: TestPhase {
    var phase: Phase { .keep }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        let ci = CIContext(request.shared.variables)
        guard ci.isCI, let report = run.report, let stores = request.stores,
            let feature = try? stores.sharedFolder(.feature)
        else { return .next }
        let history = try? CommitHistory(repositoryPath: request.package.path)
        let record = HistoryRecord(
            report: report, run: ci.runLabel ?? "local", node: request.limits.node,
            commit: (try? history?.sha("HEAD")) ?? "unknown", tree: try? history?.treeID("HEAD"),
            scope: ci.trustScope.folder, at: Date())
        do {
            try await HistoryArchive(feature: feature).keep(record)
        } catch {
            request.write("history: this run's record was not kept (\(error))\n")
        }
        return .next
    }
}
