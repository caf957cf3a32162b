import TestSupport
import XCTest

@testable import TestSharding

final class WorkPoolTests: XCTestCase {
    private func shard(_ index: Int, _ durations: [Double], estimates: inout [TestID: Double]) -> Shard {
        let tests = durations.enumerated().map { offset, seconds in
            let test = TestID("M.S\(index)/t\(offset)", framework: .xctest)
            estimates[test] = seconds
            return test
        }
        return Shard(index: index, tests: tests, expectedSeconds: durations.reduce(0, +))
    }

    func testAWorkerGetsMostOfItsOwnShardFirstLongestFirst() async {
        var estimates: [TestID: Double] = [:]
        let one = shard(1, [0.1, 3, 0.2, 2, 0.3, 1, 0.4, 0.5], estimates: &estimates)
        let two = shard(2, [7.5], estimates: &estimates)
        let pool = WorkPool(shards: [one, two], estimates: estimates, knownShare: 1)
        let first = await pool.next(for: 1) ?? []
        // All durations known: about 90% of the 7.5 s in the first batch, longest first.
        XCTAssertEqual(first.map { estimates[$0]! }, [3, 2, 1, 0.5, 0.4])
        let half = await pool.next(for: 1) ?? []
        XCTAssertEqual(half.map { estimates[$0]! }, [0.3], "then half of what is left")
        let rest = await pool.next(for: 1) ?? []
        XCTAssertEqual(rest.map { estimates[$0]! }, [0.2, 0.1], "a small rest goes whole")
        let stolen = await pool.next(for: 1)
        XCTAssertEqual(stolen?.map { estimates[$0]! }, [7.5], "then it helps shard 2")
        let none = await pool.next(for: 1)
        XCTAssertNil(none)
    }

    func testALoneWorkerGetsEverythingAtOnce() async {
        var estimates: [TestID: Double] = [:]
        let one = shard(1, [0.1, 3, 0.2, 2], estimates: &estimates)
        let pool = WorkPool(shards: [one], estimates: estimates, knownShare: 0)
        let all = await pool.next(for: 1)
        XCTAssertEqual(all?.map { estimates[$0]! }, [3, 2, 0.2, 0.1])
    }

    func testAFreeWorkerTakesTheShortEndOfTheBusiestShard() async {
        var estimates: [TestID: Double] = [:]
        let busy = shard(1, [5, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5], estimates: &estimates)
        let idle = shard(2, [0.1], estimates: &estimates)
        let pool = WorkPool(shards: [busy, idle], estimates: estimates, knownShare: 0)
        let first = await pool.next(for: 1)  // nothing recorded: half of 11 s
        XCTAssertEqual(first?.map { estimates[$0]! }, [5, 1])
        let own = await pool.next(for: 2)
        XCTAssertEqual(own?.map { estimates[$0]! }, [0.1])
        // 5 s are left in shard 1; half of it, from the short end.
        let stolen = await pool.next(for: 2) ?? []
        XCTAssertEqual(stolen.map { estimates[$0]! }, [0.5, 0.5, 0.5, 0.5, 1])
        let half = await pool.next(for: 1) ?? []
        XCTAssertEqual(half.map { estimates[$0]! }, [1], "its own worker takes half of the 2 s left")
    }

    func testEveryTestIsHandedOutExactlyOnceWhateverTheOrderOfRequests() async {
        for seed in UInt64(1)...20 {
            var random = SplitMix64(seed: seed)
            var estimates: [TestID: Double] = [:]
            let shards = (1...4).map { index in
                shard(
                    index, (0..<Int(random.next() % 40)).map { _ in Double(random.next() % 3000) / 1000 },
                    estimates: &estimates)
            }
            let pool = WorkPool(shards: shards, estimates: estimates, knownShare: Double(random.next() % 100) / 100)
            var handed: [TestID] = []
            var active = Set(1...4)
            while let worker = active.randomElement(using: &random) {
                if let batch = await pool.next(for: worker) {
                    XCTAssertFalse(batch.isEmpty)
                    handed += batch
                } else {
                    active.remove(worker)
                }
            }
            XCTAssertEqual(handed.count, estimates.count, "seed \(seed)")
            XCTAssertEqual(Set(handed), Set(estimates.keys), "seed \(seed)")
        }
    }
}
