import Foundation
import PipelineCore

/// Test durations recorded on earlier runs: the input that balances shards.
///
/// The file is JSON, `{"version": 1, "tests": {"<test name>": {"seconds": 1.25, "samples": 3,
/// "recent": [1.1, 1.3, 1.25], "history": {"runs": 12, "flaky": 0.08, "failed": 0}}}}`.
/// Each run folds its measurements in as a running mean over the last few samples, so a file
/// shared by several machines (or merged from several with `merge`) settles on typical times;
/// and each test's outcome into its history, a running share over the last `historyWindow` runs.
public struct Timings: Codable, Equatable, Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        public var seconds: Double
        public var samples: Int
        /// Its last `recentWindow` durations, oldest first (absent in files written before they
        /// were kept): what its p90 is read from.
        public var recent: [Double]?
        /// How the test ended on recent runs (absent in files written before it was kept).
        public var history: History?

        public init(seconds: Double, samples: Int, recent: [Double]? = nil, history: History? = nil) {
            self.seconds = seconds
            self.samples = samples
            self.recent = recent
            self.history = history
        }

        /// The 90th percentile (nearest rank) of its recent durations, with `minimumRuns` of them
        /// at least; nil with fewer.
        public func p90(minimumRuns: Int = 5) -> Double? {
            guard let recent, recent.count >= minimumRuns else { return nil }
            let sorted = recent.sorted()
            return sorted[max(0, Int((0.9 * Double(sorted.count)).rounded(.up)) - 1)]
        }
    }

    /// Of the last `runs` runs (at most `historyWindow`): the share where the test was flaky
    /// (failed, then passed on a retry) and the share where it did not pass at all.
    public struct History: Codable, Equatable, Sendable {
        public var runs: Int
        public var flaky: Double
        public var failed: Double
        /// The share of runs where the test flipped on the same code: flaky within the run, or
        /// ending otherwise than the run before it on the same commit. Nil in files written before
        /// commits were kept.
        public var flips: Double?
        /// The latest run's commit (12 hex digits) and outcome, `<commit>:passed` or `<commit>:failed`.
        public var last: String?

        public init(runs: Int, flaky: Double, failed: Double, flips: Double? = nil, last: String? = nil) {
            (self.runs, self.flaky, self.failed, self.flips, self.last) = (runs, flaky, failed, flips, last)
        }

        /// Flaky: the share of recent runs it flipped on the same code. A test that failed on some
        /// commits and passed on others changed with the code: that is not flakiness. Older
        /// files, which kept no commits: the share it did not plainly pass, unless it failed every
        /// time (a breakage).
        public var flakeRate: Double { flips ?? (failed >= 1 ? flaky : flaky + failed) }
    }

    /// How many runs a test's history remembers.
    public static let historyWindow = 20

    /// How many samples the running mean remembers, so a test that got slower is noticed soon.
    static let memory = 5
    /// How many durations a test's `recent` keeps.
    public static let recentWindow = 10
    public static let formatVersion = 1

    public var version = Timings.formatVersion
    public var tests: [String: Entry] = [:]
    /// Time a test costs beyond its own duration (process start-up, the harness's per-test work),
    /// measured on earlier runs: small, but it decides the balance of suites of many tiny tests.
    public var overheadPerTest: Entry?

    public init() {}

    public subscript(test: TestID) -> Double? { tests[test.name]?.seconds }

    /// Adds one measurement.
    public mutating func add(_ test: TestID, seconds: Double) {
        let recent = Array(
            ((tests[test.name]?.recent ?? []) + [(seconds * 1000).rounded() / 1000]).suffix(Self.recentWindow))
        tests[test.name] = Self.fold(tests[test.name], Entry(seconds: seconds, samples: 1))
        tests[test.name]?.recent = recent
    }

    /// Adds a run's measurements: the duration of each test that ran to an end (passed, failed or
    /// flaky), the outcome of each test with a recorded duration, and the per-test overhead. With
    /// the run's `commit`, a test that ends otherwise than its last run on the same commit flipped
    /// (without one, flips are not kept: the share of runs it did not plainly pass stands for them).
    /// The outcomes of `explained` tests are left out: failures the change itself explains (a
    /// snapshot whose new rendering awaits review, a new test without a reference) are not flakiness.
    public mutating func add(_ report: TestReport, commit: String? = nil, explained: Set<String> = []) {
        let code = commit.map { String($0.prefix(12)) }
        for test in report.tests {
            if [.passed, .failed, .flaky].contains(test.status) {
                add(TestID(test.name, framework: test.framework), seconds: test.seconds)
            }
            guard test.status != .skipped, test.status != .missing, !explained.contains(test.name),
                var entry = tests[test.name]
            else { continue }
            let outcome = code.map { "\($0):\(test.status.isFailure ? "failed" : "passed")" }
            var flipped = test.status == .flaky
            if let code, let last = entry.history?.last, last.hasPrefix(code + ":"), last != outcome { flipped = true }
            let run = History(
                runs: 1, flaky: test.status == .flaky ? 1 : 0, failed: test.status.isFailure ? 1 : 0,
                flips: code == nil ? nil : flipped ? 1 : 0, last: outcome)
            entry.history = Self.fold(entry.history, run)
            tests[test.name] = entry
        }
        addOverhead(seconds: report.summary.overheadPerTest)
    }

    /// The tests flaky or failing now and then in at least `threshold` of their recent runs (with
    /// at least `minimumRuns` recorded), the most often first.
    public func flaky(threshold: Double, minimumRuns: Int = 5) -> [(name: String, history: History)] {
        tests.compactMap { name, entry in
            guard let history = entry.history, history.runs >= minimumRuns, history.flakeRate >= threshold,
                history.flakeRate > 0
            else { return nil }
            return (name, history)
        }.sorted { ($1.history.flakeRate, $0.name) < ($0.history.flakeRate, $1.name) }
    }

    /// Adds one measurement of the per-test overhead.
    public mutating func addOverhead(seconds: Double) {
        overheadPerTest = Self.fold(overheadPerTest, Entry(seconds: seconds, samples: 1))
    }

    /// Folds another file's entries in; merging two files gives the same result in either order.
    public mutating func merge(_ other: Timings) {
        for (name, entry) in other.tests {
            var merged = Self.fold(tests[name], entry)
            // Two files' durations have no order between them: the slowest of both are kept, so
            // either order gives the same file and a limit read from them errs on the long side.
            let recent = (tests[name]?.recent ?? []) + (entry.recent ?? [])
            merged.recent = recent.isEmpty ? nil : Array(recent.sorted().suffix(Self.recentWindow))
            merged.history =
                other.tests[name]?.history.map { Self.fold(tests[name]?.history, $0) } ?? tests[name]?.history
            // Either order gives the same file: the later-sorting of the two last outcomes.
            merged.history?.last = [tests[name]?.history?.last, other.tests[name]?.history?.last].compactMap { $0 }
                .max()
            tests[name] = merged
        }
        if let overhead = other.overheadPerTest { overheadPerTest = Self.fold(overheadPerTest, overhead) }
    }

    /// A running mean over the last `memory` samples (the history stays the old one's).
    private static func fold(_ old: Entry?, _ new: Entry) -> Entry {
        guard let old else { return new }
        let samples = old.samples + new.samples
        let mean = (old.seconds * Double(old.samples) + new.seconds * Double(new.samples)) / Double(samples)
        return Entry(seconds: mean, samples: min(samples, memory), recent: old.recent, history: old.history)
    }

    /// Running shares over the last `historyWindow` runs.
    private static func fold(_ old: History?, _ new: History) -> History {
        guard let old else { return new }
        let runs = Double(old.runs + new.runs)
        // A file that kept no commits knew flips only as flakiness within a run.
        let oldFlips = old.flips ?? (new.flips == nil ? nil : old.flaky)
        let newFlips = new.flips ?? (old.flips == nil ? nil : new.flaky)
        var flips: Double?
        if let oldFlips, let newFlips { flips = (oldFlips * Double(old.runs) + newFlips * Double(new.runs)) / runs }
        return History(
            runs: min(old.runs + new.runs, historyWindow),
            flaky: (old.flaky * Double(old.runs) + new.flaky * Double(new.runs)) / runs,
            failed: (old.failed * Double(old.runs) + new.failed * Double(new.runs)) / runs,
            flips: flips, last: new.last ?? old.last)
    }

    /// Reads a timings file; a missing file is an empty record, an unreadable one an error.
    public static func load(_ url: URL) throws(TestRunError) -> Timings {
        guard let data = FileManager.default.contents(atPath: url.path) else { return Timings() }
        return try decode(data, origin: url.path)
    }

    /// Reads the timings format; `origin` names the file or object in errors.
    public static func decode(_ data: Data, origin: String) throws(TestRunError) -> Timings {
        let timings: Timings
        do {
            timings = try JSONDecoder().decode(Timings.self, from: data)
        } catch {
            throw .unreadableTimings(path: origin, reason: JSONFile.reason(error, format: "timings"))
        }
        guard timings.version == formatVersion else {
            throw .unreadableTimings(
                path: origin, reason: "format version \(timings.version), expected \(formatVersion)")
        }
        guard
            timings.tests.values.allSatisfy({ entry in
                ([entry.seconds] + (entry.recent ?? [])).allSatisfy { $0.isFinite && $0 >= 0 } && entry.samples > 0
            })
        else {
            throw .unreadableTimings(path: origin, reason: "a duration is negative or not a number")
        }
        guard
            timings.tests.values.compactMap(\.history).allSatisfy({ history in
                history.runs > 0
                    && [history.flaky, history.failed, history.flips ?? 0].allSatisfy { (0...1).contains($0) }
            })
        else {
            throw .unreadableTimings(path: origin, reason: "a test's history has shares outside 0…1 or no runs")
        }
        return timings
    }

    /// The file's content: stable key order.
    public func encoded() throws(TestRunError) -> Data {
        try TestRunError.writing { () throws(FileError) in try JSONFile.encode(self, what: "timings") }
    }

    /// Writes the file whole, through a temporary file, so a reader never sees half of it.
    public func save(_ url: URL) throws(TestRunError) {
        let data = try encoded()
        try TestRunError.writing { () throws(FileError) in try JSONFile.write(data, to: url) }
    }
}
