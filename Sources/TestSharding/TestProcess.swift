import ChildProcesses
import Foundation
import TestCore

/// Limits that apply to every test process.
public struct RunLimits: Sendable {
    /// A test running longer than this is killed (its whole process group) and reported as timed out.
    public var timeout: Duration
    /// Output kept per failing test; longer output keeps its end.
    public var outputLimit: Int
    /// The largest selector list one process gets; longer lists are split (one argument is capped at 128 KiB).
    public var selectorBytes: Int
    /// How a test's recorded durations lower its limit (nil: every test has `timeout`).
    public var history: HistoryTimeout?
    /// Per test name, the limit its durations give (`HistoryTimeout.limits`), set for a run.
    public var expected: [String: HistoryTimeout.Limit] = [:]

    public init(
        timeout: Duration = .seconds(600), outputLimit: Int = 1 << 20, selectorBytes: Int = 120_000,
        history: HistoryTimeout? = nil
    ) {
        self.timeout = timeout
        self.outputLimit = outputLimit
        self.selectorBytes = selectorBytes
        self.history = history
    }
}

/// One process of the test product running some tests of one framework. It watches the output as
/// it grows, kills the process group when a test outlives the timeout, and afterwards says what
/// happened to each test, and which tests never started and should run in a fresh process.
struct TestProcess {
    let product: TestProduct
    let framework: TestFramework
    let tests: [TestID]
    let limits: RunLimits
    let log: URL
    let eventStream: URL
    let attempt: Int
    /// The worker running it, for the report.
    let shard: Int

    struct Outcome {
        var attempts: [TestAttempt]
        /// Tests that did not start because the process died first: they deserve a new process.
        var relaunch: [TestID]
        /// The process's wall time, start to exit.
        var seconds = 0.0
    }

    func run(onFinish: (TestAttempt) async -> Void) async -> Outcome {
        let process: ChildProcess
        do {
            process = try await ChildProcess.start(
                product.command(for: tests, framework: framework, eventStream: eventStream),
                variables: product.variables, log: log)
        } catch {
            return Outcome(
                attempts: tests.map {
                    TestAttempt(
                        test: $0, status: .crashed, seconds: 0, message: error.description,
                        attempt: attempt)
                }, relaunch: [])
        }
        let watch = Watch(run: self)
        let started = ContinuousClock.now
        let termination = await process.wait {
            await watch.poll(onFinish: onFinish)
            if watch.overdue(limits) { process.kill() }
        }
        await watch.poll(onFinish: onFinish)
        var outcome = watch.outcome(termination)
        outcome.seconds = (ContinuousClock.now - started).seconds
        for index in outcome.attempts.indices {
            outcome.attempts[index].log = log.path
            outcome.attempts[index].shard = shard
            // Faults and missing tests are known only now; finished tests were announced as they ended.
            if index >= watch.finished.count { await onFinish(outcome.attempts[index]) }
        }
        return outcome
    }

    /// The state of one watched process, owned by the task waiting for it.
    private final class Watch {
        let run: TestProcess
        var xctest: XCTestOutputParser
        var swiftTesting: SwiftTestingEventParser
        var source: FileHandle?
        var finished: [TestAttempt] = []
        var current: (test: TestID, offset: Int, since: ContinuousClock.Instant)?
        var lastActivity = ContinuousClock.now
        var timedOut = false
        /// The evidence that stopped the test before the timeout, when it did.
        var stoppedEarly: HistoryTimeout.Limit?
        let startedAt = ContinuousClock.now

        init(run: TestProcess) {
            self.run = run
            xctest = XCTestOutputParser(tests: run.tests)
            swiftTesting = SwiftTestingEventParser(tests: run.tests)
        }

        func poll(onFinish: (TestAttempt) async -> Void) async {
            let url = run.framework == .xctest ? run.log : run.eventStream
            if source == nil { source = try? FileHandle(forReadingFrom: url) }
            guard let source, let data = try? source.readToEnd(), !data.isEmpty else { return }
            let events = run.framework == .xctest ? xctest.consume(data) : swiftTesting.consume(data)
            for event in events {
                switch event {
                case .started(let test, let offset):
                    current = (test, offset, .now)
                case .finished(let test, let status, let seconds, let message, let range):
                    current = nil
                    lastActivity = .now
                    var attempt = TestAttempt(
                        test: test, status: status, seconds: seconds, message: message, attempt: run.attempt)
                    if status != .passed && status != .skipped { attempt.output = output(of: test, range: range) }
                    finished.append(attempt)
                    await onFinish(attempt)
                }
            }
        }

