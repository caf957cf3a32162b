import Foundation

/// Test durations recorded on earlier runs: the input that balances shards.
///
/// The file is JSON, `{"version": 1, "tests": {"<test name>": {"seconds": 1.25, "samples": 3}}}`.
/// Each run folds its measurements in as a running mean over the last few samples, so a file
/// shared by several machines (or merged from several with `merge`) settles on typical times.
public struct Timings: Codable, Equatable, Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        public var seconds: Double
        public var samples: Int
    }

    /// How many samples the running mean remembers, so a test that got slower is noticed soon.
    static let memory = 5
    public static let formatVersion = 1

    public var version = Timings.formatVersion
    public var tests: [String: Entry] = [:]
    /// Time a test costs beyond its own duration (process start-up, the harness's per-test work),
    /// measured on earlier runs: small, but it decides the balance of suites of many tiny tests.
    public var overheadPerTest: Entry?

    public init() {}

    public subscript(test: TestID) -> Double? { tests[test.name]?.seconds }

    /// Adds one measurement.
    public mutating func record(_ test: TestID, seconds: Double) {
        tests[test.name] = Self.fold(tests[test.name], Entry(seconds: seconds, samples: 1))
    }

    /// Adds a run's measurements: each test that ran to an end (passed, failed or flaky), and the
    /// per-test overhead.
    public mutating func record(_ report: TestReport) {
        for test in report.tests where [.passed, .failed, .flaky].contains(test.status) {
            record(TestID(test.name, framework: test.framework), seconds: test.seconds)
        }
        recordOverhead(seconds: report.summary.overheadPerTest)
    }

    /// Adds one measurement of the per-test overhead.
    public mutating func recordOverhead(seconds: Double) {
        overheadPerTest = Self.fold(overheadPerTest, Entry(seconds: seconds, samples: 1))
    }

    /// Folds another file's entries in; merging two files gives the same result in either order.
    public mutating func merge(_ other: Timings) {
        for (name, entry) in other.tests { tests[name] = Self.fold(tests[name], entry) }
        if let overhead = other.overheadPerTest { overheadPerTest = Self.fold(overheadPerTest, overhead) }
    }

    /// A running mean over the last `memory` samples.
    private static func fold(_ old: Entry?, _ new: Entry) -> Entry {
        guard let old else { return new }
        let samples = old.samples + new.samples
        let mean = (old.seconds * Double(old.samples) + new.seconds * Double(new.samples)) / Double(samples)
        return Entry(seconds: mean, samples: min(samples, memory))
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
            throw .unreadableTimings(path: origin, reason: Timings.reason(error))
        }
        guard timings.version == formatVersion else {
            throw .unreadableTimings(path: origin, reason: "format version \(timings.version), expected \(formatVersion)")
        }
        guard timings.tests.values.allSatisfy({ $0.seconds.isFinite && $0.seconds >= 0 && $0.samples > 0 }) else {
            throw .unreadableTimings(path: origin, reason: "a duration is negative or not a number")
        }
        return timings
    }

    /// The file's content: stable key order.
    public func encoded() throws(TestRunError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw .cannotWrite(path: "timings", reason: error.localizedDescription)
        }
    }

    /// Writes the file whole, through a temporary file, so a reader never sees half of it.
    public func save(_ url: URL) throws(TestRunError) {
        let data = try encoded()
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON of the timings format" : "\(path): \(context.debugDescription)"
        default:
            return error.localizedDescription
        }
    }
}
