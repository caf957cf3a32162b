import Foundation

/// What the history says across runs (`pipeline history`, docs/json.md "pipeline history --json"):
/// per test its runs, failures, flakiness with its evidence, p50 and p90 seconds and their trend,
/// and its last failure; per suite and per node; and what verdict reuse and impact selection saved.
public struct HistoryReport: Codable, Sendable, Equatable {
    /// The first and last run's time, and how many runs (a run split across machines counts once).
    public var from: String?
    public var to: String?
    public var runs: Int
    /// The records read (one per run and node) and their bytes in the store.
    public var records: Int
    public var bytes: Int
    /// Tests in order: flaky first, then by failures, then by p90 seconds.
    public var tests: [TestStats]
    /// Suites (`Module.Suite`), by failures, then by p90 seconds.
    public var suites: [GroupStats]
    /// The nodes of runs split across machines (`1/4`, …), in order; empty when no run was split.
    public var nodes: [GroupStats]
    public var saved: Savings

    public struct TestStats: Codable, Sendable, Equatable {
        public var name: String
        /// Runs it ran in, and how many of them it failed (failed, timed out or crashed).
        public var runs: Int
        public var failures: Int
        /// Why it is flaky, when it is: it passed on a retry in one run, failed and passed on one
        /// tree in two runs, or failed on code the impact map says did not change since it passed.
        public var flaky: String?
        /// Seconds of its runs (skipped ones left out), the median and the 90th percentile.
        public var p50: Double
        public var p90: Double
        /// The median of its last third of runs over that of its first third, with six runs or
        /// more; `slowing` when it grew by half and by at least 0.05 s.
        public var trend: Double?
        public var slowing: Bool
        public var lastFailure: Failure?
        /// Its last 20 runs, oldest first: each one's seconds, and its outcome as a letter
        /// (`p` passed, `f` failed, timed out or crashed, `r` passed on a retry, `s` skipped).
        public var recent: [Double]
        public var outcomes: String
    }

    /// A suite's or a node's runs: in how many records it ran, its tests, their failures and
    /// flaky tests, and the p50 and p90 of its seconds per record.
    public struct GroupStats: Codable, Sendable, Equatable {
        public var name: String
        public var runs: Int
        public var tests: Int
        public var failures: Int
        public var flaky: Int
        public var p50: Double
        public var p90: Double
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var run: String
        public var at: String
        public var commit: String
        public var message: String?
    }

    /// The tests run and their seconds; the tests not run, by reason: a verified run's result
    /// stood for them (their seconds there), or impact selection left them out (their expected
    /// seconds).
    public struct Savings: Codable, Sendable, Equatable {
        public var testsRun = 0
        public var secondsRun = 0.0
        public var verified = 0
        public var verifiedSeconds = 0.0
        public var impact = 0
        public var impactSeconds = 0.0
    }

    /// The report of `records` (oldest first), `bytes` in the store.
    public init(_ records: [HistoryRecord], bytes: Int = 0) {
        from = records.first?.at
        to = records.last?.at
        runs = Set(records.map(\.run)).count
        self.records = records.count
        self.bytes = bytes
        var saved = Savings()
        var samples: [String: [(record: HistoryRecord, outcome: HistoryRecord.Outcome)]] = [:]
        for record in records {
            saved.verified += record.notRun.verified
            saved.verifiedSeconds += record.notRun.verifiedSeconds
            saved.impact += record.notRun.impact ?? 0
            saved.impactSeconds += record.notRun.impactSeconds ?? 0
            for outcome in record.tests {
                samples[outcome.name, default: []].append((record, outcome))
                saved.testsRun += 1
                saved.secondsRun += outcome.seconds
            }
        }
        self.saved = saved
        let tests: [TestStats] = samples.map { name, runs in Self.stats(name, runs) }.sorted { a, b in
            let left: (Int, Int, Double, String) = (a.flaky == nil ? 1 : 0, -a.failures, -a.p90, a.name)
            let right: (Int, Int, Double, String) = (b.flaky == nil ? 1 : 0, -b.failures, -b.p90, b.name)
            return left < right
        }
        self.tests = tests
        let flaky = Set(tests.filter { $0.flaky != nil }.map { $0.name })
        suites = Self.groups(records, flaky: flaky) { record, outcome in
            String(outcome.name.split(separator: "/", maxSplits: 1).first ?? "")
        }.sorted { (-$0.failures, -$0.p90, $0.name) < (-$1.failures, -$1.p90, $1.name) }
        nodes =
            records.contains { $0.node != nil }
            ? Self.groups(records, flaky: flaky) { record, _ in record.node ?? "whole" }.sorted {
                ($0.name.count, $0.name) < ($1.name.count, $1.name)
            } : []
    }

