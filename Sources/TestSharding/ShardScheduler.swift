import ChildProcesses
import Foundation
import PipelineCore
import TestCore

/// What to run and how: everything `pipeline test` and a pipeline's test stage decide.
public struct TestRunOptions: Sendable {
    public var shards: Int
    public var node: Node
    public var limits: RunLimits
    public var retries: Int
    /// When more tests than this fail, none is retried: a mass failure is a breakage, not flakiness.
    public var maxRetried: Int?
    /// Whether a failed attempt is worth another: nil retries every failure. The snapshot check
    /// says no for a test whose only failures are snapshots that do not match their references,
    /// which render the same way again.
    public var retriable: (@Sendable (TestAttempt) -> Bool)?
    /// Whether a test that passed only on a retry fails the run.
    public var flakyFails: Bool
    /// Regular expressions over test names: a test runs when it matches any filter (or there are
    /// none) and no skip.
    public var filters: [String]
    public var skips: [String]
    /// Exact test names to keep (`--failed`: the tests that did not pass last time); nil keeps all.
    public var only: Set<String>?
    /// Variables set for the test processes (not the build), over the inherited variables.
    public var variables: [String: String]
    /// When set, each process runs the tests of one suite only, with these variables for the suite:
    /// files named after it (`SuiteFiles`) tell what each suite executed and read, for the impact map.
    public var suiteEnvironment: (@Sendable (_ suite: String) -> [String: String])?

    public init(
        shards: Int, node: Node = .whole, limits: RunLimits = RunLimits(), retries: Int = 0, maxRetried: Int? = nil,
        flakyFails: Bool = true, filters: [String] = [], skips: [String] = [], variables: [String: String] = [:]
    ) {
        self.shards = shards
        self.node = node
        self.limits = limits
        self.retries = retries
        self.maxRetried = maxRetried
        self.flakyFails = flakyFails
        self.filters = filters
        self.skips = skips
        self.variables = variables
    }

    /// The tests the filters select, or an error naming the filters when they select none.
    public func select(_ tests: [TestID]) throws(TestRunError) -> [TestID] {
        func compile(_ patterns: [String]) throws(TestRunError) -> [Regex<AnyRegexOutput>] {
            var result: [Regex<AnyRegexOutput>] = []
            for pattern in patterns {
                do { result.append(try Regex(pattern)) } catch { throw .invalidFilter(pattern, reason: "\(error)") }
            }
            return result
        }
        let include = try compile(filters)
        let exclude = try compile(skips)
        let selected = tests.filter { test in
            (include.isEmpty || include.contains { test.name.contains($0) })
                && !exclude.contains { test.name.contains($0) }
                && (only?.contains(test.name) ?? true)
        }
        if selected.isEmpty && !tests.isEmpty {
            throw .noTestsMatched(
                filters: filters + skips.map { "skip \($0)" }
                    + (only.map { ["the \($0.count) that did not pass last time"] } ?? []))
        }
        return selected
    }
}

/// Runs planned shards in parallel, one `ShardWorker` per shard, retries failures in rounds, and
/// folds the results into one report.
public struct ShardScheduler: Sendable {
    public let product: TestProduct
    public let options: TestRunOptions
    /// Where each test process's log goes (`shard-<n>-<k>.log`).
    public let logs: URL

    /// Runs every shard at once, one worker task each, showing progress every `statusInterval`;
    /// then retries the failures in rounds across the shards, unless more failed than `maxRetried`.
    /// `estimates` (expected seconds per test) and `unknown` (the tests whose estimate is a guess, with
    /// no recorded duration) decide how much work stays in the pool for whichever worker is free first.
    public func run(
        _ shards: [Shard], estimates: [TestID: Double], unknown: Set<TestID>,
        progress: RunProgress, statusInterval: Duration
    ) async -> TestReport {
        let start = ContinuousClock.now
        let pool = WorkPool(shards: shards, estimates: estimates, unknown: unknown)
        let product = product.adding(variables: options.variables)
        let (outcome, retryNote) = await progress.showingStatus(every: statusInterval) {
            await firstPassAndRetries(shards, pool: pool, product: product, progress: progress)
        }
        var report = TestReport(
            shards: shards, attempts: outcome.attempts, seconds: (ContinuousClock.now - start).seconds,
            node: options.node, flakyFails: options.flakyFails)
        report.retryNote = retryNote
        // What the processes spent beyond the tests' own durations: start-up and the harness's
        // per-test work. Planning adds it to every estimate.
        let testSeconds = outcome.attempts.reduce(0) { $0 + $1.seconds }
        report.summary.overheadPerTest =
            outcome.attempts.isEmpty
            ? 0
            : max(0, outcome.processSeconds - testSeconds) / Double(outcome.attempts.count)
        return report
    }

