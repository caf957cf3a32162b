import Foundation
import PipelineCore

/// The outcome of a whole run: one record per listed test, and the check that each ran exactly once.
/// Its JSON form (`pipeline test --json`) is documented in docs/json.md and keeps its field names.
public struct TestReport: Codable, Sendable {
    public struct Summary: Codable, Sendable, Equatable {
        public var total = 0
        public var passed = 0
        /// Failed, timed out, crashed and missing tests together (and flaky ones where they fail the run).
        public var failed = 0
        public var skipped = 0
        public var flaky = 0
        public var timedOut = 0
        public var crashed = 0
        public var missing = 0
        /// Tests that did not pass but are quarantined: counted here, not in `failed`.
        public var quarantined = 0
        public var duplicated = 0
        public var seconds = 0.0
        public var expectedSeconds = 0.0
        /// max(longest test, sum of test times / shards): the best any split could do.
        public var idealSeconds = 0.0
        /// Process time beyond the tests' own durations, per test run (start-up, harness).
        public var overheadPerTest = 0.0
        public var shards = 0
        public var node = Node.whole
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        public var framework: TestFramework
        public var suite: String
        public var test: String
        public var status: TestStatus
        /// Duration of the last attempt.
        public var seconds: Double
        public var attempts: Int
        public var shard: Int
        public var message: String?
        public var output: String?
        /// The log of the process that ran its last attempt.
        public var log: String?
        /// Set on a test that did not pass and is quarantined: its failure does not fail the run.
        public var quarantine: QuarantineNote?
        /// Set when this run took the test's batch over from a node whose lease on it ran out (a
        /// retry, counted in `attempts`: that node may have run it too).
        public var takenOverFrom: String?
        /// What the terminal shows instead of the message and output, when a check after the run
        /// says it better (a failed snapshot: what differs, where to review and accept it). JUnit
        /// and JSON keep the whole message.
        public var brief: [String]?
        /// Set on a test that did not run here: its result is that of the verified run named, on a
        /// tree that differed from this one only where the test cannot reach (docs/ci.md, "Tested once").
        public var verifiedBy: String?
    }

    /// Why a test's failure does not count: the quarantine entry naming it.
    public struct QuarantineNote: Codable, Sendable, Equatable {
        public var owner: String
        public var reason: String
        /// The day the entry runs out, `YYYY-MM-DD`.
        public var expires: String

        public init(owner: String, reason: String, expires: String) {
            self.owner = owner
            self.reason = reason
            self.expires = expires
        }

        public var description: String { "quarantined by \(owner) until \(expires): \(reason)" }
    }

    public var version = 1
    public var summary: Summary
    public var tests: [Entry]
    /// Tests that ran more than once in one attempt, were reported without being asked for, or
    /// did something a check after the run caught (a reference written in CI by no known test).
    public var problems: [String]
    public var passed: Bool
    /// Whether a flaky test counts as failed.
    public var flakyFails: Bool
    /// The page reviewing the run's failed snapshots, when one was written.
    public var review: String?
    /// Why failures were not retried (more failed than `--max-retried`), when they were not.
    public var retryNote: String?
    /// Set when nothing ran: the verdict of an earlier run of the same key stands (which run, on
    /// which commit, when; docs/ci.md, "Tested once").
    public var verifiedBy: String?

