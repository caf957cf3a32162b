/// Hands the planned shards' tests to the shard workers in batches, so that a shard which finishes
/// early helps the others instead of waiting: recorded durations vary from run to run, and tests
/// with no record are only guessed.
///
/// A worker first gets most of its own shard, longest tests first, in one batch (one process per
/// test library). The rest, the shortest tests, stays in the pool: the share left grows with the
/// share of tests whose duration is only estimated. A worker with nothing left of its own takes
/// half of the remaining time of the shard with the most left, from its short end. Below a small
/// amount of work a queue goes whole, so a batch is never worth less than starting its process.
actor WorkPool {
    private var queues: [Int: [TestID]]
    private var remaining: [Int: Double]
    private var started: Set<Int> = []
    private let estimates: [TestID: Double]
    private let tailShare: Double
    /// Work below which a queue is handed out whole (a process costs ≈15 ms to start).
    static let smallestBatch = 0.25

    /// `knownShare`: the share of tests whose duration was recorded (0...1).
    init(shards: [Shard], estimates: [TestID: Double], knownShare: Double) {
        self.estimates = estimates
        var queues: [Int: [TestID]] = [:]
        var remaining: [Int: Double] = [:]
        for shard in shards {
            queues[shard.index] = shard.tests.sorted { (estimates[$0] ?? 0, $1.name) > (estimates[$1] ?? 0, $0.name) }
            remaining[shard.index] = shard.tests.reduce(0) { $0 + (estimates[$1] ?? 0) }
        }
        self.queues = queues
        self.remaining = remaining
        // A lone worker has no one to share with: it gets everything at once.
        tailShare = shards.count < 2 ? 0 : 0.5 - 0.4 * min(1, max(0, knownShare))
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

    /// Takes tests worth at least `seconds` (at least one test; everything when little is left).
    private func take(from shard: Int, seconds: Double, fromFront: Bool) -> [TestID] {
        var queue = queues[shard] ?? []
        let left = remaining[shard, default: 0]
        var batch: [TestID] = []
        var taken = 0.0
        while !queue.isEmpty && (batch.isEmpty || taken < seconds - 1e-9 || left - taken <= Self.smallestBatch) {
            let test = fromFront ? queue.removeFirst() : queue.removeLast()
            batch.append(test)
            taken += estimates[test] ?? 0
        }
        queues[shard] = queue
        remaining[shard] = queue.isEmpty ? 0 : max(0, left - taken)
        return batch
    }
}
