import ChildProcesses
import Foundation
import TestCore

extension TestRunError {
    /// `ChildProcess.run`, a process that cannot start said as `cannotStart`.
    public static func starting(
        _ arguments: [String], environment: [String: String], log: URL, timeout: Duration? = nil
    ) async throws(TestRunError) -> ProcessResult {
        do {
            return try await ChildProcess.run(arguments, environment: environment, log: log, timeout: timeout)
        } catch {
            throw .cannotStart(command: error.command, reason: error.reason)
        }
    }
}