    /// Folds every attempt into one record per test. A test that failed and then passed is flaky;
    /// a test with no attempt at all is missing.
    public init(shards: [Shard], attempts: [TestAttempt], seconds: Double, node: Node, flakyFails: Bool) {
        let byTest = Dictionary(grouping: attempts, by: \.test)
        var summary = Summary(
            seconds: seconds, expectedSeconds: shards.map(\.expectedSeconds).max() ?? 0,
            shards: shards.count, node: node)
        var results: [Entry] = []
        var problems: [String] = []
        let planned = shards.flatMap { shard in shard.tests.map { ($0, shard.index) } }
        for (test, shard) in planned.sorted(by: { $0.0 < $1.0 }) {
            let tries = (byTest[test] ?? []).sorted { $0.attempt < $1.attempt }
            let repeated = Dictionary(grouping: tries, by: \.attempt).filter { $0.value.count > 1 }
            if !repeated.isEmpty {
                summary.duplicated += 1
                problems.append("\(test.name) ran \(repeated.values.map(\.count).max()!) times in one attempt")
            }
            let last =
                tries.last
                ?? TestAttempt(
                    test: test, status: .missing, seconds: 0,
                    message: "never reported by any test process")
            let status: TestStatus =
                last.status == .passed && tries.contains { $0.status.isFailure } ? .flaky : last.status
            let failure = tries.last { $0.status.isFailure || $0.status == .missing }
            results.append(
                Entry(
                    name: test.name, framework: test.framework, suite: test.suite, test: test.shortName,
                    status: status, seconds: last.seconds, attempts: max(1, tries.count),
                    shard: last.shard ?? shard,
                    message: status == .passed || status == .skipped ? last.message : (failure ?? last).message,
                    output: status == .passed || status == .skipped ? nil : (failure ?? last).output,
                    log: (failure ?? last).log))
        }
        let plannedSet = Set(planned.map(\.0))
        for unexpected in Set(attempts.map(\.test)).subtracting(plannedSet).sorted() {
            problems.append("\(unexpected.name) ran without being asked for")
        }
        let durations = results.map(\.seconds)
        summary.idealSeconds = max(durations.max() ?? 0, durations.reduce(0, +) / Double(max(1, shards.count)))
        self.summary = summary
        self.tests = results
        self.problems = problems
        self.flakyFails = flakyFails
        self.passed = false
        recount()
    }

    /// One report of many parts (the batches of a shared queue, run on several machines), checked
    /// against the suite: a test with no record is missing, a test with two results is duplicated,
    /// a record for a test outside the suite is a problem.
    /// Each node runs its parts one after another, so the run took as long as its busiest node.
    public init(merging parts: [TestReport], suite: [TestID], flakyFails: Bool) {
        var byName: [String: [Entry]] = [:]
        for part in parts { for record in part.tests { byName[record.name, default: []].append(record) } }
        let byNode = Dictionary(grouping: parts, by: \.summary.node)
        var summary = Summary()
        summary.seconds = byNode.values.map { $0.reduce(0) { $0 + $1.summary.seconds } }.max() ?? 0
        summary.expectedSeconds = byNode.values.map { $0.reduce(0) { $0 + $1.summary.expectedSeconds } }.max() ?? 0
        summary.shards = parts.map(\.summary.shards).max() ?? 0
        summary.node = byNode.count == 1 ? byNode.keys.first! : .whole
        var results: [Entry] = []
        var problems = parts.flatMap(\.problems)
        for test in suite.sorted() {
            guard let found = byName.removeValue(forKey: test.name) else {
                results.append(
                    Entry(
                        name: test.name, framework: test.framework, suite: test.suite, test: test.shortName,
                        status: .missing, seconds: 0, attempts: 1, shard: 0,
                        message: "no node reported it", output: nil, log: nil))
                continue
            }
            if found.count > 1 {
                summary.duplicated += 1
                problems.append("\(test.name) ran in \(counted(found.count, "batch", plural: "batches"))")
            }
            results.append(found.last!)
        }
        problems += byName.keys.sorted().map { "\($0) ran without being asked for" }
        let durations = results.map(\.seconds)
        let lanes = Double(max(1, (parts.map(\.summary.node.count).max() ?? 1) * summary.shards))
        summary.idealSeconds = max(durations.max() ?? 0, durations.reduce(0, +) / lanes)
        self.summary = summary
        tests = results
        self.problems = problems
        self.flakyFails = flakyFails
        retryNote = parts.compactMap(\.retryNote).first
        passed = false
        recount()
    }

    /// The tests whose outcome fails the run: failed, timed out, crashed or missing, and flaky where
    /// flaky fails the run; quarantined ones do not.
    public var notPassed: [String] {
        tests.filter { failsRun($0) }.map(\.name)
    }

