import ArgumentParser
import CachedBuilds
import Foundation
import PipelineSpec
import TestRun

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run a Swift package's tests in balanced parallel shards.",
        discussion: """
            Builds the tests once, then runs the built test product directly in parallel processes, \
            shards balanced by the durations recorded on earlier runs. A hung test is killed after \
            --timeout, a crashing test is named and the rest of its shard still runs, failures are \
            retried with --retries and reported flaky if they then pass. Every listed test must run \
            exactly once. Exit status 1 when a test failed, 7 when no test was selected.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The package whose tests run.", valueName: "path"))
    var packagePath = "."

    @Option(name: [.customShort("c"), .long], help: "Build configuration: debug or release.")
    var configuration = BuildConfiguration.debug

    @Flag(help: "Use the test product already built.")
    var skipBuild = false

    @Option(
        help: ArgumentHelp(
            "The build system: native or swiftbuild (Swift Build). Default: the toolchain's own, as 'swift build "
                + "--help' says it.", valueName: "name"))
    var buildSystem: BuildSystemName?

    @Option(
        name: .customLong("Xbuild"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "An extra argument for 'swift build' (repeat it: --Xbuild -Xswiftc --Xbuild -DCI).", valueName: "arg"))
    var buildArguments: [String] = []

    @Option(
        help: ArgumentHelp(
            "Keep builds in the team's store, a folder or s3://bucket/prefix: the nearest ancestor commit's build "
                + "is restored before building (files recompiled by content), this commit's kept after; a node of a CI "
                + "run (--node, --queue) runs the test products its build job kept (docs/ci.md#build-cache).",
            valueName: "location"))
    var buildCache: StoreAddress?

    @Option(
        help: ArgumentHelp(
            "A folder or s3://bucket/prefix where passing runs keep their verdict, keyed by everything that decides "
                + "it (the git tree, toolchain and build, pins, selection, the references compared against): a run "
                + "whose key passed already runs nothing and reports that run (docs/ci.md, \"Tested once\").",
            valueName: "location"))
    var reuseVerdicts: StoreAddress?

    @Flag(help: "With --reuse-verdicts: run the tests whatever was verified (a passing run still keeps its verdict).")
    var noReuse = false

    @Flag(help: "With --reuse-verdicts: a verdict of a run with flaky, retried or quarantined tests may stand too.")
    var reuseFlaky = false

    @Option(
        help: ArgumentHelp(
            "With --reuse-verdicts: a verdict composed on this many others since the last whole-suite run does not "
                + "stand; the whole suite runs.",
            valueName: "n"))
    var fullEvery: Int?

    @Flag(
        help: ArgumentHelp(
            "Build the tests, keep the build in --build-cache (and, in a CI run, the test products for its nodes), "
                + "and run nothing."))
    var buildOnly = false

    @OptionGroup var options: TestOptions

    @OptionGroup var coverage: CoverageOptions

    @OptionGroup var shared: SharedRunOptions

    @OptionGroup var environmentOption: EnvironmentOption

    @Flag(help: "Leave the recorded durations as they are (they still plan the shards).")
    var noUpdateTimings = false

    /// The flag's old name, kept for scripts: "record" now means recording references only.
    @Flag(name: .customLong("no-record"), help: .hidden)
    var noRecord = false

    @Option(help: ArgumentHelp("Write one JUnit XML report of the whole run here.", valueName: "path"))
    var junit: String?

    @Option(
        help: ArgumentHelp(
            "Where the review page of failed snapshots goes (written when a snapshot failed). "
                + "Default: <package>/.build/pipeline/snapshot-review.html.", valueName: "path"))
    var review: String?

    @Flag(
        help: ArgumentHelp(
            "Run only the test targets the change can affect, through the package's target graph "
                + "(the change: --base/--head/--merge-base, default the merge at HEAD)."))
    var affected = false

    @Flag(
        help: ArgumentHelp(
            "Run only the suites the change can reach, by the impact map kept beside the timings: the change from "
                + "the map's commit (or --base) to the working tree. Says why each suite runs (docs/test-runner.md#impact)."
        ))
    var impacted = false

    @Flag(
        help: ArgumentHelp(
            "As --impacted, but when the store that keeps the impact map cannot be reached, run every test "
                + "instead of stopping (exit 5)."))
    var impactedOrAll = false

    @Flag(
        help: ArgumentHelp(
            "Record what each suite executes (one process and coverage profile per suite) and, on Linux, which "
                + "files it reads (PIPELINE_TRACE_READS=0 to not trace), and keep it beside the timings as the "
                + "impact map --impacted reads; measures coverage too."))
    var recordImpact = false

    @Flag(help: "With --impacted: say which suites would run and why, print the plan, and stop.")
    var dryRun = false

    @OptionGroup var changeOptions: ChangeOptions

    @Flag(help: "List the selected tests and stop.")
    var list = false

    @Flag(help: "Print the shard plan with expected durations and stop.")
    var plan = false

    @Flag(help: "Print the report as JSON (see docs/json.md); progress still goes to standard error.")
    var json = false

    func validate() throws {
        if reuseVerdicts == nil, noReuse || reuseFlaky || fullEvery != nil {
            throw ValidationError("--no-reuse, --reuse-flaky and --full-every go with --reuse-verdicts LOCATION")
        }
        if let fullEvery, fullEvery < 1 {
            throw ValidationError("--full-every takes a whole number above 0, not \(fullEvery)")
        }
        try coverage.check(measured: coverage.coverage || recordImpact)
        if buildOnly, skipBuild || list || plan || dryRun {
            throw ValidationError("--build-only builds and runs nothing: it cannot take --skip-build, --list or --plan")
        }
        if buildSystem != nil, buildArguments.contains(where: { $0.hasPrefix("--build-system") }) {
            throw ValidationError("--build-system names the build system once: drop '--Xbuild --build-system'")
        }
        if buildCache != nil, skipBuild {
            throw ValidationError("--build-cache keeps and restores builds: it cannot take --skip-build")
        }
        if impacted, impactedOrAll {
            throw ValidationError("--impacted-or-all is --impacted with a fallback: give one")
        }
        if dryRun, !impacted, !impactedOrAll {
            throw ValidationError("--dry-run goes with --impacted (use --plan for the shard plan)")
        }
        if impacted || impactedOrAll, affected {
            throw ValidationError("--impacted and --affected are two ways to select: give one")
        }
        if impacted || impactedOrAll, recordImpact {
            throw ValidationError("--record-impact runs every suite; it cannot take --impacted")
        }
    }

    func run() async throws {
        let write: @Sendable (String) -> Void = { Console.progress($0) }
        let shared = shared.settings(global)
        let selection: TestSelection =
            affected ? .affected : impactedOrAll ? .impactedOrAll : impacted ? .impacted : .all
        let request = TestRequest(
            package: global.resolve(packagePath), shared: shared, cores: global.availableCores,
            configuration: configuration, skipBuild: skipBuild, buildSystem: buildSystem,
            buildArguments: buildArguments,
            buildCache: buildCache.map(BuildCacheUse.init),
            mode: buildOnly ? .buildOnly : options.mode(else: list ? .list : plan || dryRun ? .plan : .run),
            limits: options.limits,
            quarantineFile: options.quarantine(global), updatesTimings: !(noUpdateTimings || noRecord),
            junit: junit.map(global.resolve), review: review.map(global.resolve),
            coverage: coverage.request(global, measured: coverage.coverage || (recordImpact && coverage.reported)),
            mapsImpact: recordImpact,
            selection: selection, changes: .query(changeOptions.query),
            impactBase: selection.usesImpact ? changeOptions.base : nil,
            stores: try await SpecStores.locate(for: shared, environment: environmentOption.environment, write: write),
            verdicts: reuseVerdicts.map {
                VerdictSettings(read: [$0], keep: $0, reuse: !noReuse, reuseShaky: reuseFlaky, fullEvery: fullEvery)
            }, write: write)
        try TestOutcomeOutput.emit(await request.perform(), json: json, node: options.node)
    }
}
