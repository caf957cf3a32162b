import Foundation
import ObjectStorage
import TestCore
import TestSupport
import Testing

@testable import TestHistory

@Suite("the test history: each run's record, and what the records say across runs")
struct HistoryTests {
    /// Run `index` of a day's CI runs: every run on one tree but the last two (a new commit).
    static func record(
        _ index: Int, _ outcomes: [HistoryRecord.Outcome], verified: Int = 0, tree: String? = nil
    ) -> HistoryRecord {
        HistoryRecord(
            run: "\(100 + index)", node: nil, commit: String(repeating: "c", count: 40),
            tree: tree ?? String(repeating: "a", count: 40), scope: "branch/develop",
            at: String(format: "2026-11-%02dT08:00:00Z", 1 + index), tests: outcomes,
            notRun: .init(verified: verified, verifiedSeconds: Double(verified) * 0.5))
    }

    @Test("flaky across runs on one tree, flaky by a retry, slowing over time, steady; failures and savings counted")
    func report() {
        var records: [HistoryRecord] = []
        for index in 0..<10 {
            records.append(
                Self.record(
                    index,
                    [
                        // Fails on 1 run in 5, on the tree it passes on.
                        .init(
                            name: "AppTests.Async/testRace", status: index % 5 == 2 ? .failed : .passed,
                            seconds: 0.2, message: index % 5 == 2 ? "timed out waiting for the expectation" : nil),
                        // 0.1 s, growing by 0.1 s a run.
                        .init(name: "AppTests.Render/testBig", status: .passed, seconds: 0.1 + Double(index) * 0.1),
                        .init(name: "AppTests.Parser/testParse", status: .passed, seconds: 0.01),
                        .init(
                            name: "AppTests.Net/testRetry", status: index == 4 ? .flaky : .passed, seconds: 0.3,
                            attempts: index == 4 ? 2 : nil),
                    ], verified: 3))
        }
        let report = HistoryReport(records)
        #expect(report.runs == 10 && report.from == "2026-11-01T08:00:00Z" && report.to == "2026-11-10T08:00:00Z")
        let byName = Dictionary(uniqueKeysWithValues: report.tests.map { ($0.name, $0) })
        let race = byName["AppTests.Async/testRace"]
        #expect(race?.runs == 10 && race?.failures == 2)
        #expect(race?.flaky == "failed in run 107 and passed in run 109 on one tree (aaaaaaaaaaaa)")
        #expect(
            race?.lastFailure?.run == "107" && race?.lastFailure?.message == "timed out waiting for the expectation")
        #expect(byName["AppTests.Net/testRetry"]?.flaky == "failed, then passed on a retry, in run 104")
        let big = byName["AppTests.Render/testBig"]
        #expect(big?.slowing == true && big?.trend == 4.5, "\(String(describing: big))")
        #expect(big?.p50 == 0.5 && big?.p90 == 0.9)
        let steady = byName["AppTests.Parser/testParse"]
        #expect(steady?.flaky == nil && steady?.slowing == false && steady?.failures == 0 && steady?.trend == 1.0)
        // Flaky first (most failures first), then by failures, then by p90.
        #expect(
            report.tests.map(\.name) == [
                "AppTests.Async/testRace", "AppTests.Net/testRetry", "AppTests.Render/testBig",
                "AppTests.Parser/testParse",
            ])
        #expect(report.saved.testsRun == 40 && report.saved.verified == 30 && report.saved.verifiedSeconds == 15)
        let table = report.rendered(limit: 2).joined(separator: "\n")
        #expect(table.contains("flaky: failed in run 107") && table.contains("… and 2 more"), "\(table)")

        // A failure on a tree no run passed on is a failure, not flakiness.
        let broken = HistoryReport([
            Self.record(0, [.init(name: "T.A/a", status: .passed, seconds: 1)], tree: "1"),
            Self.record(1, [.init(name: "T.A/a", status: .failed, seconds: 1)], tree: "2"),
        ])
        #expect(broken.tests.first?.flaky == nil && broken.tests.first?.failures == 1)
    }

    @Test(
        "a run's record from its report: tests a verified run stood for count as not run here; a failure's first line")
    func fromReport() {
        let ids = ["S.T/a", "S.T/b", "S.T/c"].map { TestID($0, framework: .xctest) }
        var report = TestReport(
            shards: [Shard(index: 1, tests: ids, expectedSeconds: 0)],
            attempts: [
                TestAttempt(test: ids[0], status: .passed, seconds: 1.23456),
                TestAttempt(
                    test: ids[1], status: .failed, seconds: 0.5,
                    message: "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")\nmore"),
                TestAttempt(test: ids[2], status: .passed, seconds: 2),
            ], seconds: 4, node: Node(index: 2, count: 4), flakyFails: false)
        for index in report.tests.indices where report.tests[index].name == "S.T/c" {
            report.tests[index].verifiedBy = "9"
        }
        let record = HistoryRecord(
            report: report, run: "77.2", node: Node(index: 2, count: 4), commit: "c", tree: "t", scope: "pr/3",
            at: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(record.tests.map(\.name) == ["S.T/a", "S.T/b"] && record.node == "2/4")
        #expect(record.tests[1].message == "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")")
        #expect(record.tests[0].seconds == 1.235 && record.tests[0].attempts == nil)
        #expect(record.notRun == .init(verified: 1, verifiedSeconds: 2))
        #expect(record.at == "2026-11-18T11:06:40Z")
    }

    @Test(
        "kept as one object per run below .history/<day>/, read back by day; what is not a record is counted, not read")
    func archive() async throws {
        let folder = try Scratch.folder("history")
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = HistoryArchive(
            feature: StoreLocation(store: FolderStore(root: folder), prefix: try ObjectKey("feature")))
        for index in 0..<3 {
            try await archive.keep(Self.record(index, [.init(name: "T.A/a", status: .passed, seconds: 1)]))
        }
        // Two machines of one run, at once: two objects.
        var node = Self.record(2, [.init(name: "T.A/b", status: .passed, seconds: 1)])
        node.node = "2/2"
        try await archive.keep(node)
        let day = folder.appendingPathComponent("feature/.history/2026-11-03")
        #expect(try FileManager.default.contentsOfDirectory(atPath: day.path).count == 2)
        try Data("{".utf8).write(to: day.appendingPathComponent("by-hand.json"))
        let all = try await archive.records(since: nil)
        #expect(all.records.map(\.run) == ["100", "101", "102", "102"] && all.unreadable == 1)
        let recent = try await archive.records(since: "2026-11-02")
        #expect(recent.records.count == 3)
        let (report, read) = try await archive.report(
            days: 2, now: ISO8601DateFormatter().date(from: "2026-11-03T12:00:00Z")!)
        #expect(read.records == 3 && report.runs == 2 && report.records == 3)
        let sizes = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            $0.contains("2026-11-02") || $0.contains("2026-11-03")
        }.filter { $0.hasSuffix(".json") }.map {
            try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as! Int
        }
        #expect(
            report.bytes == sizes.reduce(0, +) && report.bytes > 0,
            "the bytes of the objects read, by-hand.json too: \(sizes)")
        // Retention: the days before the cut go, records and what is not a record alike.
        #expect(try await archive.prune(before: "2026-11-03") == 2)
        #expect(try await archive.records(since: nil).records.map(\.run) == ["102", "102"])
    }

    @Test(
        "per suite and per node: the records each ran in, tests, failures, flaky tests, seconds a run; impact's savings"
    )
    func groups() {
        func record(_ run: Int, node: String?, _ outcomes: [HistoryRecord.Outcome], impact: Int? = nil) -> HistoryRecord
        {
            var record = Self.record(run, outcomes)
            record.node = node
            record.notRun.impact = impact
            record.notRun.impactSeconds = impact.map { Double($0) * 2 }
            return record
        }
        let report = HistoryReport([
            record(
                0, node: "1/2",
                [
                    .init(name: "M.Login/a", status: .failed, seconds: 1),
                    .init(name: "M.Login/b", status: .passed, seconds: 2),
                ], impact: 5),
            record(0, node: "2/2", [.init(name: "M.Feed/c", status: .passed, seconds: 4)]),
            record(
                1, node: "1/2",
                [
                    .init(name: "M.Login/a", status: .passed, seconds: 1),
                    .init(name: "M.Feed/c", status: .passed, seconds: 5),
                ],
                impact: 1),
            record(1, node: "2/2", [.init(name: "M.Login/b", status: .passed, seconds: 3)]),
        ])
        // M.Login/a failed and passed on one tree: flaky.
        #expect(report.suites.map(\.name) == ["M.Login", "M.Feed"])
        let login = report.suites[0]
        #expect(login.runs == 3 && login.tests == 2 && login.failures == 1 && login.flaky == 1)
        #expect(login.p50 == 3 && login.p90 == 3, "its seconds in the three records: 3, 1, 3: \(login)")
        #expect(report.nodes.map(\.name) == ["1/2", "2/2"])
        #expect(report.nodes[0].runs == 2 && report.nodes[0].tests == 3 && report.nodes[0].failures == 1)
        #expect(report.nodes[1].p50 == 3 && report.nodes[1].p90 == 4)
        #expect(report.saved.impact == 6 && report.saved.impactSeconds == 12)
        let table = report.rendered().joined(separator: "\n")
        #expect(
            table.contains("suite  ") && table.contains("node")
                && table.contains("6 the change could not reach (12.0 s)"), "\(table)")
        #expect(HistoryReport([Self.record(0, [.init(name: "M.A/a", status: .passed, seconds: 1)])]).nodes.isEmpty)
    }

    @Test(
        "older days rolled into one object a day: the same report from a fraction of the bytes; absorbed records skipped, late ones folded in"
    )
    func rollUp() async throws {
        let folder = try Scratch.folder("history-rollup")
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = HistoryArchive(
            feature: StoreLocation(store: FolderStore(root: folder), prefix: try ObjectKey("feature")))
        for day in 1...3 {
            for run in 0..<10 {
                var outcomes: [HistoryRecord.Outcome] = []
                for test in 0..<20 {
                    let fails = test == 3 && run % 5 == 0
                    let retried = test == 7 && run == 4
                    let seconds = Double(100 + test * 10 + run) / 1000
                    outcomes.append(
                        HistoryRecord.Outcome(
                            name: "AppTests.Screen\(test % 4)Tests/test\(test)",
                            status: fails ? .failed : retried ? .flaky : .passed, seconds: seconds,
                            attempts: retried ? 2 : nil,
                            message: fails ? "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")" : nil))
                }
                var record = Self.record(run, outcomes, verified: run)
                record.at = String(format: "2026-11-%02dT08:%02d:00Z", day, run)
                record.node = run % 2 == 0 ? "1/2" : "2/2"
                try await archive.keep(record)
            }
        }
        let before = try await archive.records(since: nil)
        let rolled = try await archive.rollUp(before: "2026-11-03")
        #expect(rolled.records == 20 && rolled.after * 3 < rolled.before, "\(rolled)")
        let after = try await archive.records(since: nil)
        #expect(after.records == before.records && after.unreadable == 0, "nothing lost in the roll-up")
        #expect(HistoryReport(after.records) == HistoryReport(before.records))
        let history = folder.appendingPathComponent("feature/.history")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: history.appendingPathComponent("2026-11-01").path) == [
                "day.json"
            ])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: history.appendingPathComponent("2026-11-03").path).count
                == 10)

        // A roll-up written but its records not yet removed: they are read once.
        let day = history.appendingPathComponent("2026-11-02/day.json")
        let rollUp = try JSONDecoder().decode(HistoryDay.self, from: Data(contentsOf: day))
        var first = try #require(before.records.first { $0.at.hasPrefix("2026-11-02") })
        try Data(try JSONEncoder().encode(first)).write(
            to: history.appendingPathComponent("2026-11-02/" + rollUp.absorbed[0]))
        #expect(try await archive.records(since: nil).records.count == 30)
        // A record arriving late for a rolled day is folded in by the next roll-up, once.
        first.run = "late"
        try await archive.keep(first)
        #expect(try await archive.records(since: nil).records.count == 31)
        #expect(try await archive.rollUp(before: "2026-11-03").records == 1)
        #expect(try await archive.records(since: nil).records.count == 31)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: history.appendingPathComponent("2026-11-02").path) == [
                "day.json"
            ])
    }

    @Test(
        "a failure on code the impact map says did not change since a pass is flaky evidence; a day's roll-up keeps it")
    func unchangedCode() {
        let records = [
            Self.record(0, [.init(name: "T.A/a", status: .passed, seconds: 1)], tree: "1"),
            Self.record(
                1, [.init(name: "T.A/a", status: .failed, seconds: 1, message: "boom", unchangedSince: "1234567890ab")],
                tree: "2"),
        ]
        #expect(
            HistoryReport(records).tests.first?.flaky
                == "failed in run 101 on code unchanged since it passed on 1234567890ab (by the impact map)")
        let day = HistoryDay(day: "2026-11-01", records: records, absorbed: [])
        #expect(day.records == records, "nothing lost in a roll-up")
    }
}
