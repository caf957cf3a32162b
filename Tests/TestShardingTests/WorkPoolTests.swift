import TestSupport
import XCTest

@testable import TestCore
@testable import TestSharding

final class WorkPoolTests: XCTestCase {
    private func shard(
        _ index: Int, _ durations: [Double], estimates: inout [TestID: Double], suite: String? = nil
    ) -> Shard {
        let tests = durations.enumerated().map { offset, seconds in
            let test = TestID("M.\(suite ?? "S\(index)")/t\(index)_\(offset)", framework: .xctest)
            estimates[test] = seconds
            return test
        }
        return Shard(index: index, tests: tests, expectedSeconds: durations.reduce(0, +))
    }

    func testAWorkerGetsMostOfItsOwnShardFirstLongestFirst() async {
        var estimates: [TestID: Double] = [:]
        let one = shard(1, [0.1, 3, 0.2, 2, 0.3, 1, 0.4, 0.5], estimates: &estimates)
        let two = shard(2, [7.5], estimates: &estimates)
        let pool = WorkPool(shards: [one, two], estimates: estimates, unknown: [])
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
        let pool = WorkPool(shards: [one], estimates: estimates, unknown: Set(estimates.keys))
        let all = await pool.next(for: 1)
        XCTAssertEqual(all?.map { estimates[$0]! }, [3, 2, 0.2, 0.1])
    }

    func testAFreeWorkerTakesTheShortEndOfTheBusiestShard() async {
        var estimates: [TestID: Double] = [:]
        let busy = shard(1, [5, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5], estimates: &estimates)
        let idle = shard(2, [0.1], estimates: &estimates)
        let pool = WorkPool(shards: [busy, idle], estimates: estimates, unknown: [])
        let first = await pool.next(for: 1)  // all recorded: 90 % of 11 s
        XCTAssertEqual(first?.map { estimates[$0]! }, [5, 1, 1, 1, 1, 0.5, 0.5])
        let own = await pool.next(for: 2)
        XCTAssertEqual(own?.map { estimates[$0]! }, [0.1])
        // 1 s is left in shard 1; half of it, from the short end.
        let stolen = await pool.next(for: 2) ?? []
        XCTAssertEqual(stolen.map { estimates[$0]! }, [0.5])
        let rest = await pool.next(for: 1) ?? []
        XCTAssertEqual(rest.map { estimates[$0]! }, [0.5], "its own worker takes what is left")
    }

    func testUnrecordedTestsGoOutInBatchesOfAnEighthOfTheWorkLeftPerWorker() async {
        var estimates: [TestID: Double] = [:]
        let one = shard(1, [9, 8] + Array(repeating: 1, count: 30), estimates: &estimates)
        let two = shard(2, Array(repeating: 1, count: 40), estimates: &estimates)
        let recorded = Set(one.tests.prefix(2))
        let pool = WorkPool(
            shards: [one, two], estimates: estimates, unknown: Set(estimates.keys).subtracting(recorded))
        // 87 s in all: a batch holding a guess is worth at most 87 / (2 × 8) ≈ 5.4 s. Recorded tests
        // alone are not capped.
        let first = await pool.next(for: 1) ?? []
        XCTAssertEqual(first.map { estimates[$0]! }, [9, 8], "the recorded tests, then no guess past the cap")
        let second = await pool.next(for: 1) ?? []
        XCTAssertEqual(second.count, 4, "(87 - 17) / 16 ≈ 4.4 s of guesses")
        let other = await pool.next(for: 2) ?? []
        XCTAssertEqual(other.count, 4)
        XCTAssertTrue(other.allSatisfy { $0.suite == "M.S2" })
    }

    func testTheRunsDurationsReviseTheGuessesAndTheOrder() async {
        var estimates: [TestID: Double] = [:]
        let fast = shard(1, Array(repeating: 1, count: 200), estimates: &estimates, suite: "Fast")
        let slow = shard(2, Array(repeating: 1, count: 20), estimates: &estimates, suite: "Slow")
        let both = Shard(index: 1, tests: fast.tests + slow.tests, expectedSeconds: 220)
        let idle = shard(2, [1], estimates: &estimates, suite: "Idle")
        let pool = WorkPool(shards: [both, idle], estimates: estimates, unknown: Set(estimates.keys))
        let first = await pool.next(for: 1) ?? []
        XCTAssertEqual(first.count, 13, "221 s guessed: batches of 221 / 16 ≈ 13.8 s")
        // The run finds Fast's tests take 10 ms, and one of Slow's 5 s: Slow goes first, and the
        // batches are sized by what is now expected.
        let firstSlow = slow.tests[0]
        var attempts = first.map { TestAttempt(test: $0, status: .passed, seconds: 0.01) }
        attempts.append(TestAttempt(test: firstSlow, status: .passed, seconds: 5))
        await pool.finished(attempts)
        let next = await pool.next(for: 1) ?? []
        XCTAssertTrue(next.first?.suite == "M.Slow", "\(next)")
        // Work left ≈ 19 × 5 + 187 × 0.01 ≈ 97 s: a cap of about 6 s, one slow test and a few fast.
        XCTAssertEqual(next.filter { $0.suite == "M.Slow" }.count, 1, "\(next)")
    }

    func testFastFirstTestsDoNotMakeTheRestGoOutWhole() async {
        var estimates: [TestID: Double] = [:]
        let one = shard(1, Array(repeating: 0.5, count: 40), estimates: &estimates)
        let two = shard(2, Array(repeating: 0.5, count: 40), estimates: &estimates)
        let pool = WorkPool(shards: [one, two], estimates: estimates, unknown: Set(estimates.keys))
        let first = await pool.next(for: 1) ?? []
        XCTAssertEqual(first.count, 5, "80 tests guessed at 0.5 s: batches of 40 / 16 = 2.5 s")
        // They took a millisecond each: the rest is now guessed at 1 ms, 75 ms in all, less than a
        // batch is ever worth. Still no more than ⌈75 / 16⌉ of the unrecorded tests go at once: the
        // others may not be as fast.
        let attempts = first.map { TestAttempt(test: $0, status: .passed, seconds: 0.001) }
        await pool.finished(attempts)
        let next = await pool.next(for: 1) ?? []
        XCTAssertEqual(next.count, 5)
        var handed = first.count + next.count
        while let batch = await pool.next(for: 2) {
            XCTAssertLessThanOrEqual(batch.count, 5)
            handed += batch.count
        }
        XCTAssertEqual(handed, 80)
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
            let unknown = Set(estimates.keys.filter { _ in random.next() % 2 == 0 })
            let pool = WorkPool(shards: shards, estimates: estimates, unknown: unknown)
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
