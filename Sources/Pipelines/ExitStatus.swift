import Coverage
import GitChanges
import ImageDiff
import PipelineSpec
import ReferenceStore
import References
import SharedRun
import TestSharding
import XcodeResults

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
    /// Promotion refused: develop's references changed after the branch was cut (`--force`
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

extension ExitStatus {
    /// The status and one-line message for an error of the libraries; nil for an error they do not
    /// raise (the command line's own, or a bug).
    public static func classify(_ error: any Error) -> (status: ExitStatus, message: String)? {
        switch error {
        case let error as GitError: (.git, "\(error)")
        case let error as TestRunError: (status(of: error), "\(error)")
        case let error as ImageError: (.usage, "\(error)")
        case let error as StoreError: (.storage, "\(error)")
        case let error as ReferenceError: (status(of: error), "\(error)")
        case let error as RequestError: (.usage, "\(error)")
        case let error as ReviewError: (.git, "\(error)")
        case let error as QueueError:
            if case .unreadable = error { (.storage, "\(error)") } else { (.usage, "\(error)") }
        case let error as SpecError:
            if case .unknownPipeline = error { (.usage, "\(error)") } else { (.spec, "\(error)") }
        case let error as XcodeResultsError:
            if case .noTests = error { (.noTests, "\(error)") } else { (.spec, "\(error)") }
        case let error as CoverageError:
            switch error {
            case .unwritable, .badPattern: (.usage, "\(error)")
            default: (.coverage, "\(error)")
            }
        case let error as QuarantineEditor.Failure:
            if case .alreadyQuarantined = error { (.usage, "\(error)") } else { (.spec, "\(error)") }
        default: nil
        }
    }

    private static func status(of error: TestRunError) -> ExitStatus {
        switch error {
        case .buildFailed, .listingFailed, .cannotStart: .build
        case .noTests, .noTestsMatched, .noTestProduct: .noTests
        case .invalidFilter, .invalidNode, .invalidShards, .unreadableTimings, .unreadableReport, .cannotWrite: .usage
        case .interrupted: .interrupted
        }
    }

    private static func status(of error: ReferenceError) -> ExitStatus {
        switch error {
        case .notConfigured: .spec
        case .notATest, .needsConfirmation: .usage
        case .noReferences, .incomplete, .noCandidates, .noStore: .storage
        case .developChanged, .candidateRefused, .neverAccepted, .notOnBranch: .conflict
        case .recordingFailed: .testsFailed
        case .developStale: .stale
        }
    }
}
