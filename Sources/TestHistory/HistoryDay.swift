import Foundation
import TestCore

/// A day of the history rolled into one object, `.history/<YYYY-MM-DD>/day.json` (docs/json.md,
/// "The test history"): every record of the day with nothing left out, each test's name written
/// once and each outcome a few characters, so a year of runs stays small; and the names of the
/// record objects it absorbed, which a reader skips until they are removed.
public struct HistoryDay: Codable, Sendable, Equatable {
    public var version = 1
    public var day: String
    /// The tests' names; an outcome names its test by its index here.
    public var tests: [String]
    public var runs: [Run]
    /// The record objects (their names) this day holds.
    public var absorbed: [String]

    public static let name = "day.json"

    /// One record, its outcomes as `<index><status><milliseconds>[x<attempts>]` separated by
    /// spaces (status: `p` passed, `f` failed, `s` skipped, `r` flaky, `t` timed out, `c`
    /// crashed, `m` missing), its failures' messages and unchanged-since commits by test index.
    public struct Run: Codable, Sendable, Equatable {
        public var run: String
        public var node: String?
        public var commit: String
        public var tree: String?
        public var scope: String
        public var at: String
        public var notRun: HistoryRecord.NotRun
        public var outcomes: String
        public var messages: [String: String]?
        /// The failures on code unchanged since a pass: that pass's commit, by test index.
        public var unchanged: [String: String]?
    }

    static let letters: [TestStatus: Character] = [
        .passed: "p", .failed: "f", .skipped: "s", .flaky: "r", .timedOut: "t", .crashed: "c", .missing: "m",
    ]

    /// The day of `records`, which came from the objects named `absorbed`.
    public init(day: String, records: [HistoryRecord], absorbed: [String]) {
        self.day = day
        self.absorbed = absorbed.sorted()
        tests = Array(Set(records.flatMap { $0.tests.map(\.name) })).sorted()
        let index = Dictionary(uniqueKeysWithValues: tests.enumerated().map { ($1, $0) })
        runs = records.map { record in
            var messages: [String: String] = [:]
            var unchanged: [String: String] = [:]
            let outcomes = record.tests.map { outcome -> String in
                let position = index[outcome.name]!
                if let message = outcome.message { messages[String(position)] = message }
                if let commit = outcome.unchangedSince { unchanged[String(position)] = commit }
                return "\(position)\(Self.letters[outcome.status]!)\(Int((outcome.seconds * 1000).rounded()))"
                    + (outcome.attempts.map { "x\($0)" } ?? "")
            }.joined(separator: " ")
            return Run(
                run: record.run, node: record.node, commit: record.commit, tree: record.tree, scope: record.scope,
                at: record.at, notRun: record.notRun, outcomes: outcomes, messages: messages.isEmpty ? nil : messages,
                unchanged: unchanged.isEmpty ? nil : unchanged)
        }
    }

    /// The day's records as they were kept; nil when an outcome cannot be read (written by hand).
    public var records: [HistoryRecord]? {
        let statuses = Dictionary(uniqueKeysWithValues: Self.letters.map { ($1, $0) })
        var records: [HistoryRecord] = []
        for run in runs {
            var outcomes: [HistoryRecord.Outcome] = []
            for cell in run.outcomes.split(separator: " ") {
                guard let letter = cell.firstIndex(where: { $0.isLetter }), let status = statuses[cell[letter]],
                    let position = Int(cell[..<letter]), tests.indices.contains(position)
                else { return nil }
                let rest = cell[cell.index(after: letter)...].split(separator: "x", omittingEmptySubsequences: false)
                guard let milliseconds = rest.first.flatMap({ Int($0) }) else { return nil }
                let attempts = rest.count > 1 ? Int(rest[1]) : nil
                outcomes.append(
                    HistoryRecord.Outcome(
                        name: tests[position], status: status, seconds: Double(milliseconds) / 1000, attempts: attempts,
                        message: run.messages?[String(position)], unchangedSince: run.unchanged?[String(position)]))
            }
            records.append(
                HistoryRecord(
                    run: run.run, node: run.node, commit: run.commit, tree: run.tree, scope: run.scope, at: run.at,
                    tests: outcomes, notRun: run.notRun))
        }
        return records
    }
}
