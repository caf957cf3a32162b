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
    /// Promotion refused: develop's references changed after the branch was cut (`--overwrite`
    /// overwrites), or the merged commit's CI run failed snapshots whose renderings were never
    /// accepted; or `refs accept` refused a candidate (`--force` accepts it).
    case conflict = 8
    /// Coverage could not be measured (the toolchain lacks llvm-profdata or llvm-cov, a profile tool
    /// failed, a node's coverage is missing) or is below the pipeline's `min-lines`.
    case coverage = 9
    /// A merge's promotion left develop stale: a test the merged change touched did not get its
    /// references into develop (a new snapshot test nothing was pushed or accepted for, a squash or
    /// rebase whose branch could not be told). Each test is named with the command that fixes it.
    case stale = 10
    /// A bug in pipeline itself.
    case internalError = 70
    /// Stopped by Ctrl-C or SIGTERM.
    case interrupted = 130
}

/// An error of the libraries that says which exit status it ends a command with: each library
/// decides for its own errors, so nothing above them needs to know every error type.
public protocol ExitCoded: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
}

extension ExitStatus {
    /// The status and one-line message for an error of the libraries; nil for an error they do not
    /// raise (the command line's own, or a bug).
    public static func classify(_ error: any Error) -> (status: ExitStatus, message: String)? {
        guard let error = error as? any ExitCoded else { return nil }
        return (error.exitStatus, error.description)
    }
}

extension RequestError: ExitCoded {
    public var exitStatus: ExitStatus { .usage }
}

extension FileError: ExitCoded {
    public var exitStatus: ExitStatus { .usage }
}
