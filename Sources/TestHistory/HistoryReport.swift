import Foundation

/// What the history says across runs (`pipeline history`, docs/json.md "pipeline history --json"):
/// per test its runs, failures, flakiness with its evidence, p50 and p90 seconds and their trend,
/// and its last failure; and what verified runs saved.
public struct HistoryReport: Codable, Sendable, Equatable {
    /// The first and last run's time, and how many runs (a run split across machines counts once).
    public var from: String?
    public var to: String?
    public var runs: Int
    /// Tests in order: flaky first, then by failures, then by p90 seconds.
    public var tests: [TestStats]
    public var saved: Savings

    public struct TestStats: Codable, Sendable, Equatable {
        public var name: String
        /// Runs it ran in, and how many of them it failed (failed, timed out or crashed).
        public var runs: Int
        public var failures: Int
        /// Why it is flaky, when it is: it passed on a retry in one run, or failed and passed on
        /// one tree in two runs.
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

    public struct Failure: Codable, Sendable, Equatable {
        public var run: String
        public var at: String
        public var commit: String
        public var message: String?
    }

    /// Tests not run because a verified run's result stood for them, and their seconds there.
    public struct Savings: Codable, Sendable, Equatable {
        public var testsRun = 0
        public var secondsRun = 0.0
        public var verified = 0
        public var verifiedSeconds = 0.0
    }

    /// The report of `records` (oldest first).
    public init(_ records: [HistoryRecord]) {
        from = records.first?.at
        to = records.last?.at
        runs = Set(records.map(\.run)).count
        var saved = Savings()
        var samples: [String: [(record: HistoryRecord, outcome: HistoryRecord.Outcome)]] = [:]
        for record in records {
            saved.verified += record.notRun.verified
            saved.verifiedSeconds += record.notRun.verifiedSeconds
            for outcome in record.tests {
                samples[outcome.name, default: []].append((record, outcome))
                saved.testsRun += 1
                saved.secondsRun += outcome.seconds
            }
        }
        self.saved = saved
        tests = samples.map { name, runs in Self.stats(name, runs) }.sorted { a, b in
            ((a.flaky == nil ? 1 : 0), -a.failures, -a.p90, a.name) < (
                (b.flaky == nil ? 1 : 0), -b.failures, -b.p90, b.name
            )
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
                + ", \(tests.count) test(s)"
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
        lines.append(
            "ran \(saved.testsRun) test(s) in \(String(format: "%.1f", saved.secondsRun)) s; verified runs stood for "
                + "\(saved.verified) more (\(String(format: "%.1f", saved.verifiedSeconds)) s not run)")
        return lines
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
