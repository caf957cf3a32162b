import TestCore

/// One CI machine's part of an Xcode test run: the `-only-testing:` arguments that give
/// `xcodebuild test-without-building` its tests. Its JSON form is documented in docs/json.md.
public struct XcodeNode: Codable, Sendable, Equatable {
    /// `I/N`.
    public var node: String
    public var index: Int
    public var count: Int
    public var tests: Int
    public var expectedSeconds: Double
    /// `-only-testing:Target/Class/method()` each, or `-only-testing:Target/Class` with `--by class`.
    public var arguments: [String]
    /// The node's own `.xctestrun` (`--xctestrun`): the given one with `OnlyTestIdentifiers` set.
    public var xctestrun: String?
    /// The node's tests.
    public var members: [XcodeTestName] = []

    enum CodingKeys: String, CodingKey {
        case node, index, count, tests, expectedSeconds, arguments, xctestrun
    }
}

extension XcodeNode {
    /// The nodes of `tests`, balanced by the durations `timings` recorded (under the tests' keys,
    /// whichever source recorded them): every test in exactly one node.
    public static func plan(_ tests: [XcodeTestName], timings: Timings, nodes: Int, by split: XcodeSplit) -> [XcodeNode]
    {
        let named = Dictionary(tests.map { ($0.testID, $0) }, uniquingKeysWith: { first, _ in first })
        let parts = ShardPlanner(timings: timings).partition(Array(named.keys), into: nodes) { test in
            split == .class ? (named[test]?.suiteIdentifier ?? test.name) : test.name
        }
        return Self.nodes(parts.map { part in (part.tests.compactMap { named[$0] }, part.seconds) }, by: split)
    }

    /// The nodes of a split already made (`parts`, node by node: its tests and their expected
    /// seconds), such as a shared run's stored plan.
    public static func nodes(_ parts: [(tests: [XcodeTestName], seconds: Double)], by split: XcodeSplit)
        -> [XcodeNode]
    {
        parts.enumerated().map { index, part in
            let names = part.tests
            let arguments =
                split == .class
                ? Set(names.map { $0.suiteIdentifier ?? $0.key }).sorted()
                : names.map { $0.identifier ?? $0.key }
            return XcodeNode(
                node: "\(index + 1)/\(parts.count)", index: index + 1, count: parts.count, tests: names.count,
                expectedSeconds: (part.seconds * 100).rounded() / 100,
                arguments: arguments.map { "-only-testing:" + $0 }, members: names)
        }
    }
}
