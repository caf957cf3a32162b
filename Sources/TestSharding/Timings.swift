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

    public init() {}

    public subscript(test: TestID) -> Double? { tests[test.name]?.seconds }

    /// Adds one measurement.
    public mutating func record(_ test: TestID, seconds: Double) {
        fold(test.name, Entry(seconds: seconds, samples: 1))
    }

    /// Folds another file's entries in; merging two files gives the same result in either order.
    public mutating func merge(_ other: Timings) {
        for (name, entry) in other.tests.sorted(by: { $0.key < $1.key }) { fold(name, entry) }
    }

    private mutating func fold(_ name: String, _ entry: Entry) {
        guard let old = tests[name] else {
            tests[name] = entry
            return
        }
        let samples = old.samples + entry.samples
        let mean = (old.seconds * Double(old.samples) + entry.seconds * Double(entry.samples)) / Double(samples)
        tests[name] = Entry(seconds: mean, samples: min(samples, Timings.memory))
    }

    /// Reads a timings file; a missing file is an empty record, an unreadable one an error.
    public static func load(_ url: URL) throws(TestRunError) -> Timings {
        guard FileManager.default.fileExists(atPath: url.path) else { return Timings() }
        do {
            let timings = try JSONDecoder().decode(Timings.self, from: Data(contentsOf: url))
            guard timings.version == formatVersion else {
                throw TestRunError.unreadableTimings(path: url.path, reason: "format version \(timings.version), expected \(formatVersion)")
            }
            guard timings.tests.values.allSatisfy({ $0.seconds.isFinite && $0.seconds >= 0 && $0.samples > 0 }) else {
                throw TestRunError.unreadableTimings(path: url.path, reason: "a duration is negative or not a number")
            }
            return timings
        } catch let error as TestRunError {
            throw error
        } catch {
            throw .unreadableTimings(path: url.path, reason: Timings.reason(error))
        }
    }

    /// Writes the file whole, through a temporary file, so a reader never sees half of it.
    public func save(_ url: URL) throws(TestRunError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    private static func reason(_ error: Error) -> String {
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
