import ArgumentParser
import Foundation
import PipelineSpec
import TestRun

struct CoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Coverage reports from several CI machines' profiles.",
        subcommands: [Merge.self]
    )

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge the coverage profiles of several nodes into one set of reports.",
            discussion: """
                For a static split (--node I/N without a queue) whose jobs carry artifacts: each node's \
                'pipeline test --coverage' leaves <coverage-dir>/coverage.profdata; this merges them and \
                writes lcov.info, cobertura.xml and summary.json for the package, whose tests it builds \
                with coverage first (a no-op when they are built). Exit status 9 when a profile tool \
                fails or coverage is below --coverage-min-lines.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The nodes' coverage.profdata files.", valueName: "file"))
        var files: [String]

        @Option(name: .shortAndLong, help: ArgumentHelp("Where the merged reports go.", valueName: "dir"))
        var output: String

        @Option(help: ArgumentHelp("The package tested.", valueName: "path"))
        var packagePath = "."

        @Flag(help: "Use the test product already built (with coverage) instead of building it.")
        var skipBuild = false

        @Option(
            help: ArgumentHelp(
                "Also report source files whose path matches this regular expression (repeatable).",
                valueName: "regex"))
        var coverageInclude: [String] = []

        @Option(
            help: ArgumentHelp(
                "Leave out source files whose path matches this regular expression (repeatable).", valueName: "regex"))
        var coverageExclude: [String] = []

        @Option(help: ArgumentHelp("Exit 9 when line coverage is below this share (e.g. 80%).", valueName: "percent"))
        var coverageMinLines: Percentage?

        func run() async throws {
            let request = CoverageRequest(
                output: global.resolve(output), include: coverageInclude, exclude: coverageExclude,
                minLines: coverageMinLines.map { $0.share * 100 })
            let report = try await request.merge(
                files.map(global.resolve), package: global.resolve(packagePath), skipBuild: skipBuild)
            Console.out(report.text())
            if let shortfall = report.shortfall { throw shortfall }
        }
    }
}
