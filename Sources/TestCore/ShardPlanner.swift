/// This machine's part of a suite split across CI machines: node `index` of `count` (1-based).
public struct Node: Hashable, Codable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public static let whole = Node(index: 1, count: 1)

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N`, as in `--node 2/8`.
    public init(parsing text: String) throws(TestRunError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
            count >= 1, count <= 10_000, (1...count).contains(index)
        else { throw .invalidNode(text) }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The node's name in file and run names: `node-2-of-4`.
    public var label: String { "node-\(index)-of-\(count)" }
}

/// A group of tests one process runs, with the time they are expected to take.
public struct Shard: Equatable, Codable, Sendable {
    public let index: Int
    public var tests: [TestID]
    public var expectedSeconds: Double

    public init(index: Int, tests: [TestID], expectedSeconds: Double) {
        self.index = index
        self.tests = tests
        self.expectedSeconds = expectedSeconds
    }
}

/// Splits a suite into shards balanced by recorded durations, longest first.
///
/// The split is deterministic: the same tests and the same timings give the same plan on every
/// machine, whatever its core count, because the suite is first split across nodes and only then,
/// on each node, across that node's shards.
public struct ShardPlanner: Sendable {
    public let timings: Timings
    /// Assumed for a test with no record when nothing else is known.
    public static let defaultEstimate = 1.0

    public init(timings: Timings) {
        self.timings = timings
    }

    /// Recorded duration, else the median of the recorded tests of the same suite, else of every
    /// recorded test, else a default; plus the recorded per-test overhead.
    public func estimates(for tests: [TestID]) -> [TestID: Double] {
        let known = timings.tests.map { (TestID($0.key, framework: .xctest).suite, $0.value.seconds) }
        let overall = Self.median(known.map(\.1)) ?? Self.defaultEstimate
        let bySuite = Dictionary(grouping: known, by: \.0).mapValues { Self.median($0.map(\.1)) ?? overall }
        let overhead = timings.overheadPerTest?.seconds ?? 0
        return Dictionary(
            uniqueKeysWithValues: tests.map { ($0, (timings[$0] ?? bySuite[$0.suite] ?? overall) + overhead) })
    }

    /// This node's shards (at most `shards`, none empty), each listing its tests in name order.
    public func plan(_ tests: [TestID], shards: Int, node: Node = .whole) -> [Shard] {
        plan(tests, estimates: estimates(for: tests), shards: shards, node: node)
    }

    /// The same, with the estimates already at hand (they must cover every test).
    public func plan(_ tests: [TestID], estimates: [TestID: Double], shards: Int, node: Node = .whole) -> [Shard] {
        let tests = tests.sorted()
        let nodeTests: [TestID]
        if node.count > 1 {
            let parts = Self.balance(units(tests, estimates: estimates, bins: node.count), into: node.count)
            nodeTests = parts[node.index - 1].flatMap(\.tests)
        } else {
            nodeTests = tests
        }
        let bins = Self.balance(units(nodeTests, estimates: estimates, bins: shards), into: max(1, shards))
        return bins.filter { !$0.isEmpty }.enumerated().map { index, units in
            Shard(
                index: index + 1, tests: units.flatMap(\.tests).sorted(),
                expectedSeconds: units.reduce(0) { $0 + $1.seconds })
        }
    }

    /// `count` parts of `tests` for CI machines that each run theirs in one go (xcodebuild's
    /// `-only-testing`), balanced by the estimates, the tests of one `group` kept in one part
    /// (each test alone, or each class whole for xcodebuild's own parallel testing). Every test is
    /// in exactly one part; a part may be empty when there are fewer groups than parts.
    public func partition(_ tests: [TestID], into count: Int, keepingTogether group: (TestID) -> String)
        -> [(tests: [TestID], seconds: Double)]
    {
        let estimates = estimates(for: tests)
        let units = Dictionary(grouping: Set(tests), by: group).map { name, members in
            Unit(name: name, tests: members.sorted(), seconds: members.reduce(0) { $0 + estimates[$1]! })
        }
        return Self.balance(units, into: max(1, count)).map { part in
            (part.flatMap(\.tests).sorted(), part.reduce(0) { $0 + $1.seconds })
        }
    }

    /// What is placed whole: a single test, or a suite of short tests kept together (so its
    /// per-suite set-up runs once) when the suite is small against one bin's share of the work.
    struct Unit {
        let name: String
        let tests: [TestID]
        let seconds: Double
    }

    func units(_ tests: [TestID], estimates: [TestID: Double], bins: Int) -> [Unit] {
        let total = tests.reduce(0) { $0 + estimates[$1]! }
        let smallSuite = total / Double(max(1, bins)) / 8
        var units: [Unit] = []
        for (suite, members) in Dictionary(grouping: tests, by: { "\($0.framework.rawValue) \($0.suite)" }) {
            let seconds = members.reduce(0) { $0 + estimates[$1]! }
            if members.count > 1 && seconds <= smallSuite {
                units.append(Unit(name: suite, tests: members, seconds: seconds))
            } else {
                units += members.map {
                    Unit(name: "\($0.framework.rawValue) \($0.name)", tests: [$0], seconds: estimates[$0]!)
                }
            }
        }
        return units
    }

    /// Longest processing time first: each unit, longest first (ties by name), goes to the least
    /// loaded bin (ties to the lowest index).
    static func balance(_ units: [Unit], into count: Int) -> [[Unit]] {
        var bins = Array(repeating: [Unit](), count: count)
        var loads = Array(repeating: 0.0, count: count)
        for unit in units.sorted(by: { ($0.seconds, $1.name) > ($1.seconds, $0.name) }) {
            let target = loads.indices.min { (loads[$0], $0) < (loads[$1], $1) }!
            bins[target].append(unit)
            loads[target] += unit.seconds
        }
        return bins
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
