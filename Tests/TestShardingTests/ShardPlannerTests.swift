import TestSupport
import XCTest

@testable import TestCore
@testable import TestSharding

final class ShardPlannerTests: XCTestCase {
    private func tests(_ names: [String]) -> [TestID] { names.map { TestID($0, framework: .xctest) } }

    private func timings(_ entries: [String: Double]) -> Timings {
        var timings = Timings()
        for (name, seconds) in entries { timings.add(TestID(name, framework: .xctest), seconds: seconds) }
        return timings
    }

    func testLongestFirstBalancesRecordedDurations() {
        let durations = ["M.A/t1": 8.0, "M.B/t2": 7.0, "M.C/t3": 6.0, "M.D/t4": 5.0, "M.E/t5": 4.0]
        let plan = ShardPlanner(timings: timings(durations)).plan(tests(Array(durations.keys)), shards: 2)
        // LPT: 8 → 1, 7 → 2, 6 → 2 (13), 5 → 1 (13), 4 → 1 (17)... loads 17 and 13 — the optimum is 15/15,
        // LPT guarantees ≤ 4/3 of it.
        XCTAssertEqual(plan.map(\.expectedSeconds).sorted(), [13, 17])
        XCTAssertEqual(Set(plan.flatMap(\.tests)), Set(tests(Array(durations.keys))))
        XCTAssertEqual(plan[0].tests.map(\.name), ["M.A/t1", "M.D/t4", "M.E/t5"])
    }

    func testLongTestGetsAShardOfItsOwn() {
        var durations = ["M.Slow/long": 30.0]
        for index in 0..<20 { durations["M.Quick\(index)/t"] = 1 }
        let plan = ShardPlanner(timings: timings(durations)).plan(tests(Array(durations.keys)), shards: 2)
        XCTAssertEqual(plan.first { $0.tests.contains(TestID("M.Slow/long", framework: .xctest)) }?.tests.count, 1)
        XCTAssertEqual(plan.map(\.expectedSeconds).max(), 30)
    }

    func testUnknownTestsAreEstimatedFromTheirSuiteThenTheWholeRecord() {
        let planner = ShardPlanner(timings: timings(["M.A/known1": 2, "M.A/known2": 4, "M.B/other": 10]))
        let estimates = planner.estimates(for: tests(["M.A/known1", "M.A/new", "M.C/new", "M.B/other"]))
        XCTAssertEqual(estimates[TestID("M.A/new", framework: .xctest)], 3)  // median of its suite
        XCTAssertEqual(estimates[TestID("M.C/new", framework: .xctest)], 4)  // median of all recorded
        XCTAssertEqual(
            ShardPlanner(timings: Timings()).estimates(for: tests(["M.A/t"])).values.first,
            ShardPlanner.defaultEstimate)
    }

    func testSmallSuitesStayTogether() {
        var durations: [String: Double] = [:]
        for index in 0..<10 { durations["M.Tiny/t\(index)"] = 0.001 }
        for index in 0..<10 { durations["M.Big\(index)/t"] = 5 }
        let plan = ShardPlanner(timings: timings(durations)).plan(tests(Array(durations.keys)), shards: 4)
        let holding = plan.filter { $0.tests.contains { $0.suite == "M.Tiny" } }
        XCTAssertEqual(holding.count, 1, "a suite of tiny tests is one unit")
    }

    func testNodesSplitOnePlanDisjointlyWhateverTheLocalShardCount() {
        var generator = SplitMix64(seed: 7)
        var durations: [String: Double] = [:]
        for index in 0..<300 {
            durations["Mod.S\(index % 23)/test_\(index)_テスト"] = Double(generator.next() % 5000) / 1000
        }
        let all = tests(Array(durations.keys))
        let planner = ShardPlanner(timings: timings(durations))
        for nodes in 1...6 {
            var seen: [TestID] = []
            var loads: [Double] = []
            for index in 1...nodes {
                let node = Node(index: index, count: nodes)
                // Another machine with another core count and another listing order: same part.
                let here = planner.plan(all, shards: 2, node: node).flatMap(\.tests).sorted()
                let there = planner.plan(all.shuffled(), shards: 7, node: node).flatMap(\.tests).sorted()
                XCTAssertEqual(here, there, "node \(node) must not depend on shards or order")
                seen += here
                loads.append(here.reduce(0) { $0 + durations[$1.name]! })
            }
            XCTAssertEqual(seen.count, all.count, "\(nodes) nodes: each test exactly once")
            XCTAssertEqual(Set(seen), Set(all))
            let mean = loads.reduce(0, +) / Double(nodes)
            XCTAssertLessThan(loads.max()! / mean, 1.1, "\(nodes) nodes are balanced: \(loads)")
        }
    }

    func testNodeParsing() throws {
        XCTAssertEqual(try Node(parsing: "2/8"), Node(index: 2, count: 8))
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""] {
            XCTAssertThrowsError(try Node(parsing: bad), bad) { error in
                XCTAssertEqual(error as? TestRunError, .invalidNode(bad))
            }
        }
    }

    func testSelectorListsLongerThanOneArgumentAreSplit() {
        let many = (0..<5000).map {
            TestID(
                "LongModuleName.SomeFairlyLongTestCaseName\($0 % 50)/test_\($0)_with_a_long_descriptive_name",
                framework: .xctest)
        }
        var rest = many[...]
        var chunks: [[TestID]] = []
        while !rest.isEmpty {
            let chunk = ShardWorker.chunk(Array(rest), framework: .xctest, limit: 120_000)
            XCTAssertLessThanOrEqual(chunk.map(\.name).joined(separator: ",").utf8.count, 120_000)
            chunks.append(chunk)
            rest = rest.dropFirst(chunk.count)
        }
        XCTAssertGreaterThan(chunks.count, 1)
        XCTAssertEqual(chunks.flatMap { $0 }, many)
        // A single selector longer than the limit still runs, alone.
        let huge = TestID("M.C/" + String(repeating: "x", count: 200), framework: .xctest)
        XCTAssertEqual(ShardWorker.chunk([huge, huge], framework: .xctest, limit: 100), [huge])
    }
}
