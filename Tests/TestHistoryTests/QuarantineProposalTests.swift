import Foundation
import PipelineSpec
import TestSupport
import Testing

@testable import TestHistory

@Suite("quarantine proposals from the history: entries for flaky tests, releases for stable ones")
struct QuarantineProposalTests {
    @Test(
        "the flaky test gets an entry owned by the file declaring its class, expiring days ahead; a quarantined stable test is named for release; an entry is never proposed twice"
    )
    func proposes() throws {
        let root = try Scratch.folder("proposal")
        defer { try? FileManager.default.removeItem(at: root) }
        try Scratch.write(
            "final class ExtraTests {}\nfinal class AsyncTests: XCTestCase {}\n",
            to: root.appendingPathComponent("Tests/AppTests/Misc.swift"))
        let records = (0..<6).map { index in
            HistoryTests.record(
                index,
                [
                    .init(name: "AppTests.AsyncTests/testRace", status: index == 2 ? .failed : .passed, seconds: 0.2),
                    .init(name: "AppTests.StableTests/testFine", status: .passed, seconds: 0.1),
                ])
        }
        let report = HistoryReport(records)
        let current = """
            quarantine:
              - test: AppTests.StableTests/testFine
                owner: "@bob"
                reason: was flaky
                expires: 2026-12-31

            """
        let today = try #require(CalendarDay(parsing: "2026-11-29"))
        let proposal = try QuarantineProposal(
            report, current: current, display: "pipelines/quarantine.yml",
            codeOwners: CodeOwners("* @everyone\n/Tests/AppTests/Misc.swift @async-team\n"), root: root,
            threshold: 0.1, window: 30, days: 7, fallbackOwner: "unowned", today: today)
        #expect(
            proposal.added == [
                "proposed AppTests.AsyncTests/testRace (owner @async-team, until 2026-12-06): flaky in CI's history: "
                    + "failed 1 of 6 runs in 30 days; failed in run 102 and passed in run 105 on one tree (aaaaaaaaaaaa)"
            ], "\(proposal.added)")
        #expect(
            proposal.releases == [
                "release AppTests.StableTests/testFine: passed all 6 of its runs in 30 days; remove its entry"
            ])
        let text = try #require(proposal.text)
        let entries = try QuarantineLoader.parse(text, file: "q.yml", today: today).entries
        #expect(entries.map(\.name) == ["AppTests.StableTests/testFine", "AppTests.AsyncTests/testRace"])
        // Proposed again on the edited file: nothing more; a stricter threshold: nothing at all.
        let again = try QuarantineProposal(
            report, current: text, display: "q.yml", codeOwners: nil, root: root, threshold: 0.1, window: 30, days: 7,
            fallbackOwner: "unowned", today: today)
        #expect(again.added.isEmpty && again.text == nil)
        let strict = try QuarantineProposal(
            report, current: nil, display: "q.yml", codeOwners: nil, root: root, threshold: 0.5, window: 30, days: 7,
            fallbackOwner: "unowned", today: today)
        #expect(strict.added.isEmpty && strict.text == nil)
    }
}
