import ArgumentParser
import Foundation
import TestSharding

struct TimingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timings",
        abstract: "Work with recorded test durations (the timings files of 'pipeline test').",
        subcommands: [Merge.self]
    )

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the timings files of several runs or CI machines into one.",
            discussion: "Each test's mean is weighted by its samples; the result does not depend on the files' order when two are merged."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Timings files to merge.", valueName: "file"))
        var files: [String]

        @Option(name: [.short, .long], help: ArgumentHelp("Where to write the merged file (it may be one of the inputs).", valueName: "path"))
        var output: String

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one timings file to merge") }
        }

        func run() throws {
            var merged = Timings()
            for file in files {
                let url = global.resolve(file)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw TestRunError.unreadableTimings(path: url.path, reason: "no such file")
                }
                merged.merge(try Timings.load(url))
            }
            try merged.save(global.resolve(output))
            Console.error("merged \(files.count) file\(files.count == 1 ? "" : "s"): \(merged.tests.count) tests")
        }
    }
}
