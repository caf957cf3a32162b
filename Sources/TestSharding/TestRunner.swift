import Foundation

/// What to run and how: everything `pipeline test` and a pipeline's test stage decide.
public struct TestRunOptions: Sendable {
    public var shards: Int
    public var node: Node
    public var limits: RunLimits
    public var retries: Int
    /// Whether a test that passed only on a retry fails the run.
    public var flakyFails: Bool
    /// Regular expressions over test names: a test runs when it matches any filter (or there are
    /// none) and no skip.
    public var filters: [String]
    public var skips: [String]
    /// Variables set for the test processes (not the build), over the inherited environment.
    public var environment: [String: String]

    public init(shards: Int, node: Node = .whole, limits: RunLimits = RunLimits(), retries: Int = 0,
                flakyFails: Bool = true, filters: [String] = [], skips: [String] = [], environment: [String: String] = [:]) {
        self.shards = shards
        self.node = node
        self.limits = limits
        self.retries = retries
        self.flakyFails = flakyFails
        self.filters = filters
        self.skips = skips
        self.environment = environment
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
            (include.isEmpty || include.contains { test.name.contains($0) }) && !exclude.contains { test.name.contains($0) }
        }
        if selected.isEmpty && !tests.isEmpty { throw .noTestsMatched(filters: filters + skips.map { "skip \($0)" }) }
        return selected
    }
}

/// Runs planned shards in parallel and folds the results into one report.
public struct TestRunner: Sendable {
    public let product: TestProduct
    public let options: TestRunOptions
    /// Where each test process's log goes (`shard-<n>-<k>.log`).
    public let logs: URL

    public init(product: TestProduct, options: TestRunOptions, logs: URL) {
        self.product = product
        self.options = options
        self.logs = logs
    }

    /// Runs every shard at once, one worker task each, showing progress every `statusInterval`.
    /// `estimates` (expected seconds per test) and `knownShare` (the share of them recorded rather
    /// than guessed) decide how much work stays in the pool for whichever worker is free first.
    public func run(_ shards: [Shard], estimates: [TestID: Double], knownShare: Double,
                    progress: RunProgress, statusInterval: Duration) async -> TestReport {
        let start = ContinuousClock.now
        let pool = WorkPool(shards: shards, estimates: estimates, knownShare: knownShare)
        let (attempts, processSeconds) = await withTaskGroup(of: ([TestAttempt], Double)?.self) { group in
            let product = product.adding(environment: options.environment)
            for shard in shards {
                let worker = ShardWorker(shard: shard.index, pool: pool, product: product, limits: options.limits,
                                         retries: options.retries, logs: logs)
                group.addTask {
                    await progress.shardStarted()
                    let attempts = await worker.run(progress: progress)
                    await progress.shardFinished()
                    return attempts
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: statusInterval)) != nil {
                    await progress.showStatus()
                }
                return nil
            }
            var all: [TestAttempt] = []
            var processSeconds = 0.0
            var running = shards.count
            while running > 0, let result = await group.next() {
                guard let (attempts, seconds) = result else { continue }
                all += attempts
                processSeconds += seconds
                running -= 1
            }
            group.cancelAll()
            return (all, processSeconds)
        }
        await progress.finish()
        var report = TestReport(shards: shards, attempts: attempts, seconds: (ContinuousClock.now - start).seconds,
                                node: options.node, flakyFails: options.flakyFails)
        // What the processes spent beyond the tests' own durations: start-up and the harness's
        // per-test work. Planning adds it to every estimate.
        let testSeconds = attempts.reduce(0) { $0 + $1.seconds }
        report.summary.overheadPerTest = attempts.isEmpty ? 0 : max(0, processSeconds - testSeconds) / Double(attempts.count)
        return report
    }
}
