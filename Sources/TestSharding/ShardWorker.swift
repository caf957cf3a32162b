import ChildProcesses
import Foundation
import PipelineCore
import TestCore

/// Runs tests for one shard: the XCTest tests of a batch in one process and its Swift Testing tests
/// in another (more when a selector list is too long, or when a crash or timeout cuts a process
/// short). First the batches the pool gives it, then, in a later round, failures to try again.
struct ShardWorker {
    let shard: Int
    let product: TestProduct
    let limits: RunLimits
    let logs: URL
    /// Names this worker's processes and their logs: `shard-<n>` makes `shard-<n>-<k>.log`.
    let label: String
    /// When set, each process runs one suite, with these variables for it (`SuiteFiles`).
    var suiteEnvironment: (@Sendable (String) -> [String: String])? = nil

    /// What the worker did: every attempt, the wall time of its processes, and what failed.
    struct Outcome: Sendable {
        var attempts: [TestAttempt] = []
        var processSeconds = 0.0
        var failures: [TestID] = []

        mutating func add(_ other: Outcome) {
            attempts += other.attempts
            processSeconds += other.processSeconds
            failures += other.failures
        }
    }

    /// Runs the batches the pool hands out until it is empty.
    func run(_ pool: WorkPool, progress: RunProgress) async -> Outcome {
        var state = State()
        while !state.stopped, let batch = await pool.next(for: shard) {
            let attempts = state.outcome.attempts.count
            state.outcome.failures += await run(batch, attempt: 1, state: &state, progress: progress)
            await pool.finished(Array(state.outcome.attempts[attempts...]))
        }
        return state.outcome
    }

    /// Runs `tests` once more, as attempt `attempt`.
    func retry(_ tests: [TestID], attempt: Int, progress: RunProgress) async -> Outcome {
        var state = State()
        state.outcome.failures = await run(tests, attempt: attempt, state: &state, progress: progress)
        return state.outcome
    }

    private struct State {
        var outcome = Outcome()
        var processes = 0
        var stopped = false
    }

    /// Runs some tests once; returns those that failed, crashed or timed out.
    private func run(_ tests: [TestID], attempt: Int, state: inout State, progress: RunProgress) async -> [TestID] {
        var failures: [TestID] = []
        for framework in [TestFramework.xctest, .swiftTesting] {
            var pending = tests.filter { $0.framework == framework }
            if suiteEnvironment != nil {
                pending.sort { ($0.suite, $0.name) < ($1.suite, $1.name) }
            } else if self.product.runners.count > 1 {
                // One process runs one runner's tests: each runner's together, in the batch's order.
                pending = pending.enumerated().sorted {
                    (self.product.runner(for: $0.element).path, $0.offset)
                        < (self.product.runner(for: $1.element).path, $1.offset)
                }.map(\.element)
            }
            while !pending.isEmpty && !Task.isCancelled {
                var chunk = Self.chunk(pending, framework: framework, limit: limits.selectorBytes)
                if let runner = chunk.first.map(self.product.runner(for:)) {
                    chunk = Array(chunk.prefix { self.product.runner(for: $0) == runner })
                }
                var product = self.product
                if let suiteEnvironment, let suite = chunk.first?.suite {
                    chunk = Array(chunk.prefix { $0.suite == suite })
                    product = product.adding(variables: suiteEnvironment(suite))
                }
                state.processes += 1
                let name = "\(label)-\(state.processes)"
                let run = TestProcess(
                    product: product, framework: framework, tests: chunk, limits: limits,
                    log: logs.appendingPathComponent("\(name).log"),
                    eventStream: logs.appendingPathComponent("\(name).events.jsonl"),
                    attempt: attempt, shard: shard)
                let outcome = await run.run { attempt in
                    if await !ProcessGroups.shared.isStopping { await progress.show(attempt) }
                }
                state.outcome.processSeconds += outcome.seconds
                state.outcome.attempts += outcome.attempts
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
            size +=
                framework == .xctest ? test.name.utf8.count + 1 : SwiftTestingFilter.pattern(for: test).utf8.count + 10
            if size > limit && count > 0 { break }
            count += 1
        }
        return Array(tests.prefix(count))
    }
}
