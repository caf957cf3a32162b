/// The process exit codes, documented in the README. Scripts may rely on them; they never change meaning.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    /// Tests ran and some failed (or were flaky where flaky fails the run).
    case testsFailed = 1
    /// The command line is wrong: unknown option, missing argument, unknown pipeline name.
    case usage = 2
    /// A pipeline spec is missing or invalid.
    case spec = 3
    /// Git could not answer: not a repository, unknown revision, shallow clone.
    case git = 4
    /// Reference storage failed: unreachable, denied, missing bucket or object.
    case storage = 5
    /// The package under test did not build.
    case build = 6
    /// No test was selected: the package has none, or no test matches the filters. Never a pass.
    case noTests = 7
    /// Promotion refused: develop's references changed after the branch was cut (`--force` overwrites).
    case conflict = 8
    /// A bug in pipeline itself.
    case internalError = 70
    /// Stopped by Ctrl-C or SIGTERM.
    case interrupted = 130
}

/// Ends the command with a status after it has already reported why (a failed test run).
struct QuietExit: Error {
    let status: ExitStatus
}

/// An error the CLI reports as one message with a chosen exit status.
struct CLIFailure: Error {
    let status: ExitStatus
    let message: String
}
