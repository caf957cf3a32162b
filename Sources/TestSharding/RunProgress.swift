import Foundation
import TestCore

/// Live progress of a test run, written to standard error: a status line (rewritten in place on a
/// terminal, every few seconds otherwise) and one line per failure as it happens.
public actor RunProgress {
    private let total: Int
    private let shards: Int
    private let expectedSeconds: Double
    private let interactive: Bool
    private let write: @Sendable (String) -> Void
    private let start = ContinuousClock.now
    private var done = 0
    private var failures = 0
    private var activeShards = 0
    private var statusShown = false
    /// In a flake hunt, the tests whose failure was announced: each is announced once.
    private var announced: Set<TestID> = []

    /// A recording run, where every snapshot assertion fails by design: plain failures are not announced.
    private let recording: Bool
    /// A flake hunt (`--repeat`), where an attempt's number is its run, not a retry.
    private let repeating: Bool
    /// Tests whose failures do not fail the run: announced as quarantined.
    private let quarantined: Set<String>

    public init(
        total: Int, shards: Int, expectedSeconds: Double, interactive: Bool, recording: Bool = false,
        repeating: Bool = false, quarantined: Set<String> = [], write: @escaping @Sendable (String) -> Void
    ) {
        self.recording = recording
        self.repeating = repeating
        self.quarantined = quarantined
        self.total = total
        self.shards = shards
        self.expectedSeconds = expectedSeconds
        self.interactive = interactive
        self.write = write
    }

    /// A line about the run as a whole, such as retries left out.
    func note(_ line: String) { emit("note: " + line) }

    func shardStarted() { activeShards += 1 }
    func shardFinished() { activeShards -= 1 }

    /// Counts a finished attempt; failures are announced at once.
    func show(_ attempt: TestAttempt) {
        if repeating {
            done += 1
            if attempt.status.isFailure {
                failures += 1
                guard announced.insert(attempt.test).inserted else { return }
                emit(
                    "✗ \(attempt.test.name) \(attempt.status.rawValue) (run \(attempt.attempt)): \(Self.brief(attempt.message))"
                )
            }
            return
        }
        if attempt.attempt == 1 { done += 1 }
        let retry = attempt.attempt > 1 ? " (retry \(attempt.attempt - 1))" : ""
        switch attempt.status {
        case .passed where attempt.attempt > 1:
            emit("↻ \(attempt.test.name) passed on retry \(attempt.attempt - 1): flaky")
        case .failed where recording:
            break
        case _ where attempt.status.isFailure && quarantined.contains(attempt.test.name):
            emit(
                "⊘ \(attempt.test.name) \(attempt.status.rawValue)\(retry), quarantined: \(Self.brief(attempt.message))"
            )
        case .failed, .timedOut, .crashed:
            if attempt.attempt == 1 { failures += 1 }
            emit("✗ \(attempt.test.name) \(attempt.status.rawValue)\(retry): \(Self.brief(attempt.message))")
        default:
            break
        }
    }

    /// A failure as one short line while the run goes on (the report after it has the rest): the
    /// message's first paragraph on one line, up to a paragraph break a test framework flattened
    /// into two spaces, at most 160 characters.
    static func brief(_ message: String?) -> String {
        let lines = (message ?? "").split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.allSatisfy(\.isWhitespace) }
            .prefix { !$0.allSatisfy(\.isWhitespace) }
        let line = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        let paragraph = line.range(of: "  ").map { line[..<$0.lowerBound] } ?? line[...]
        let text = paragraph.trimmingCharacters(in: .whitespaces)
        return text.count > 160 ? text.prefix(159) + "…" : text
    }

    /// The status line: shards running, tests done of total, failures, elapsed and expected time.
    public func showStatus() {
        let elapsed = (ContinuousClock.now - start).seconds
        let line =
            "[\(activeShards)/\(shards) \(repeating ? "runs" : "shards") running] \(done)/\(total) tests done, \(failures) failed, "
            + "\(elapsed.formatted(places: 1)) s elapsed of ~\(expectedSeconds.formatted(places: 1)) s expected"
        if interactive {
            write("\r\u{1B}[2K" + line)
            statusShown = true
        } else {
            write(line + "\n")
        }
    }

    /// Runs `work` while showing the status line every `interval`, then clears it.
    public nonisolated func showingStatus<Result: Sendable>(
        every interval: Duration,
        _ work: () async -> Result
    ) async -> Result {
        let status = Task {
            while (try? await Task.sleep(for: interval)) != nil { await showStatus() }
        }
        let result = await work()
        status.cancel()
        await finish()
        return result
    }

    /// Clears the in-place status line before the final report.
    public func finish() {
        if statusShown { write("\r\u{1B}[2K") }
        statusShown = false
    }

    private func emit(_ line: String) {
        write((statusShown ? "\r\u{1B}[2K" : "") + line.replacingOccurrences(of: "\n", with: " ") + "\n")
        statusShown = false
    }
}