    /// Every shard's first pass, then the failures' retries in rounds; or, when more failed than
    /// `maxRetried`, no retry and the note saying so.
    private func firstPassAndRetries(
        _ shards: [Shard], pool: WorkPool, product: TestProduct,
        progress: RunProgress
    ) async -> (ShardWorker.Outcome, String?) {
        var outcome = await Self.together(shards.map(\.index), progress: progress) { shard in
            await ShardWorker(
                shard: shard, product: product, limits: options.limits, logs: logs, label: "shard-\(shard)",
                suiteEnvironment: options.suiteEnvironment
            )
            .run(pool, progress: progress)
        }
        var failures = outcome.failures
        var notes: [String] = []
        if options.retries > 0, let retriable = options.retriable {
            let last = Dictionary(outcome.attempts.map { ($0.test, $0) }, uniquingKeysWith: { _, later in later })
            let kept = failures.filter { last[$0].map(retriable) ?? true }
            if kept.count < failures.count {
                notes.append(
                    "\(counted(failures.count - kept.count, "test")) failed only on snapshots that do not match their "
                        + "references: not retried (another attempt renders the same)")
            }
            failures = kept
        }
        if options.retries > 0, let limit = options.maxRetried, failures.count > limit {
            notes.append(
                "\(counted(failures.count, "test")) failed, more than --max-retried \(limit): none was retried")
            failures = []
        }
        for note in notes { await progress.note(note) }
        let note = notes.isEmpty ? nil : notes.joined(separator: "; ")
        for attempt in stride(from: 2, through: options.retries + 1, by: 1) where !failures.isEmpty {
            guard await !ProcessGroups.shared.isStopping else { break }
            // The failures dealt round-robin over the shards, each part in a process of its own.
            let lanes = min(shards.count, failures.count)
            let parts = (0..<lanes).map { lane in stride(from: lane, to: failures.count, by: lanes).map { failures[$0] }
            }
            let round = await Self.together(Array(parts.indices), progress: progress) { lane in
                await ShardWorker(
                    shard: shards[lane].index, product: product, limits: options.limits, logs: logs,
                    label: "shard-\(shards[lane].index)-retry\(attempt - 1)", suiteEnvironment: options.suiteEnvironment
                )
                .retry(parts[lane], attempt: attempt, progress: progress)
            }
            outcome.add(round)
            failures = round.failures
        }
        return (outcome, note)
    }

    /// Runs one worker per lane at once, and adds up what they did.
    static func together(
        _ lanes: [Int], progress: RunProgress,
        _ work: @escaping @Sendable (Int) async -> ShardWorker.Outcome
    ) async -> ShardWorker.Outcome {
        await withTaskGroup(of: ShardWorker.Outcome.self) { group in
            for lane in lanes {
                group.addTask {
                    await progress.shardStarted()
                    let outcome = await work(lane)
                    await progress.shardFinished()
                    return outcome
                }
            }
            var total = ShardWorker.Outcome()
            for await outcome in group { total.add(outcome) }
            return total
        }
    }
}

extension ShardScheduler {
    /// A flake hunt: runs `tests` `times` times, each run in fresh processes (so no state leaks from
    /// one run to the next), `options.shards` runs at once. With `untilFailure`, no run starts after
    /// one failed. Retries do not apply: every run is one attempt, numbered by its run.
    public func repeatedly(
        _ tests: [TestID], times: Int, untilFailure: Bool, progress: RunProgress,
        statusInterval: Duration
    ) async -> RepeatReport {
        let start = ContinuousClock.now
        let runs = RepeatCounter(limit: times)
        let product = product.adding(variables: options.variables)
        let workers = max(1, min(options.shards, times))
        let outcome = await progress.showingStatus(every: statusInterval) {
            await Self.together(Array(0..<workers), progress: progress) { worker in
                var total = ShardWorker.Outcome()
                while let run = await runs.next() {
                    let outcome = await ShardWorker(
                        shard: worker, product: product, limits: options.limits, logs: logs,
                        label: "run-\(run)"
                    )
                    .retry(tests, attempt: run, progress: progress)
                    total.add(outcome)
                    await runs.finished(run, failed: !outcome.failures.isEmpty && untilFailure)
                    if await ProcessGroups.shared.isStopping { break }
                }
                return total
            }
        }
        let (completed, stopped) = await runs.result
        return RepeatReport(
            tests: tests, attempts: outcome.attempts, requested: times, completed: completed,
            stoppedEarly: stopped, seconds: (ContinuousClock.now - start).seconds, timeout: options.limits.timeout)
    }
}

/// Hands out run numbers 1…limit; after a failing run (when asked to stop) it hands out no more.
/// The runs that count are those up to the first failing one, whose earlier runs all finished.
private actor RepeatCounter {
    let limit: Int
    private var issued = 0
    private var done: Set<Int> = []
    private var firstFailed: Int?

    init(limit: Int) { self.limit = limit }

    func next() -> Int? {
        guard firstFailed == nil, issued < limit else { return nil }
        issued += 1
        return issued
    }

    func finished(_ run: Int, failed: Bool) {
        done.insert(run)
        if failed { firstFailed = min(firstFailed ?? run, run) }
    }

    /// The runs done without a gap from 1, up to the first failing one; and whether the hunt stopped early.
    var result: (completed: Int, stopped: Bool) {
        var contiguous = 0
        while done.contains(contiguous + 1) { contiguous += 1 }
        guard let firstFailed else { return (contiguous, false) }
        return (min(contiguous, firstFailed), firstFailed < limit)
    }
}
