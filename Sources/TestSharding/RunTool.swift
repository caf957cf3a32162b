import ChildProcesses
import Foundation
import TestCore

/// `ChildProcess.run` for the runner's tools, a process that cannot start said as
/// `TestRunError.cannotStart`.
func runTool(
    _ arguments: [String], variables: [String: String], log: URL, timeout: Duration? = nil
) async throws(TestRunError) -> ProcessResult {
    do {
        return try await ChildProcess.run(arguments, variables: variables, log: log, timeout: timeout)
    } catch {
        throw .cannotStart(command: error.command, reason: error.reason)
    }
}