        /// Whether the running test has outlived its limit (from its history, else the timeout), or
        /// the silence between tests the timeout.
        func overdue(_ limits: RunLimits) -> Bool {
            guard !timedOut else { return false }
            let expected = current.flatMap { limits.expected[$0.test.name] }
            timedOut = ContinuousClock.now - (current?.since ?? lastActivity) > (expected?.limit ?? limits.timeout)
            if timedOut { stoppedEarly = expected }
            return timedOut
        }

        func outcome(_ termination: Termination) -> Outcome {
            let done = Set(finished.map(\.test))
            var notStarted = run.tests.filter { !done.contains($0) && $0 != current?.test }
            var attempts = finished
            let seconds = (ContinuousClock.now - (current?.since ?? lastActivity)).seconds
            let normalExit = !timedOut && [.exited(0), .exited(1), .exited(69)].contains(termination)

            if let current {
                attempts.append(
                    fault(
                        current.test, seconds: seconds, termination: termination,
                        output: output(of: current.test, range: current.offset..<Int.max)))
            } else if !normalExit, finished.isEmpty, !notStarted.isEmpty {
                // The process died before any test began: blame the first, so every relaunch makes progress.
                let first = notStarted.removeFirst()
                var attempt = fault(
                    first, seconds: seconds, termination: termination, output: output(of: first, range: 0..<Int.max))
                attempt.message = (attempt.message ?? "") + " (before the test started)"
                attempts.append(attempt)
            }
            // A process that ends normally between tests ran what it was going to; one that ends
            // while a test runs (a test calling `exit`) stopped because of it: the rest run again.
            if normalExit, current == nil {
                attempts += notStarted.map {
                    TestAttempt(
                        test: $0, status: .missing, seconds: 0,
                        message: "the test process ended (\(termination)) without running this test",
                        attempt: run.attempt)
                }
                notStarted = []
            }
            return Outcome(attempts: attempts, relaunch: notStarted)
        }

        private func fault(_ test: TestID, seconds: Double, termination: Termination, output: String?) -> TestAttempt {
            let limit = stoppedEarly.map { evidence in
                "\(evidence.limit.seconds.formatted(places: 1)) s, over \(run.limits.history?.factor.formatted(places: 0) ?? "")× "
                    + "its p90 of \(evidence.p90.formatted(places: 3)) s in its last \(evidence.runs) runs (the timeout is "
                    + "\(run.limits.timeout.seconds.formatted(places: 0)) s)"
            }
            let message =
                timedOut
                ? "still running after \(limit ?? run.limits.timeout.seconds.formatted(places: 1) + " s"); its process group "
                    + "was killed"
                : "the test process ended with \(termination)" + (Self.fatalMessage(in: output).map { ": \($0)" } ?? "")
            return TestAttempt(
                test: test, status: timedOut ? .timedOut : .crashed, seconds: seconds, message: message,
                output: output, attempt: run.attempt)
        }

        /// A test's output: its part of the log for XCTest; its issues, or the log's end, for Swift Testing.
        private func output(of test: TestID, range: Range<Int>?) -> String? {
            let issues = run.framework == .swiftTesting ? swiftTesting.issueMessages(of: test) : []
            let wanted: Range<Int>
            if run.framework == .xctest, let range {
                wanted = range
            } else if timedOut || current?.test == test {
                wanted = 0..<Int.max
            } else {
                return issues.joined(separator: "\n")
            }
            guard let log = LogFile.read(run.log, wanted, keepingLast: run.limits.outputLimit) else {
                return issues.joined(separator: "\n")
            }
            return (issues + [log]).joined(separator: "\n")
        }

        /// The runtime's `Fatal error: …` line, if the output has one.
        static func fatalMessage(in output: String?) -> String? {
            guard let line = output?.split(separator: "\n").first(where: { $0.contains("Fatal error") }),
                let start = line.range(of: "Fatal error")
            else { return nil }
            return String(line[start.lowerBound...])
        }
    }
}

/// Reading back the logs test processes wrote.
enum LogFile {
    /// The part of a log file in `range`, only its last `limit` bytes read when it is longer.
    static func read(_ url: URL, _ range: Range<Int>, keepingLast limit: Int) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let size = try? Int(handle.seekToEnd()) else { return nil }
        let upper = min(range.upperBound, size)
        let lower = min(range.lowerBound, upper)
        let start = max(lower, upper - limit)
        guard (try? handle.seek(toOffset: UInt64(start))) != nil,
            let bytes = try? handle.read(upToCount: upper - start) ?? Data()
        else { return nil }
        let cut = start > lower ? "[… \(start - lower) bytes of earlier output cut]\n" : ""
        return cut + String(decoding: bytes, as: UTF8.self)
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
