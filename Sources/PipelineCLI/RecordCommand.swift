import ArgumentParser
import Foundation
import Orchestrator
import PipelineSpec
import ReferenceStore
import TestSharding

extension RefsCommand {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-record the named tests' references, show what changed, and optionally push them to feature.",
            discussion: """
            Developers, when a change to a view is meant to change its snapshots: instead of flipping \
            record = true in the test code, 'pipeline refs record BadgeViewTests --push' runs exactly \
            the tests of BadgeViewTests.swift with SNAPSHOT_TESTING_RECORD=all, prints each reference \
            as new, changed, unchanged or removed (references no test asserts any more are deleted), \
            writes a review page of old against new, and with --push uploads them to feature. If a test \
            fails for another reason, or writes another test's reference, every reference is put back \
            as it was and the command exits 1.
            """
        )

        @OptionGroup var options: ReferenceOptions

        @Argument(help: ArgumentHelp("The test files whose references to record (such as BadgeViewTests).", valueName: "test"))
        var tests: [String]

        @Flag(help: "Then upload the recorded references to feature (deleting what feature has of them and the checkout no longer does).")
        var push = false

        @Option(help: ArgumentHelp("The package whose tests run.", valueName: "path"))
        var packagePath = "."

        @Option(help: ArgumentHelp("Kill a test running longer than this (e.g. 90s, 10m).", valueName: "duration"))
        var timeout = "10m"

        @Option(help: ArgumentHelp("Where the review page of old against new goes. Default: <package>/.build/pipeline/record-review.html.",
                                   valueName: "path"))
        var review: String?

        func run() async throws {
            guard let limit = Duration(parsingSpec: timeout), limit > .zero else {
                throw CLIFailure(status: .usage, message: "--timeout '\(timeout)' must be a positive duration such as 90s or 10m")
            }
            let (transfers, _) = try options.context()
            let package = options.global.resolve(packagePath)
            let recorder = ReferenceRecorder(
                package: package, local: transfers.stores.local(testPattern: transfers.testPattern),
                settings: BuildSettings(packagePath: package),
                options: TestRunOptions(shards: options.global.availableCores, limits: RunLimits(timeout: limit)),
                page: review.map(options.global.resolve)) { FileHandle.standardError.write(Data($0.utf8)) }
            Interrupts.install()
            Console.error("Building the tests of \(package.path)…")
            let report = try await recorder.record(tests)
            if options.json && !push { return try Console.json(report) }
            if !options.json { Console.out(report.render().joined(separator: "\n")) }
            guard push else { return }
            let pushed = try await transfers.push(tests: tests, to: [.feature], commit: options.headCommit(), prune: true,
                                                  dryRun: options.dryRun)
            guard options.json else { return try options.finish(pushed) }
            try Console.json(RecordAndPush(record: report, push: pushed))
            try options.failIfIncomplete(pushed)
        }

        struct RecordAndPush: Encodable {
            let record: RecordReport
            let push: [TransferReport]
        }
    }
}
