import Foundation
import TestCore

/// One attempt of one test, as an Xcode output records it.
public struct XcodeResult: Sendable, Equatable {
    public var name: XcodeTestName
    public var status: TestStatus
    public var seconds: Double
    public var message: String?
    /// 1 for the first run of the test, 2 for its first repetition or its run after a restart.
    public var attempt: Int

    public init(name: XcodeTestName, status: TestStatus, seconds: Double, message: String? = nil, attempt: Int = 1) {
        (self.name, self.status, self.seconds, self.message, self.attempt) = (name, status, seconds, message, attempt)
    }
}

/// What one Xcode test run recorded: every attempt of every test, in the order read.
public struct XcodeRun: Sendable, Equatable {
    /// The file it was read from, for messages.
    public var origin: String
    public var results: [XcodeResult]
    /// What the reader could not use and said so: one line each.
    public var notes: [String] = []
    /// The device the tests ran on, where the output says (an xcresult's `devices`): its name and
    /// its OS's version.
    public var device: (name: String, os: String)?

    public init(origin: String, results: [XcodeResult], notes: [String] = [], device: (name: String, os: String)? = nil)
    {
        (self.origin, self.results, self.notes, self.device) = (origin, results, notes, device)
    }

    public static func == (lhs: XcodeRun, rhs: XcodeRun) -> Bool {
        (lhs.origin, lhs.results, lhs.notes) == (rhs.origin, rhs.results, rhs.notes)
            && lhs.device?.name == rhs.device?.name && lhs.device?.os == rhs.device?.os
    }

    /// The tests, each once, by key.
    public var tests: [XcodeTestName] {
        var seen: Set<String> = []
        return results.map(\.name).filter { seen.insert($0.key).inserted }.sorted()
    }

    /// The run with each target-less name given the target of the one known key that ends with it.
    public func resolved(among keys: Set<String>) -> XcodeRun {
        var run = self
        for index in run.results.indices { run.results[index].name = run.results[index].name.resolved(among: keys) }
        return run
    }

    /// The report `pipeline test` makes of a run: one record per test, a failure followed by a
    /// passing repetition flaky, the seconds the tests' own (an Xcode output has no wall time).
    public func report(flakyFails: Bool) -> TestReport {
        let ids = Dictionary(tests.map { ($0.key, $0.testID) }, uniquingKeysWith: { first, _ in first })
        let attempts = results.map { result in
            TestAttempt(
                test: ids[result.name.key] ?? result.name.testID, status: result.status, seconds: result.seconds,
                message: result.message, attempt: result.attempt)
        }
        let shard = Shard(index: 1, tests: ids.values.sorted(), expectedSeconds: 0)
        let seconds = results.reduce(0) { $0 + $1.seconds }
        return TestReport(shards: [shard], attempts: attempts, seconds: seconds, node: .whole, flakyFails: flakyFails)
    }
}

/// Numbers the attempts of each test in reading order: its first result is attempt 1.
struct AttemptCounter {
    private var counts: [String: Int] = [:]

    mutating func next(_ name: XcodeTestName) -> Int {
        counts[name.key, default: 0] += 1
        return counts[name.key]!
    }
}
