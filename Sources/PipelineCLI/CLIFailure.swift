import PipelineCore

/// Ends the command with a status after it has already reported why (a failed test run).
struct QuietExit: Error {
    let status: ExitStatus
}

/// An error the CLI reports as one message with a chosen exit status.
struct CLIFailure: Error {
    let status: ExitStatus
    let message: String
}
