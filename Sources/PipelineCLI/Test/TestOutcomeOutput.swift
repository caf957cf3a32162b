import Foundation
import TestCore
import TestRun

/// How a test outcome is printed.
enum TestOutcomeOutput {
    /// Prints the outcome as `pipeline test` does (the report on standard output, notes on standard
    /// error) and ends with its exit status: 1 when tests failed.
    static func emit(_ outcome: TestOutcome, json: Bool, node: Node) throws {
        switch outcome {
        case .nothingToRun(let reason):
            Console.out(reason.message)
        case .listed(let names):
            names.forEach(Console.out)
        case .planned(let shards, let description):
            json ? try Console.json(shards) : Console.out(description)
        case .built(let lines):
            Console.out(lines.trimmingCharacters(in: .newlines))
        case .hunted(let hunt):
            json ? try Console.json(hunt) : Console.out(hunt.render())
            if !hunt.passed { throw QuietExit(status: .testsFailed) }
        case .ran(let report, let findings, let coverage, let storeFailure):
            guard let report else {
                Console.error("Node \(node) ran no batch: the other nodes ran every one of them.")
                if let storeFailure { throw storeFailure }
                return
            }
            findings.render().forEach(Console.error)
            json ? try Console.json(report) : Console.out(report.render())
            if let coverage { Console.error(coverage.text()) }
            if let storeFailure { throw storeFailure }
            if !report.passed { throw QuietExit(status: .testsFailed) }
            if let shortfall = coverage?.shortfall { throw shortfall }
        }
    }
}
