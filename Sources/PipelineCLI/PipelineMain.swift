import ArgumentParser
import Foundation
import PipelineCore
import PipelineSpec

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
        default:
            if let (status, message) = ExitStatus.classify(error) {
                Console.error("error: \(message)")
                return status
            }
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
