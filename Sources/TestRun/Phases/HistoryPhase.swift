import CISystem
import Foundation
import GitChanges
import References
import TestHistory

/// Keep: a CI run's record in the test history (`HistoryArchive`, in feature's store under the
/// run's trust scope): its tests' outcomes and seconds, what verified runs and impact selection
/// left unrun. A post-merge run (a push, not a pull request's or a merge queue's check; its first
/// node) then keeps the history's page beside the review pages, `.history/index.html`, and links
/// it from the step summary. A run outside CI, or without a feature store, keeps nothing; a store
/// that refuses the write costs a line, never the run's verdict.
struct HistoryKept: TestPhase {
    var phase: Phase { .publish }

    /// The days the post-merge page shows.
    static let pageDays = 14

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        let ci = CIContext(request.shared.variables)
        guard ci.isCI, let report = run.report, let stores = request.stores,
            let feature = try? stores.sharedFolder(.feature)
        else { return .next }
        let history = try? CommitHistory(repositoryPath: request.package.path)
        let node = request.limits.node
        let record = HistoryRecord(
            report: report, run: ci.runLabel ?? "local", node: node,
            commit: (try? history?.sha("HEAD")) ?? "unknown", tree: try? history?.treeID("HEAD"),
            scope: ci.trustScope.folder, at: Date(), leftOut: node.index == 1 ? run.leftOut : (0, 0))
        let archive = HistoryArchive(feature: feature)
        do {
            try await archive.keep(record)
        } catch {
            request.write("history: this run's record was not kept (\(error))\n")
            return .next
        }
        guard !ci.isPullRequest, ci.mergeQueueEntry == nil, node.index == 1 else { return .next }
        do {
            let (history, _) = try await archive.report(days: Self.pageDays)
            let html = HistoryPage.html(history, title: "Test history: the last \(Self.pageDays) days")
            let presigns = stores.settings.presignedLinks ?? !(ci.repositoryIsPublic ?? false)
            let published = try await ReviewArchive(
                feature: feature, publicAddress: stores.settings.reviewURL, presigns: presigns
            ).publish(page: html, at: try HistoryArchive.page)
            let valid = published.expires.map { " (the link is valid for \($0))" } ?? ""
            request.write("history: the page of the last \(Self.pageDays) days is \(published.page)\(valid)\n")
            if let path = ci.gitHub?.summary, let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(Self.summaryLine(history, page: published.page, valid: valid).utf8))
                handle.closeFile()
            }
        } catch {
            request.write("history: the page was not kept (\(error))\n")
        }
        return .next
    }

    /// The step summary's line: the window's runs, its flaky and slowing tests, the page's link.
    static func summaryLine(_ history: HistoryReport, page: String, valid: String) -> String {
        let flaky = history.tests.filter { $0.flaky != nil }.count
        let slowing = history.tests.filter(\.slowing).count
        return "\n**Test history** (\(history.runs) runs in \(pageDays) days): \(flaky) flaky, \(slowing) slowing "
            + "test(s); [the page](\(page))\(valid)\n"
    }
}
