import TestCore

/// Hands the planned shards' tests to the shard workers in batches, so that a shard which finishes
/// early helps the others instead of waiting: recorded durations vary from run to run, and tests
/// with no record are only guessed.
///
/// A worker first gets most of its own shard, longest tests first, in one batch (one process per
/// test library). The rest, the shortest tests, stays in the pool: the share left grows with the
/// share of tests whose duration is only estimated. A worker with nothing left of its own takes
/// half of the remaining time of the shard with the most left, from its short end. Below a small
/// amount of work a queue goes whole, so a batch is never worth less than starting its process.
///
/// Tests with no recorded duration (a first run) go out in small batches (guided self-scheduling):
/// a batch holding one holds at most an eighth of the unrecorded tests left per worker, and is worth
/// at most an eighth of the work left per worker, so a test that turns out long holds back little
/// else in its process while the other workers take the rest. The count matters because the
/// guesses can be wrong the other way too: the first tests seen may be the fast ones. The guesses
/// are revised as the run's tests finish, to the mean of their suite's tests seen so far, else of
/// every unrecorded test seen, which puts the slow suites first. The batches shrink as the work
/// does, so the processes started number about 8 × workers × (1 + ln(unrecorded tests / (8 ×
/// workers))): some 80 for 845 tests on 2 workers, a second or two at 25 ms each.
actor WorkPool {
    private var queues: [Int: [TestID]]
    private var remaining: [Int: Double]
    private var started: Set<Int> = []
    private var estimates: [TestID: Double]
    private let tailShare: Double
    /// Tests with no recorded duration; the run's observations revise the estimates of those not
    /// handed out yet.
    private let unknown: Set<TestID>
    /// How many of `unknown` are not handed out yet.
    private var unknownLeft: Int
    private var seen: [String: Mean] = [:]
    private var seenAll = Mean()
    private let workers: Int
    /// Work below which a queue is handed out whole (a process costs ≈15 ms to start).
    static let smallestBatch = 0.25
    /// A batch holding an unrecorded test holds at most the unrecorded tests left / (workers × this),
    /// and is worth at most the work left / (workers × this).
    static let unknownDivisor = 8.0

    struct Mean {
        var sum = 0.0
        var count = 0
        var value: Double? { count == 0 ? nil : sum / Double(count) }
        mutating func add(_ value: Double) {
            sum += value
            count += 1
        }
    }

    /// `unknown`: the tests whose duration was not recorded (their estimates are guesses).
    init(shards: [Shard], estimates: [TestID: Double], unknown: Set<TestID>) {
        self.estimates = estimates
        self.unknown = unknown
        workers = shards.count
        var queues: [Int: [TestID]] = [:]
        var remaining: [Int: Double] = [:]
        for shard in shards {
            (queues[shard.index], remaining[shard.index]) = Self.ordered(shard.tests, estimates)
        }
        self.queues = queues
        self.remaining = remaining
        let tests = shards.flatMap(\.tests)
        unknownLeft = tests.filter(unknown.contains).count
        let knownShare = tests.isEmpty ? 1 : 1 - Double(unknownLeft) / Double(tests.count)
        // A lone worker has no one to share with: it gets everything at once.
        tailShare = shards.count < 2 ? 0 : 0.5 - 0.4 * knownShare
    }

    /// The next tests for the worker of `shard`, or nil when every queue is empty.
    func next(for shard: Int) -> [TestID]? {
        if let own = queues[shard], !own.isEmpty {
            let first = started.insert(shard).inserted
            let share = first ? 1 - tailShare : 0.5
            return take(from: shard, seconds: remaining[shard, default: 0] * share, fromFront: true)
        }
        guard
            let victim = remaining.filter({ !(queues[$0.key]?.isEmpty ?? true) })
                .max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key
        else { return nil }
        return take(from: victim, seconds: remaining[victim, default: 0] / 2, fromFront: false)
    }

    /// What a worker's processes did: each test's duration. The unrecorded tests still queued are
    /// estimated anew from them.
    func finished(_ attempts: [TestAttempt]) {
        var learned = false
        for attempt in attempts where unknown.contains(attempt.test) {
            seen[attempt.test.suite, default: Mean()].add(attempt.seconds)
            seenAll.add(attempt.seconds)
            learned = true
        }
        guard learned else { return }
        for (shard, queue) in queues where queue.contains(where: unknown.contains) {
            for test in queue where unknown.contains(test) {
                estimates[test] = seen[test.suite]?.value ?? seenAll.value ?? estimates[test]
            }
            (queues[shard], remaining[shard]) = Self.ordered(queue, estimates)
        }
    }

    /// A queue sorted longest first (ties by name), and its total.
    private static func ordered(_ tests: [TestID], _ estimates: [TestID: Double]) -> ([TestID], Double) {
        (
            tests.sorted { (estimates[$0] ?? 0, $1.name) > (estimates[$1] ?? 0, $0.name) },
            tests.reduce(0) { $0 + (estimates[$1] ?? 0) }
        )
    }

    /// Takes tests worth at least `seconds` (at least one test; everything when little is left),
    /// and no more than the caps on a batch that holds an unrecorded test.
    private func take(from shard: Int, seconds: Double, fromFront: Bool) -> [TestID] {
        var queue = queues[shard] ?? []
        let parts = Double(max(1, workers)) * Self.unknownDivisor
        let cap = max(Self.smallestBatch, remaining.values.reduce(0, +) / parts)
        let countCap = (Double(unknownLeft) / parts).rounded(.up)
        let left = remaining[shard, default: 0]
        var batch: [TestID] = []
        var taken = 0.0
        var guessed = 0
        while let test = fromFront ? queue.first : queue.last,
            batch.isEmpty || taken < seconds - 1e-9 || left - taken <= Self.smallestBatch
        {
            let estimate = estimates[test] ?? 0
            let isGuess = unknown.contains(test)
            if !batch.isEmpty, workers > 1, guessed + (isGuess ? 1 : 0) > 0,
                taken + estimate > cap || (isGuess && Double(guessed) >= countCap)
            {
                break
            }
            _ = fromFront ? queue.removeFirst() : queue.removeLast()
            batch.append(test)
            taken += estimate
            if isGuess { guessed += 1 }
        }
        unknownLeft -= guessed
        queues[shard] = queue
        remaining[shard] = queue.isEmpty ? 0 : max(0, left - taken)
        return batch
    }
}
