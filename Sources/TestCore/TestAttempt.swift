/// How one test ended. `flaky` means it failed and then passed on a retry: never plainly passed.
public enum TestStatus: String, Codable, Sendable, CaseIterable {
    case passed
    case failed
    case skipped
    case flaky
    case timedOut = "timed-out"
    case crashed
    /// Listed but never reported by the process that was asked to run it.
    case missing

    /// Whether a rerun may help.
    public var isFailure: Bool { self == .failed || self == .timedOut || self == .crashed }
}

/// One attempt at one test, as a process reported it.
public struct TestAttempt: Sendable, Equatable {
    public var test: TestID
    public var status: TestStatus
    public var seconds: Double
    /// The first failure message, or what happened (timeout, signal).
    public var message: String?
    /// The test's own output, kept only for tests that did not pass.
    public var output: String?
    /// 1 for the first run, 2 for the first retry, and so on.
    public var attempt: Int
    /// The log of the process that ran it.
    public var log: String?
    /// The shard whose worker ran it (a worker helps others when it finishes early).
    public var shard: Int?

    public init(
        test: TestID, status: TestStatus, seconds: Double, message: String? = nil, output: String? = nil,
        attempt: Int = 1
    ) {
        self.test = test
        self.status = status
        self.seconds = seconds
        self.message = message
        self.output = output
        self.attempt = attempt
    }
}
