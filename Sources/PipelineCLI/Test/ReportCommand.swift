import ArgumentParser
import Foundation
import PipelineSpec

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Merge the reports of a shared run's nodes into one, checking that every test ran exactly once.",
        discussion: """
            Reads the plan and every batch's result from the run's folder beside the timings \
            (<store>/pipeline-runs/RUN/), and prints one summary, or JSON (docs/json.md), and writes one \
            JUnit file. Exit status 1 when a test failed, no node reported a test, or a test ran twice; \
            2 when there is no such run.
            """
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var shared: SharedRunOptions

    @Option(help: ArgumentHelp("The package tested (where its default timings file is).", valueName: "path"))
    var packagePath = "."

    @Option(help: ArgumentHelp("Write the merged JUnit XML report here.", valueName: "path"))
    var junit: String?

    @Flag(help: "Print the merged report as JSON (see docs/json.md).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Where the nodes' --reuse-verdicts keep verdicts: a run a node found verified reports that verdict; "
                + "a passing run whose nodes filed one key keeps its verdict there (docs/ci.md, \"Tested once\").",
            valueName: "location"))
    var reuseVerdicts: StoreAddress?

    @OptionGroup var coverage: CoverageOptions

    @Flag(help: "With --coverage: report the nodes' coverage even when some node's never reached the store.")
    var allowPartial = false

    @Flag(help: "With --coverage: use the test product already built (with coverage) instead of building it.")
    var skipBuild = false

    func validate() throws {
        try coverage.check(measured: coverage.coverage)
        guard shared.queue != nil else {
            throw ValidationError("name the shared run: --queue RUN (or --queue alone in CI)")
        }
    }

    func run() async throws {
        let report = try await shared.settings(global).mergedReport(
            package: global.resolve(packagePath), junit: junit.map(global.resolve), verdicts: reuseVerdicts,
            write: Console.progress)
        json ? try Console.json(report) : Console.out(report.render())
        if let request = coverage.request(global, measured: coverage.coverage) {
            let merged = try await shared.settings(global).mergedCoverage(
                package: global.resolve(packagePath), request: request, allowPartial: allowPartial,
                skipBuild: skipBuild)
            Console.error(merged.text())
            if let shortfall = merged.shortfall, report.passed { throw shortfall }
        }
        if !report.passed { throw QuietExit(status: .testsFailed) }
    }
}
