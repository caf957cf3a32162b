import Foundation
import PipelineCore

/// What can stop a test run before it produces results. Each reads as one line for a person.
public enum TestRunError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotStart(command: String, reason: String)
    case buildFailed(package: String, errors: [String], log: String)
    case noTestProduct(binPath: String)
    case listingFailed(command: String, output: String)
    case noTests(package: String)
    case noTestsMatched(filters: [String])
    case invalidFilter(String, reason: String)
    case invalidNode(String)
    case invalidShards(String)
    case unreadableTimings(path: String, reason: String)
    case unreadableReport(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case interrupted

    public var description: String {
        switch self {
        case .cannotStart(let command, let reason):
            "cannot start \(command): \(reason)"
        case .buildFailed(let package, let errors, let log):
            (["the tests of \(package) did not build:"] + errors.prefix(20).map { "  \($0)" } + [
                "full build log: \(log)"
            ])
            .joined(separator: "\n")
        case .noTestProduct(let binPath):
            "no test product (*PackageTests.xctest) in \(binPath); does the package have test targets?"
        case .listingFailed(let command, let output):
            "listing the tests failed (\(command)): \(output.split(separator: "\n").suffix(3).joined(separator: " / "))"
        case .noTests(let package):
            "\(package) has no tests: zero tests is an error, not a pass"
        case .noTestsMatched(let filters):
            "no test matches \(filters.map { "'\($0)'" }.joined(separator: ", ")): zero tests is an error, not a pass"
        case .invalidFilter(let filter, let reason):
            "--filter '\(filter)' is not a valid regular expression: \(reason)"
        case .invalidNode(let text):
            "--node '\(text)' must be I/N with 1 ≤ I ≤ N, for example 2/8"
        case .invalidShards(let text):
            "--shards '\(text)' must be a positive whole number or 'auto'"
        case .unreadableTimings(let path, let reason):
            "timings file \(path) cannot be read: \(reason)"
        case .unreadableReport(let path, let reason):
            "last run's report \(path) cannot be read: \(reason)"
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason)"
        case .interrupted:
            "interrupted: every test process was stopped and nothing was recorded"
        }
    }
}

extension TestRunError {
    /// `write`, a file that cannot be written said as `cannotWrite`.
    public static func writing<Output>(_ write: () throws(FileError) -> Output) throws(TestRunError) -> Output {
        do {
            return try write()
        } catch {
            switch error {
            case .cannotWrite(let path, let reason): throw .cannotWrite(path: path, reason: reason)
            }
        }
    }
}

extension TestRunError: ExitCoded {
    public var exitStatus: ExitStatus {
        switch self {
        case .buildFailed, .listingFailed, .cannotStart: .build
        case .noTests, .noTestsMatched, .noTestProduct: .noTests
        case .invalidFilter, .invalidNode, .invalidShards, .unreadableTimings, .unreadableReport, .cannotWrite: .usage
        case .interrupted: .interrupted
        }
    }
}
