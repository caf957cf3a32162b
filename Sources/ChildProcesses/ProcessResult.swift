import Foundation

/// A process run to its end for its output: a build, a listing, a toolchain's tool.
public struct ProcessResult: Sendable {
    public let termination: Termination
    /// What it wrote to standard output (and to standard error, when not kept apart).
    public let output: String
    /// What it wrote to standard error, when kept apart.
    public let errors: String?
    /// Whether it was stopped at its timeout.
    public var timedOut = false
}

extension ChildProcess {
    /// Runs `arguments` to their end, their output in `log` (standard error in `errors` when given).
    /// Past `timeout` the process group is asked to end (SIGTERM), and killed (SIGKILL) `grace`
    /// later if it has not; the result then says `timedOut`.
    public static func run(
        _ arguments: [String], variables: [String: String], log: URL, errors: URL? = nil,
        timeout: Duration? = nil, grace: Duration = .seconds(2)
    ) async throws(ProcessError) -> ProcessResult {
        for file in [log, errors].compactMap({ $0 }) { removeIfRegular(file) }
        let process = try await start(arguments, variables: variables, log: log, errors: errors)
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var stopping: ContinuousClock.Instant?
        let termination = await process.wait {
            guard let deadline, ContinuousClock.now > deadline else { return }
            if let since = stopping {
                if ContinuousClock.now > since + grace { process.kill() }
            } else {
                stopping = ContinuousClock.now
                process.terminate()
            }
        }
        func read(_ file: URL?) -> String? {
            file.map { String(decoding: (try? Data(contentsOf: $0)) ?? Data(), as: UTF8.self) }
        }
        return ProcessResult(
            termination: termination, output: read(log) ?? "", errors: read(errors), timedOut: stopping != nil)
    }
}

/// Removes `file` when it is a regular file, so a run starts its output afresh; anything else (a
/// device such as `/dev/null`, a folder) is left alone.
fileprivate func removeIfRegular(_ file: URL) {
    let type = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.type] as? FileAttributeType
    if type == .typeRegular { try? FileManager.default.removeItem(at: file) }
}
