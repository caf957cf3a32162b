import Foundation
import TestCore

/// One CI run's outcome, as the test history keeps it (docs/json.md, "The test history"): each test
/// that ran here with its status, seconds and attempts, what was not run here and what it would
/// have cost, and where the run was (its commit and tree, its trust scope, its node). Every run
/// writes its own object (`HistoryArchive`), so nothing is read, changed and written back.
public struct HistoryRecord: Codable, Sendable, Equatable {
    /// Changes only if a field changes meaning.
    public var version = 1
    /// The CI run (`GITHUB_RUN_ID` and its attempt, …), `local` outside CI.
    public var run: String
    /// This machine's part of a run split across machines (`2/4`); absent for a whole run.
    public var node: String?
    /// The commit tested.
    public var commit: String
    /// Its tree: two commits of one tree test the same code. Absent when it could not be read.
    public var tree: String?
    /// The trust scope that wrote it (`pr/12`, `branch/develop`, `local`).
    public var scope: String
    /// When the run ended, ISO 8601 in UTC.
    public var at: String
    /// The run's tests, in name order.
    public var tests: [Outcome]
    /// What was not run here because a verified run's result stood for it.
    public var notRun: NotRun

    /// One test's outcome in the run.
    public struct Outcome: Codable, Sendable, Equatable {
        /// `Module.Suite/test`.
        public var name: String
        public var status: TestStatus
        public var seconds: Double
        /// Set when it ran more than once (a retry): how many times.
        public var attempts: Int?
        /// A failure's first line, at most 200 characters.
        public var message: String?
        /// A failure on code the impact map says did not change since the test passed on this
        /// commit (12 hex digits): flakiness, not a breakage.
        public var unchangedSince: String?

        public init(
            name: String, status: TestStatus, seconds: Double, attempts: Int? = nil, message: String? = nil,
            unchangedSince: String? = nil
        ) {
            (self.name, self.status, self.seconds, self.attempts, self.message, self.unchangedSince) =
                (name, status, seconds, attempts, message, unchangedSince)
        }
    }

    /// What was not run here, by reason: the tests whose results were a verified run's
    /// (`verifiedBy`) and their seconds there; the tests impact selection left out (the change
    /// cannot reach them) and their expected seconds, absent when it left none out.
    public struct NotRun: Codable, Sendable, Equatable {
        public var verified = 0
        public var verifiedSeconds = 0.0
        public var impact: Int?
        public var impactSeconds: Double?

        public init(verified: Int = 0, verifiedSeconds: Double = 0, impact: Int? = nil, impactSeconds: Double? = nil) {
            (self.verified, self.verifiedSeconds, self.impact, self.impactSeconds) =
                (verified, verifiedSeconds, impact, impactSeconds)
        }
    }

    public init(
        run: String, node: String?, commit: String, tree: String?, scope: String, at: String, tests: [Outcome],
        notRun: NotRun = NotRun()
    ) {
        (self.run, self.node, self.commit, self.tree, self.scope, self.at, self.tests, self.notRun) =
            (run, node, commit, tree, scope, at, tests, notRun)
    }

    /// A run's record from its report: the tests it ran (a test another run verified counts as
    /// not run here), each failure's first line; `leftOut`, the tests impact selection did not run
    /// and their expected seconds; `unchanged`, the failures on code unchanged since a pass (by
    /// test name, that pass's commit).
    public init(
        report: TestReport, run: String, node: Node, commit: String, tree: String?, scope: String, at: Date,
        leftOut: (tests: Int, seconds: Double) = (0, 0), unchanged: [String: String] = [:]
    ) {
        var tests: [Outcome] = []
        var notRun = NotRun(
            impact: leftOut.tests > 0 ? leftOut.tests : nil,
            impactSeconds: leftOut.tests > 0 ? (leftOut.seconds * 1000).rounded() / 1000 : nil)
        for entry in report.tests {
            if entry.verifiedBy != nil {
                notRun.verified += 1
                notRun.verifiedSeconds += entry.seconds
                continue
            }
            let message =
                entry.status == .passed || entry.status == .skipped
                ? nil
                : entry.message.map { String(($0.split(separator: "\n").first ?? "").prefix(200)) }
            tests.append(
                Outcome(
                    name: entry.name, status: entry.status, seconds: (entry.seconds * 1000).rounded() / 1000,
                    attempts: entry.attempts > 1 ? entry.attempts : nil, message: message,
                    unchangedSince: entry.status.isFailure ? unchanged[entry.name] : nil))
        }
        self.init(
            run: run, node: node.count > 1 ? "\(node.index)/\(node.count)" : nil, commit: commit, tree: tree,
            scope: scope,
            at: Self.timestamp(at), tests: tests.sorted { $0.name < $1.name }, notRun: notRun)
    }

    /// ISO 8601 in UTC, to the second.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
