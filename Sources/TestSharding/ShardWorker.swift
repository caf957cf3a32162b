import Foundation

/// Runs the batches the pool gives one shard's worker: the XCTest tests of a batch in one process
/// and its Swift Testing tests in another (more when a selector list is too long, or when a crash or
/// timeout cuts a process short); then reruns the failures it saw, up to `retries` times.
struct ShardWorker {
    let shard: Int
    let pool: WorkPool
    let product: TestProduct
    let limits: RunLimits
    let retries: Int
    let logs: URL

    /// Every attempt this worker made, and the wall time of the processes that ran them.
    func run(progress: RunProgress) async -> (attempts: [TestAttempt], processSeconds: Double) {
        var state = State()
        var failures: [TestID] = []
        while !state.stopped, let batch = await pool.next(for: shard) {
            failures += await run(batch, attempt: 1, state: &state, progress: progress)
        }
        var attempt = 1
        while !state.stopped && !failures.isEmpty && attempt <= retries {
            attempt += 1
            failures = await run(failures, attempt: attempt, state: &state, progress: progress)
        }
        return (state.attempts, state.processSeconds)
    }

    private struct State {
        var attempts: [TestAttempt] = []
        var processSeconds = 0.0
        var processes = 0
        var stopped = false
    }

    /// Runs some tests once; returns those that failed, crashed or timed out.
    private func run(_ tests: [TestID], attempt: Int, state: inout State, progress: RunProgress) async -> [TestID] {
        var failures: [TestID] = []
        for framework in [TestFramework.xctest, .swiftTesting] {
            var pending = tests.filter { $0.framework == framework }
            while !pending.isEmpty && !Task.isCancelled {
                let chunk = Self.chunk(pending, framework: framework, limit: limits.selectorBytes)
                state.processes += 1
                let name = "shard-\(shard)-\(state.processes)"
                let run = ProcessRun(product: product, framework: framework, tests: chunk, limits: limits,
                                     log: logs.appendingPathComponent("\(name).log"),
                                     eventStream: logs.appendingPathComponent("\(name).events.jsonl"),
                                     attempt: attempt, shard: shard)
                let outcome = await run.run { attempt in
                    if await !ProcessGroups.shared.isStopping { await progress.record(attempt) }
                }
                state.processSeconds += outcome.seconds
                state.attempts += outcome.attempts
                failures += outcome.attempts.filter { $0.status.isFailure }.map(\.test)
                if await ProcessGroups.shared.isStopping {
                    state.stopped = true
                    return []
                }
                pending = outcome.relaunch + pending.dropFirst(chunk.count)
            }
        }
        return failures
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