    private func failsRun(_ record: Entry) -> Bool {
        record.quarantine == nil
            && (record.status.isFailure || record.status == .missing || (record.status == .flaky && flakyFails))
    }

    /// Adds the results of tests that did not run here, as the verified run `run` reported them
    /// (`Entry.verifiedBy`); they count in the summary and the verdict as they did there.
    public mutating func take(_ entries: [Entry], verifiedBy run: String) {
        tests += entries.map { entry in
            var entry = entry
            entry.verifiedBy = run
            return entry
        }
        tests.sort { $0.name < $1.name }
        recount()
    }

    /// Marks every test as a retry of a batch another node claimed first (`node`).
    public mutating func takenOver(from node: String) {
        for index in tests.indices {
            tests[index].takenOverFrom = node
            tests[index].attempts += 1
        }
    }

    /// Marks the tests that did not pass and that `entry` quarantines; their failures stop failing the run.
    public mutating func quarantine(_ entry: (String) -> QuarantineNote?) {
        for index in tests.indices where tests[index].status != .passed && tests[index].status != .skipped {
            tests[index].quarantine = entry(tests[index].name)
        }
        recount()
    }

    /// The report of an earlier run, as `--json` and the last-run file hold it.
    public static func load(_ url: URL) throws(TestRunError) -> TestReport {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .unreadableReport(path: url.path, reason: "no such file; run the tests once without --failed")
        }
        return try decode(data, origin: url.path)
    }

    /// Reads the report format; `origin` names the file or object in errors.
    public static func decode(_ data: Data, origin: String) throws(TestRunError) -> TestReport {
        do {
            return try JSONDecoder().decode(TestReport.self, from: data)
        } catch {
            throw .unreadableReport(
                path: origin,
                reason: "not a pipeline test report (\(JSONFile.reason(error, format: "report"))); "
                    + "run without --failed for a full run")
        }
    }

    /// The report as `--json` prints it.
    public func encoded() throws(TestRunError) -> Data {
        try TestRunError.writing { () throws(FileError) in try JSONFile.encode(self, what: "report") }
    }

    /// Writes the report as `--json` prints it, whole or not at all.
    public func save(_ url: URL) throws(TestRunError) {
        let data = try encoded()
        try TestRunError.writing { () throws(FileError) in try JSONFile.write(data, to: url) }
    }

    /// Fails a test for what a check after the run found (its message is put first); a problem of
    /// the run when no test has that name.
    public mutating func fail(_ name: String, because message: String) {
        guard let index = tests.firstIndex(where: { $0.name == name }) else {
            problems.append(message)
            return recount()
        }
        let earlier = tests[index].message.map { "\n\($0)" } ?? ""
        tests[index].message =
            message + (tests[index].status.isFailure || tests[index].status == .missing ? earlier : "")
        if tests[index].status == .passed || tests[index].status == .flaky || tests[index].status == .skipped {
            tests[index].status = .failed
        }
        recount()
    }

    /// Replaces a failed test's message (the first line people read), keeping its output.
    public mutating func explain(_ name: String, _ message: String) {
        guard let index = tests.firstIndex(where: { $0.name == name }) else { return }
        tests[index].message = message
    }

    /// Adds `lines` to what the terminal shows of the test instead of its message and output.
    public mutating func brief(_ name: String, _ lines: [String]) {
        guard let index = tests.firstIndex(where: { $0.name == name }) else { return }
        tests[index].brief = (tests[index].brief ?? []) + lines
    }

    /// Points every mention of the review page at `path` to `address` instead (where the page was
    /// kept for reviewers: the store's link), in the messages, the terminal's lines and `review`.
    public mutating func readdress(review path: String, as address: String) {
        guard path != address else { return }
        for index in tests.indices {
            tests[index].message = tests[index].message?.replacingOccurrences(of: path, with: address)
            tests[index].brief = tests[index].brief?.map { $0.replacingOccurrences(of: path, with: address) }
        }
        if review == path { review = address }
    }

    /// The counts and the verdict, from the results and problems.
    private mutating func recount() {
        var summary = self.summary
        (summary.passed, summary.skipped, summary.flaky, summary.failed) = (0, 0, 0, 0)
        (summary.timedOut, summary.crashed, summary.missing, summary.quarantined) = (0, 0, 0, 0)
        summary.total = tests.count
        for record in tests {
            if record.quarantine != nil {
                summary.quarantined += 1
                continue
            }
            switch record.status {
            case .passed: summary.passed += 1
            case .skipped: summary.skipped += 1
            case .flaky: summary.flaky += 1
            case .failed: summary.failed += 1
            case .timedOut: summary.timedOut += 1
            case .crashed: summary.crashed += 1
            case .missing: summary.missing += 1
            }
        }
        summary.failed += summary.timedOut + summary.crashed + summary.missing + (flakyFails ? summary.flaky : 0)
        self.summary = summary
        passed = summary.failed == 0 && problems.isEmpty && summary.total > 0
    }

    /// The plain summary line: `N passed, N failed, N skipped`, then flaky, timed-out, crashed and missing counts.
    public var summaryLine: String {
        var line = "\(summary.passed) passed, \(summary.failed) failed, \(summary.skipped) skipped"
        let details = [
            (summary.flaky, "flaky"), (summary.timedOut, "timed out"), (summary.crashed, "crashed"),
            (summary.missing, "missing"), (summary.duplicated, "duplicated"), (summary.quarantined, "quarantined"),
        ]
        .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
        let taken = tests.filter { $0.verifiedBy != nil }
        if let run = taken.first?.verifiedBy {
            line += "; \(taken.count) of them not run here: verified in run \(run)"
        }
        return line
    }

    /// The human report: every test that did not pass with its message and the start of its output
    /// (`outputLines` lines; the JSON and JUnit reports keep it all), then the summary.
    public func render(outputLines: Int = 30) -> String {
        var lines: [String] = []
        for record in tests where record.status != .passed && record.status != .skipped && record.quarantine == nil {
            let attempts = record.attempts > 1 ? ", \(record.attempts) attempts" : ""
            let mark = record.status == .flaky ? "⚠" : "✗"
            lines.append(
                "\(mark) \(record.name) — \(record.status.rawValue) (\(record.seconds.formatted(places: 2)) s\(attempts))"
            )
            if let brief = record.brief {
                lines += brief.map { "    \($0)" }
                continue
            }
            lines += (record.message ?? "").split(separator: "\n").map { "    \($0)" }
            if let output = record.output, !output.isEmpty, record.status != .flaky {
                let shown = output.split(separator: "\n", omittingEmptySubsequences: false)
                lines += shown.prefix(shown.count > outputLines + 5 ? outputLines : shown.count).map { "    | \($0)" }
                if shown.count > outputLines + 5 {
                    lines.append(
                        "    | … \(shown.count - outputLines) more lines" + (record.log.map { " in \($0)" } ?? ""))
                }
            }
        }
        let quarantined = tests.filter { $0.quarantine != nil }
        if !quarantined.isEmpty {
            lines.append("Quarantined (\(quarantined.count), not failing the run):")
            for record in quarantined {
                let first = record.message?.split(separator: "\n").first.map { " — \($0)" } ?? ""
                lines.append("⊘ \(record.name) — \(record.status.rawValue)\(first)")
                lines.append("    \(record.quarantine!.description)")
            }
        }
        lines += problems.map { "✗ \($0)" }
        if let retryNote { lines.append("note: \(retryNote)") }
        lines.append(summaryLine)
        lines.append(
            "\(counted(summary.total, "test")) in \(counted(summary.shards, "shard"))"
                + (summary.node.count > 1 ? " on node \(summary.node)" : "")
                + ": \(summary.seconds.formatted(places: 2)) s (plan expected \(summary.expectedSeconds.formatted(places: 2)) s, "
                + "ideal \(summary.idealSeconds.formatted(places: 2)) s)")
        if let review { lines.append("failed snapshots: \(review)") }
        return lines.joined(separator: "\n")
    }
}

extension Double {
    /// The number with `places` decimals, as reports print durations.
    public func formatted(places: Int) -> String { String(format: "%.\(places)f", self) }
}
