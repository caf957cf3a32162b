import CISystem
import Foundation
import GitChanges
import References
import TestCore
import TestHistory

/// Keep: a CI run's record in the test history (`HistoryArchive`, in feature's store under the
/// run's trust scope): its tests' outcomes and seconds, what verified runs and impact selection
/// left unrun. A post-merge run (a push, not a pull request's or a merge queue's check; its first
/// node) then keeps the history's page beside the review pages, `.history/index.html`, links it
/// from the step summary, and rolls days older than the page's into one object a day. A run outside
/// CI, or without a feature store, keeps nothing; a store that refuses the write costs a line, never
/// the run's verdict.
struct HistoryKept: TestPhase {
    var phase: Phase { .publish }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let report = run.report, CIContext(flow.request.shared.variables).isCI else { return .next }
        var unchanged: [String: String] = [:]
        if let session = run.session, let prepared = run.prepared {
            let failed = report.tests.filter { $0.status.isFailure && $0.verifiedBy == nil }
            unchanged = await session.unchangedSinceLastPass(
                failed.map { TestID($0.name, framework: $0.framework) }, prepared)
        }
        await flow.keepHistory(report, leftOut: run.leftOut, unchanged: unchanged)
        return .next
    }
}

extension TestFlow {
    /// The days the post-merge page shows.
    static let historyPageDays = 14

    /// Keeps a CI run's record of `report` (a run's, an Xcode import's) in the test history, and
    /// after a post-merge run the history's page (`HistoryKept`); `leftOut`, what impact selection
    /// did not run; `unchanged`, the failed tests nothing changed for since they passed on a commit.
    package func keepHistory(
        _ report: TestReport, leftOut: (tests: Int, seconds: Double) = (0, 0), unchanged: [String: String] = [:]
    ) async {
        let ci = CIContext(request.shared.variables)
        guard ci.isCI, let stores = request.stores, let feature = try? stores.sharedFolder(.feature) else { return }
        let history = try? CommitHistory(repositoryPath: request.package.path)
        let node = request.limits.node
        let record = HistoryRecord(
            report: report, run: ci.runLabel ?? "local", node: node,
            commit: (try? history?.sha("HEAD")) ?? "unknown", tree: try? history?.treeID("HEAD"),
            scope: ci.trustScope.folder, at: Date(), leftOut: node.index == 1 ? leftOut : (0, 0), unchanged: unchanged)
        let archive = HistoryArchive(feature: feature)
        do {
            try await archive.keep(record)
        } catch {
            request.write("history: this run's record was not kept (\(error))\n")
            return
        }
        guard !ci.isPullRequest, ci.mergeQueueEntry == nil, node.index == 1 else { return }
        do {
            let (history, _) = try await archive.report(days: Self.historyPageDays)
            let html = HistoryPage.html(history, title: "Test history: the last \(Self.historyPageDays) days")
            let presigns = stores.settings.presignedLinks ?? !(ci.repositoryIsPublic ?? false)
            let published = try await ReviewArchive(
                feature: feature, publicAddress: stores.settings.reviewURL, presigns: presigns
            ).publish(page: html, at: try HistoryArchive.page)
            let valid = published.expires.map { " (the link is valid for \($0))" } ?? ""
            request.write("history: the page of the last \(Self.historyPageDays) days is \(published.page)\(valid)\n")
            if let path = ci.gitHub?.summary, let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(Self.summaryLine(history, page: published.page, valid: valid).utf8))
                handle.closeFile()
            }
        } catch {
            request.write("history: the page was not kept (\(error))\n")
        }
        do {
            let rolled = try await archive.rollUp(olderThan: Self.historyPageDays)
            if rolled.records > 0 {
                request.write(
                    "history: rolled \(rolled.records) record(s) older than \(Self.historyPageDays) days into one object a "
                        + "day (\(rolled.before) bytes became \(rolled.after))\n")
            }
        } catch {
            request.write("history: older days were not rolled up (\(error))\n")
        }
    }

    /// The step summary's line: the window's runs, its flaky and slowing tests, the page's link.
    static func summaryLine(_ history: HistoryReport, page: String, valid: String) -> String {
        let flaky = history.tests.filter { $0.flaky != nil }.count
        let slowing = history.tests.filter(\.slowing).count
        return
            "\n**Test history** (\(history.runs) runs in \(historyPageDays) days): \(flaky) flaky, \(slowing) slowing "
            + "test(s); [the page](\(page))\(valid)\n"
    }
}
