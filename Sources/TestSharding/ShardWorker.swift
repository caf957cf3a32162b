import Foundation

/// Runs one shard: its XCTest tests in one process and its Swift Testing tests in another (more
/// when a selector list is too long, or when a crash or timeout cuts a process short), then
/// reruns its failures up to `retries` times.
struct ShardWorker {
    let shard: Shard
    let product: TestProduct
    let limits: RunLimits
    let retries: Int
    let logs: URL

    /// Every attempt at the shard's tests, and the wall time of the processes that ran them.
    func run(progress: RunProgress) async -> (attempts: [TestAttempt], processSeconds: Double) {
        var attempts: [TestAttempt] = []
        var processSeconds = 0.0
        var tests = shard.tests
        var processNumber = 0
        for attempt in 1...(retries + 1) where !tests.isEmpty && !Task.isCancelled {
            var results: [TestAttempt] = []
            for framework in [TestFramework.xctest, .swiftTesting] {
                var pending = tests.filter { $0.framework == framework }
                while !pending.isEmpty && !Task.isCancelled {
                    let chunk = Self.chunk(pending, framework: framework, limit: limits.selectorBytes)
                    processNumber += 1
                    let name = "shard-\(shard.index)-\(processNumber)"
                    let run = ProcessRun(product: product, framework: framework, tests: chunk, limits: limits,
                                         log: logs.appendingPathComponent("\(name).log"),
                                         eventStream: logs.appendingPathComponent("\(name).events.jsonl"), attempt: attempt)
                    let outcome = await run.run { attempt in
                        if await !ProcessGroups.shared.isStopping { await progress.record(attempt) }
                    }
                    processSeconds += outcome.seconds
                    if await ProcessGroups.shared.isStopping { return (attempts + results, processSeconds) }
                    results += outcome.attempts
                    pending = outcome.relaunch + pending.dropFirst(chunk.count)
                }
            }
            attempts += results
            tests = results.filter { $0.status.isFailure }.map(\.test)
        }
        return (attempts, processSeconds)
    }

    /// The longest prefix of `tests` whose selectors fit one process's argument budget (at least one).
    static func chunk(_ tests: [TestID], framework: TestFramework, limit: Int) -> [TestID] {
        var size = 0
        var count = 0
        for test in tests {
            size += framework == .xctest ? test.name.utf8.count + 1 : SwiftTestingFilter.pattern(for: test).utf8.count + 10
            if size > limit && count > 0 { break }
            count += 1
        }
        return Array(tests.prefix(count))
    }
}
