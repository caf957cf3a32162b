import ArgumentParser
import Foundation
import GitChanges
import ImageDiff
import Orchestrator
import PipelineSpec
import ReferenceStore
import SharedRun
import TestSharding

/// Runs the `pipeline` command line and exits with a documented status.
public enum PipelineMain {
    public static func run() async -> Never {
        let status = await execute(Array(CommandLine.arguments.dropFirst()))
        exit(status.rawValue)
    }

    /// Parses `arguments`, runs the command, and reports any error as one message and an exit status.
    static func execute(_ arguments: [String]) async -> ExitStatus {
        do {
            var command = try PipelineCommand.parseAsRoot(SharedRunOptions.expanded(LeadingOptions.hoisted(arguments)))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return .success
        } catch {
            return report(error)
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
        case .noReferences, .incomplete: .storage
        case .developChanged: .conflict
        case .recordingFailed: .testsFailed
        }
    }

    private static func report(_ error: Error) -> ExitStatus {
        switch error {
        case let exit as QuietExit:
            return exit.status
        case let failure as CLIFailure:
            Console.error("error: \(failure.message)")
            return failure.status
        case SpecError.invalid(let diagnostics):
            diagnostics.forEach { Console.error($0.description) }
            return .spec
        case let error as GitError:
            Console.error("error: \(error)")
            return .git
        case let error as TestRunError:
            Console.error("error: \(error)")
            return status(of: error)
        case let error as ImageError:
            Console.error("error: \(error)")
            return .usage
        case let error as StoreError:
            Console.error("error: \(error)")
            return .storage
        case let error as ReferenceError:
            Console.error("error: \(error)")
            return status(of: error)
        case let error as QueueError:
            Console.error("error: \(error)")
            if case .unreadable = error { return .storage }
            return .usage
        case let error as SpecError:
            Console.error("error: \(error)")
            if case .unknownPipeline = error { return .usage }
            return .spec
        case let error as QuarantineEditor.Failure:
            Console.error("error: \(error)")
            if case .alreadyQuarantined = error { return .usage }
            return .spec
        default:
            // Help, --version, and argument-parsing errors come from the argument parser.
            let code = PipelineCommand.exitCode(for: error)
            let message = PipelineCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Console.out(message) }
                return .success
            }
            Console.error(message)
            return code == .validationFailure ? .usage : .internalError
        }
    }
}
