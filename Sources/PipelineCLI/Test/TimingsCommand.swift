import ArgumentParser
import Foundation
import PipelineCore
import PipelineSpec
import TestRun

struct TimingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timings",
        abstract: "Work with recorded test durations (the timings files of 'pipeline test').",
        subcommands: [Merge.self]
    )

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge the timings files of several runs or CI machines into one.",
            discussion: """
                Each test's mean is weighted by its samples; the result does not depend on the files' order when two are merged. \
                With -o s3://bucket/prefix (or feature/develop, a store of the spec) the files are folded into the timings kept \
                there, by a conditional write: how a team moves its timings from a CI cache into the store.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Timings files to merge.", valueName: "file"))
        var files: [String]

        @Option(
            name: [.short, .long],
            help: ArgumentHelp(
                "Where to write the merged file (it may be one of the inputs), "
                    + "or s3://bucket/prefix, feature or develop to fold them into the timings kept there.",
                valueName: "location"),
            transform: timingsAddress("--output"))
        var output: TimingsAddress

        @Option(
            help: ArgumentHelp(
                "The pipeline whose references feature/develop and S3 settings come from.", valueName: "name"))
        var pipeline: String?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one timings file to merge") }
        }

        func run() async throws {
            let settings = RunSharing(
                timings: output, pipeline: pipeline, workingDirectory: global.workingDirectory)
            let tests = try await settings.mergeTimings(files.map(global.resolve))
            Console.error("merged \(counted(files.count, "file")): \(counted(tests, "test"))")
        }
    }
}
