import Foundation
import TestCore

/// A suite cut into batches for a shared queue: longest tests first, batches shrinking toward the
/// end so the nodes finish together (guided self-scheduling: each batch is close to the remaining
/// work divided by twice the nodes, or one test longer than that, and never less than `minimumSeconds`).
public struct QueuePlan: Codable, Sendable, Equatable {
    /// A batch is planned like a shard: its tests and their expected time.
    public typealias Batch = Shard

    public var version = 1
    public var batches: [Batch]
    /// Every test of the suite, sorted: nodes of one run must list the same suite.
    public var suite: [String]
    /// A static split: batch I is node I+1's whole part, which it files itself (`pipeline import
    /// --node I/N --queue` after an Xcode run); nil for batches the nodes claim in turn.
    public var perNode: Bool?

    /// A static split kept as the run's plan: one batch per node, in order, each node's tests and
    /// their expected seconds.
    public init(nodes parts: [(tests: [TestID], expectedSeconds: Double)]) {
        batches = parts.enumerated().map { Batch(index: $0, tests: $1.tests, expectedSeconds: $1.expectedSeconds) }
        suite = parts.flatMap(\.tests).map(\.name).sorted()
        perNode = true
    }

    public init(tests: [TestID], estimates: [TestID: Double], nodes: Int, minimumSeconds: Double = 0.5) {
        let ordered = tests.sorted { (estimates[$0] ?? 0, $1) > (estimates[$1] ?? 0, $0) }
        var remaining = ordered.reduce(0) { $0 + (estimates[$1] ?? 0) }
        var batches: [Batch] = []
        var current: [TestID] = []
        var seconds = 0.0
        var target = max(minimumSeconds, remaining / Double(2 * max(1, nodes)))
        func close() {
            batches.append(Batch(index: batches.count, tests: current, expectedSeconds: seconds))
            current = []
            seconds = 0
            target = max(minimumSeconds, remaining / Double(2 * max(1, nodes)))
        }
        for test in ordered {
            let estimate = estimates[test] ?? 0
            // A test that would overshoot the target by more than the batch falls short of it starts
            // the next batch: a slow node that claims an early batch is held up by little more than
            // one target (or the longest test).
            if !current.isEmpty && seconds + estimate - target > target - seconds { close() }
            current.append(test)
            seconds += estimate
            remaining -= estimate
            if seconds >= target { close() }
        }
        if !current.isEmpty { batches.append(Batch(index: batches.count, tests: current, expectedSeconds: seconds)) }
        self.batches = batches
        suite = tests.map(\.name).sorted()
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
