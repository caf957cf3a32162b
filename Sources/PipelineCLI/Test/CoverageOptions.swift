import ArgumentParser
import Foundation
import PipelineSpec
import TestRun

/// `pipeline test --coverage` and where its reports go.
struct CoverageOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Measure code coverage: the tests are built instrumented and each process's profile is merged "
                + "into lcov.info, cobertura.xml and summary.json (docs/test-runner.md#coverage)."))
    var coverage = false

    @Option(
        help: ArgumentHelp(
            "Where the coverage reports go (default <package>/.build/pipeline/coverage).", valueName: "dir"))
    var coverageDir: String?

    @Option(
        help: ArgumentHelp(
            "Also report source files whose path (relative to the package) matches this regular expression; "
                + "tests, .build and dependencies are left out otherwise (repeatable).", valueName: "regex"))
    var coverageInclude: [String] = []

    @Option(
        help: ArgumentHelp(
            "Leave out source files whose path matches this regular expression (repeatable).", valueName: "regex"))
    var coverageExclude: [String] = []

    @Option(
        help: ArgumentHelp("Exit 9 when line coverage is below this share (e.g. 80%).", valueName: "percent"))
    var coverageMinLines: Percentage?

    /// Refuses the report options when nothing measures coverage: `measured` is --coverage, or whatever
    /// else the command measures it for (--record-impact).
    func check(measured: Bool) throws {
        if !measured, reported {
            throw ValidationError(
                "--coverage-dir, --coverage-include, --coverage-exclude and --coverage-min-lines need --coverage (or --record-impact)"
            )
        }
    }

    /// Whether an option asks for a coverage report.
    var reported: Bool {
        coverageDir != nil || !coverageInclude.isEmpty || !coverageExclude.isEmpty || coverageMinLines != nil
    }

    /// The coverage asked for; nil unless `measured`.
    func request(_ global: GlobalOptions, measured: Bool) -> CoverageRequest? {
        guard measured else { return nil }
        return CoverageRequest(
            output: coverageDir.map(global.resolve), include: coverageInclude, exclude: coverageExclude,
            minLines: coverageMinLines.map { $0.share * 100 })
    }
}
