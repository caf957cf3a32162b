import PipelineCore

/// Why an Xcode output could not be read. Each reads as one line naming the file, and the JSON
/// path or line where that says more.
public enum XcodeResultsError: Error, Equatable, CustomStringConvertible {
    /// The file is not what it should be: not JSON, cut short, another tool's output.
    case notReadable(file: String, reason: String)
    /// The file is what it should be, and names no test.
    case noTests(file: String, reason: String)
    /// An Xcode tool this tool ran failed: its command, the log it wrote, and why.
    case failed(command: String, log: String, reason: String)

    public var description: String {
        switch self {
        case .notReadable(let file, let reason): "\(file): \(reason)"
        case .noTests(let file, let reason): "\(file): \(reason)"
        case .failed(let command, let log, let reason): "\(command) \(reason) (its output: \(log))"
        }
    }
}

extension XcodeResultsError: ExitCoded {
    public var exitStatus: ExitStatus {
        switch self {
        case .noTests: .noTests
        case .failed: .build
        case .notReadable: .spec
        }
    }
}