    /// The records' outcomes grouped by `key`: per group, the records it ran in, its tests, their
    /// failures and flaky tests, and its seconds per record.
    static func groups(
        _ records: [HistoryRecord], flaky: Set<String>, key: (HistoryRecord, HistoryRecord.Outcome) -> String
    ) -> [GroupStats] {
        var tests: [String: Set<String>] = [:]
        var failures: [String: Int] = [:]
        var seconds: [String: [Double]] = [:]
        for record in records {
            var perRecord: [String: Double] = [:]
            for outcome in record.tests {
                let group = key(record, outcome)
                tests[group, default: []].insert(outcome.name)
                if outcome.status.isFailure { failures[group, default: 0] += 1 }
                perRecord[group, default: 0] += outcome.seconds
            }
            for (group, total) in perRecord { seconds[group, default: []].append(total) }
        }
        return tests.map { group, names in
            GroupStats(
                name: group, runs: seconds[group]?.count ?? 0, tests: names.count, failures: failures[group] ?? 0,
                flaky: names.intersection(flaky).count, p50: percentile(seconds[group] ?? [], 0.5),
                p90: percentile(seconds[group] ?? [], 0.9))
        }
    }

    static func stats(_ name: String, _ runs: [(record: HistoryRecord, outcome: HistoryRecord.Outcome)]) -> TestStats {
        let failures = runs.filter { $0.outcome.status.isFailure }
        var flaky: String?
        if let retried = runs.last(where: { $0.outcome.status == .flaky }) {
            flaky = "failed, then passed on a retry, in run \(retried.record.run)"
        }
        // The same code failing in one run and passing in another.
        for failure in failures.reversed() where flaky == nil {
            let tree = failure.record.tree ?? failure.record.commit
            if let passed = runs.last(where: {
                $0.outcome.status == .passed && ($0.record.tree ?? $0.record.commit) == tree
            }) {
                flaky =
                    "failed in run \(failure.record.run) and passed in run \(passed.record.run) on one tree "
                    + "(\(tree.prefix(12)))"
            }
        }
        // A failure on code that passed before, as the impact map tells it.
        if flaky == nil, let failure = failures.last(where: { $0.outcome.unchangedSince != nil }) {
            flaky =
                "failed in run \(failure.record.run) on code unchanged since it passed on "
                + "\(failure.outcome.unchangedSince!.prefix(12)) (by the impact map)"
        }
        let seconds = runs.filter { $0.outcome.status != .skipped }.map(\.outcome.seconds)
        var trend: Double?
        var slowing = false
        if seconds.count >= 6 {
            let third = seconds.count / 3
            let first = percentile(Array(seconds.prefix(third)), 0.5)
            let last = percentile(Array(seconds.suffix(third)), 0.5)
            if first > 0 {
                trend = (last / first * 100).rounded() / 100
                slowing = last >= first * 1.5 && last - first >= 0.05
            }
        }
        let last = failures.last.map {
            Failure(run: $0.record.run, at: $0.record.at, commit: $0.record.commit, message: $0.outcome.message)
        }
        let window = runs.suffix(20)
        let outcomes = String(
            window.map { run -> Character in
                switch run.outcome.status {
                case .passed: "p"
                case .flaky: "r"
                case .skipped: "s"
                default: "f"
                }
            })
        return TestStats(
            name: name, runs: runs.count, failures: failures.count, flaky: flaky,
            p50: percentile(seconds, 0.5), p90: percentile(seconds, 0.9), trend: trend, slowing: slowing,
            lastFailure: last, recent: window.map(\.outcome.seconds), outcomes: outcomes)
    }

