import ArgumentParser
import Foundation
import References
import TestCore
import TestRun
import XcodeFlow

extension RefsCommand {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record",
            abstract: "Re-record the named tests' references, show what changed, and optionally push them to feature.",
            discussion: """
                Developers, when a change to a view is meant to change its snapshots: instead of flipping \
                record = true in the test code, 'pipeline refs record BadgeViewTests --push' runs exactly \
                the tests of BadgeViewTests.swift with SNAPSHOT_TESTING_RECORD=all, prints each reference \
                as new, changed, unchanged or removed (references no test asserts any more are deleted), \
                writes a review page of old against new, and with --push uploads them to feature. If a test \
                fails for another reason, or writes another test's reference, every reference is put back \
                as it was and the command exits 1. In an Xcode project, --xcode runs them with xcodebuild \
                (--scheme to build, or --xctestrun built already; --destination) as \
                -only-testing: arguments with TEST_RUNNER_SNAPSHOT_TESTING_RECORD=all.
                """
        )

        @OptionGroup var options: ReferenceOptions

        @Argument(
            help: ArgumentHelp("The test files whose references to record (such as BadgeViewTests).", valueName: "test")
        )
        var tests: [String] = []

        @Flag(help: "Every test file that asserts snapshots (a team's first recording).")
        var all = false

        @Flag(
            help:
                "Then upload the recorded references to feature (deleting what feature has of them and the checkout no longer does)."
        )
        var push = false

        @Option(help: ArgumentHelp("The package whose tests run.", valueName: "path"))
        var packagePath = "."

        @Option(
            help: ArgumentHelp("Kill a test running longer than this (e.g. 90s, 10m).", valueName: "duration"),
            transform: duration("--timeout"))
        var timeout = Duration.seconds(600)

        @Option(
            help: ArgumentHelp(
                "Where the review page of old against new goes. Default: <package>/.build/pipeline/record-review.html.",
                valueName: "path"))
        var review: String?

        @Flag(help: "Run the tests with xcodebuild, on a simulator or device (--scheme or --xctestrun, --destination).")
        var xcode = false

        @Option(help: ArgumentHelp("With --xcode: the scheme to build for testing.", valueName: "scheme"))
        var scheme: String?

        @Option(help: ArgumentHelp("With --xcode --scheme: the project (.xcodeproj) to build.", valueName: "path"))
        var project: String?

        @Option(help: ArgumentHelp("With --xcode --scheme: the workspace (.xcworkspace) to build.", valueName: "path"))
        var workspace: String?

        @Option(
            help: ArgumentHelp(
                "With --xcode: the .xctestrun build-for-testing wrote (instead of --scheme).", valueName: "file"))
        var xctestrun: String?

        @Option(
            help: ArgumentHelp(
                "With --xcode: xcodebuild's -destination (default: PIPELINE_XCODE_DESTINATION).",
                valueName: "destination"))
        var destination: String?

        /// What xcodebuild tests and where, as the flags say; nil without --xcode.
        private func xcodebuild() throws -> (products: XcodeProducts, destination: String)? {
            guard xcode else { return nil }
            let destination = try xcodeDestination(destination, for: "--xcode")
            let global = options.global
            let products: XcodeProducts =
                if let xctestrun {
                    .xctestrun(global.resolve(xctestrun))
                } else {
                    .scheme(
                        scheme ?? "",
                        container: project.map { ["-project", global.resolve($0).path] }
                            ?? workspace.map { ["-workspace", global.resolve($0).path] } ?? [])
                }
            return (products, destination)
        }

        func validate() throws {
            if xcode, (scheme == nil) == (xctestrun == nil) {
                throw ValidationError("--xcode needs one of --scheme (to build) or --xctestrun (built already)")
            }
            if !xcode, [scheme, project, workspace, xctestrun, destination].contains(where: { $0 != nil }) {
                throw ValidationError("--scheme, --project, --workspace, --xctestrun and --destination go with --xcode")
            }
            if project != nil, workspace != nil { throw ValidationError("give --project or --workspace, not both") }
            if all == !tests.isEmpty { throw ValidationError("name the tests to record, or pass --all") }
            guard timeout > .zero else {
                throw ValidationError("--timeout must be a positive duration such as 90s or 10m")
            }
        }

        func run() async throws {
            let package = options.global.resolve(packagePath)
            let context = try await options.context()
            let (report, pushed) = try await TestFlow.record(
                tests, all: all, in: context, package: package, timeout: timeout, cores: options.global.availableCores,
                review: review.map(options.global.resolve), push: push, dryRun: options.dryRun,
                through: try xcodebuild().map {
                    XcodeTests.recordingThroughXcodebuild(products: $0.products, destination: $0.destination)
                }
            ) { Console.progress($0) }
            guard let pushed else {
                return options.json ? try Console.json(report) : Console.out(report.render().joined(separator: "\n"))
            }
            guard options.json else {
                Console.out(report.render().joined(separator: "\n"))
                return try options.finish(pushed)
            }
            try Console.json(RecordAndPush(record: report, push: pushed))
            try TransferReport.requireComplete(pushed)
        }

        /// The recorder's report (`RecordReport`) and the push's.
        struct RecordAndPush<Record: Encodable>: Encodable {
            let record: Record
            let push: [TransferReport]
        }
    }
}
