import Foundation
import PipelineCore
import TestCore

/// The outcome of a flake hunt (`pipeline test --repeat N`): each selected test run N times, each
/// run in a fresh process, and for each test how often it failed and the first failure seen.
/// Its JSON form is documented in docs/json.md and keeps its field names.
public struct RepeatReport: Codable, Sendable {
    public struct Failure: Codable, Sendable, Equatable {
        /// The run (1 to N) it happened in.
        public var run: Int
        public var status: TestStatus
        public var message: String?
        public var output: String?
        public var log: String?
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        /// Runs that reached the test (fewer than asked when `--until-failure` stopped early).
        public var runs: Int
        public var passed = 0
        public var failed = 0
        public var timedOut = 0
        public var crashed = 0
        public var skipped = 0
        /// Runs that never reported the test (its process died before it).
        public var missing = 0
        /// Failed, timed-out, crashed and missing runs over all runs, from 0 to 1.
        public var failureRate = 0.0
        public var meanSeconds = 0.0
        public var maxSeconds = 0.0
        public var firstFailure: Failure?
    }

    public var version = 1
    /// Runs asked for, and runs done.
    public var requested: Int
    public var completed: Int
    /// Whether `--until-failure` stopped the hunt at the first failing run.
    public var stoppedEarly: Bool
    public var seconds: Double
    /// The per-test time limit, in seconds: a hang shows as timed out after it.
    public var timeoutSeconds: Double
    /// Every selected test, the most often failing first.
    public var tests: [Entry]

    /// Folds the attempts of runs `1...completed` (an attempt's number is its run).
    public init(
        tests: [TestID], attempts: [TestAttempt], requested: Int, completed: Int, stoppedEarly: Bool,
        seconds: Double, timeout: Duration
    ) {
        let byTest = Dictionary(grouping: attempts.filter { $0.attempt <= completed }, by: \.test)
        self.requested = requested
        self.completed = completed
        self.stoppedEarly = stoppedEarly
        self.seconds = seconds
        timeoutSeconds = timeout.seconds
        self.tests = tests.map { test in
            let tries = (byTest[test] ?? []).sorted { $0.attempt < $1.attempt }
            var record = Entry(name: test.name, runs: completed)
            for attempt in tries {
                switch attempt.status {
                case .passed, .flaky: record.passed += 1
                case .failed: record.failed += 1
                case .timedOut: record.timedOut += 1
                case .crashed: record.crashed += 1
                case .skipped: record.skipped += 1
                case .missing: record.missing += 1
                }
            }
            record.missing += max(0, completed - tries.count)
            let failing = record.failed + record.timedOut + record.crashed + record.missing
            record.failureRate = completed == 0 ? 0 : Double(failing) / Double(completed)
            record.meanSeconds = tries.isEmpty ? 0 : tries.reduce(0) { $0 + $1.seconds } / Double(tries.count)
            record.maxSeconds = tries.map(\.seconds).max() ?? 0
            let reported = Set(tries.map(\.attempt))
            let failure = tries.first { $0.status.isFailure || $0.status == .missing }
            let unreported = completed == 0 ? nil : (1...completed).first { !reported.contains($0) }
            if let failure, unreported.map({ failure.attempt < $0 }) ?? true {
                record.firstFailure = Failure(
                    run: failure.attempt, status: failure.status, message: failure.message,
                    output: failure.output, log: failure.log)
            } else if let unreported {
                record.firstFailure = Failure(
                    run: unreported, status: .missing,
                    message: "never reported: its process ended before it", output: nil, log: nil)
            }
            return record
        }.sorted { ($1.failureRate, $0.name) < ($0.failureRate, $1.name) }
    }

    /// Whether every test passed in every run.
    public var passed: Bool { completed > 0 && tests.allSatisfy { $0.firstFailure == nil } }

    /// A line per test with its failure rate, then the first failing output of each test that failed.
    public func render(outputLines: Int = 30) -> String {
        var lines: [String] = []
        for record in tests {
            let failing = record.failed + record.timedOut + record.crashed + record.missing
            let kinds = [
                (record.timedOut, "timed out after \(timeoutSeconds.formatted(places: 0)) s"),
                (record.crashed, "crashed"), (record.missing, "missing"),
            ]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            lines.append(
                String(format: "%5.1f%%", record.failureRate * 100) + "  \(failing)/\(record.runs)  \(record.name)"
                    + (kinds.isEmpty ? "" : " (\(kinds.joined(separator: ", ")))")
                    + "  mean \(record.meanSeconds.formatted(places: 2)) s, max \(record.maxSeconds.formatted(places: 2)) s"
            )
        }
        for record in tests {
            guard let first = record.firstFailure else { continue }
            lines.append("")
            lines.append(
                "first failure of \(record.name): run \(first.run), \(first.status.rawValue)"
                    + (first.log.map { " (log \($0))" } ?? ""))
            lines += (first.message ?? "").split(separator: "\n").map { "    \($0)" }
            let output = (first.output ?? "").split(separator: "\n", omittingEmptySubsequences: false)
            if output.count > 1 || output.first?.isEmpty == false {
                lines += output.prefix(outputLines).map { "    | \($0)" }
                if output.count > outputLines { lines.append("    | … \(output.count - outputLines) more lines") }
            }
        }
        let flaky = tests.filter { $0.firstFailure != nil }.count
        lines.append("")
        lines.append(
            "\(counted(tests.count, "test")) run \(counted(completed, "time"))"
                + (stoppedEarly ? " (stopped at the first failing run of \(requested))" : "")
                + " in \(seconds.formatted(places: 1)) s: "
                + (flaky == 0 ? "no failure" : "\(flaky) failed at least once"))
        return lines.joined(separator: "\n")
    }
}