    /// The nearest-rank percentile `p` (0…1) of `values`, to the millisecond; 0 for none.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)
        return (sorted[min(rank, sorted.count - 1)] * 1000).rounded() / 1000
    }

    /// The report as a table: the tests worth a look (flaky, failing or slowing) first, at most
    /// `limit` rows, then what verified runs saved.
    public func rendered(limit: Int = 20) -> [String] {
        var lines = [
            "\(runs) run(s)" + (from.map { " from \($0)" } ?? "") + (to.map { " to \($0)" } ?? "")
                + ", \(tests.count) test(s); \(records) record(s), "
                + String(format: "%.1f kB", Double(bytes) / 1000) + " in the store"
        ]
        let shown = tests.prefix(limit)
        let width = min(60, shown.map(\.name.count).max() ?? 4)
        func cell(_ text: String, _ count: Int) -> String {
            text.count >= count ? text : text + String(repeating: " ", count: count - text.count)
        }
        lines.append(cell("test", width) + "  runs  fail     p50     p90   trend  ")
        for test in shown {
            let trend = test.trend.map { String(format: "x%.2f", $0) + (test.slowing ? " slowing" : "") } ?? "-"
            lines.append(
                cell(String(test.name.suffix(width)), width)
                    + String(
                        format: "  %4d  %4d  %6.2fs  %6.2fs  ", test.runs,
                        test.failures, test.p50, test.p90) + trend
                    + (test.flaky.map { "  flaky: " + $0 } ?? "")
                    + (test.lastFailure.map { "  last failed in run \($0.run)" + ($0.message.map { ": " + $0 } ?? "") }
                        ?? ""))
        }
        if tests.count > limit { lines.append("… and \(tests.count - limit) more (--limit, or --json for all)") }
        for (title, groups) in [("suite", Array(suites.prefix(limit))), ("node", nodes)] where !groups.isEmpty {
            let width = min(60, max(title.count, groups.map(\.name.count).max() ?? 0))
            lines.append(cell(title, width) + "  runs  tests  fail  flaky  p50/run  p90/run")
            for group in groups {
                lines.append(
                    cell(String(group.name.suffix(width)), width)
                        + String(
                            format: "  %4d  %5d  %4d  %5d  %6.2fs  %6.2fs", group.runs, group.tests, group.failures,
                            group.flaky, group.p50, group.p90))
            }
        }
        lines.append(savedLine)
        return lines
    }

    /// What ran and what was not run, by reason, in one line.
    public var savedLine: String {
        func seconds(_ value: Double) -> String {
            value >= 120 ? String(format: "%.1f min", value / 60) : String(format: "%.1f s", value)
        }
        return "ran \(saved.testsRun) test(s) in \(seconds(saved.secondsRun)); not run: \(saved.verified) a verified "
            + "run stood for (\(seconds(saved.verifiedSeconds))), \(saved.impact) the change could not reach "
            + "(\(seconds(saved.impactSeconds)))"
    }

    /// A test the history says to quarantine, and why.
    public struct Proposal: Sendable, Equatable {
        public let test: String
        public let reason: String
    }

    /// The flaky tests (by their evidence) whose failures reach `threshold` of their runs, or that
    /// passed only on a retry, worst first; the reason names the evidence and the rate.
    public func quarantineProposals(threshold: Double, days: Int) -> [Proposal] {
        tests.compactMap { test in
            guard let flaky = test.flaky, test.runs > 0 else { return nil }
            let rate = Double(test.failures) / Double(test.runs)
            guard rate >= threshold || flaky.hasPrefix("failed, then passed on a retry") else { return nil }
            return Proposal(
                test: test.name,
                reason: "flaky in CI's history: failed \(test.failures) of \(test.runs) runs in \(days) days; \(flaky)")
        }
    }

    /// Of the quarantined tests named, those that ran `minimumRuns` times or more in the window
    /// and never failed: their entries can go.
    public func stable(among quarantined: [String], minimumRuns: Int = 5) -> [TestStats] {
        let names = Set(quarantined)
        return tests.filter {
            names.contains($0.name) && $0.runs >= minimumRuns && $0.failures == 0 && $0.flaky == nil
        }
    }
}
