import ArgumentParser
import Foundation
import PipelineSpec
import TestSharding

struct TimingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timings",
        abstract: "Work with recorded test durations (the timings files of 'pipeline test').",
        subcommands: [Merge.self]
    )

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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

        @Option(name: [.short, .long], help: ArgumentHelp("Where to write the merged file (it may be one of the inputs), "
                                                            + "or s3://bucket/prefix, feature or develop to fold them into the timings kept there.",
                                                            valueName: "location"))
        var output: String

        @Option(help: ArgumentHelp("The pipeline whose references feature/develop and S3 settings come from.", valueName: "name"))
        var pipeline: String?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one timings file to merge") }
        }

        func run() async throws {
            var merged = Timings()
            for file in files {
                let url = global.resolve(file)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw TestRunError.unreadableTimings(path: url.path, reason: "no such file")
                }
                merged.merge(try Timings.load(url))
            }
            if case .file = TimingsLocation(parsing: output) {
                try merged.save(global.resolve(output))
            } else {
                let folded = merged
                try await SharedRunOptions.place(output, pipeline: pipeline, global, package: global.workingDirectory)
                    .timings.fold { $0.merge(folded) }
            }
            Console.error("merged \(files.count) file\(files.count == 1 ? "" : "s"): \(merged.tests.count) tests")
        }
    }
}
