import ArgumentParser
import Foundation
import GitChanges
import Orchestrator
import PipelineSpec
import ReferenceStore
import TestSharding

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
    var configuration = "debug"

    @Flag(help: "Use the test product already built.")
    var skipBuild = false

    @Option(name: .customLong("Xbuild"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("An extra argument for 'swift build' (repeat it: --Xbuild -Xswiftc --Xbuild -DCI).", valueName: "arg"))
    var buildArguments: [String] = []

    @Option(help: ArgumentHelp("How many shards run at once: a number, or 'auto' for one per core.", valueName: "n|auto"))
    var shards = "auto"

    @Option(help: ArgumentHelp("Run only part I of N of the suite, for N CI machines sharing one plan.", valueName: "I/N"))
    var node = "1/1"

    @Option(help: ArgumentHelp("Kill a test running longer than this (e.g. 90s, 10m).", valueName: "duration"))
    var timeout = "10m"

    @Option(help: "Run a failing test again up to this many times; one that then passes is flaky.")
    var retries = 0

    @Option(help: ArgumentHelp("Whether a flaky test fails the run: fail or pass.", valueName: "fail|pass"))
    var flaky = "fail"

    @Option(help: ArgumentHelp("Recorded test durations (read to plan, updated after the run). Default: <package>/.build/pipeline/timings.json.",
                               valueName: "path"))
    var timings: String?

    @Flag(help: "Do not update the timings file.")
    var noRecord = false

    @Option(help: ArgumentHelp("Write one JUnit XML report of the whole run here.", valueName: "path"))
    var junit: String?

    @Option(help: ArgumentHelp("Where the review page of failed snapshots goes (written when a snapshot failed). Default: <package>/.build/pipeline/snapshot-review.html.",
                               valueName: "path"))
    var review: String?

    @Option(help: ArgumentHelp("Run only tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var filter: [String] = []

    @Option(help: ArgumentHelp("Leave out tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var skip: [String] = []

    @Option(help: ArgumentHelp("Output kept per failing test (e.g. 64KiB).", valueName: "size"))
    var outputLimit = "1MiB"

    @Flag(help: "Run only the test targets the change can affect, through the package's target graph (the change: --base/--head/--merge-base, default the merge at HEAD).")
    var affected = false

    @OptionGroup var changeOptions: ChangeOptions

    @Flag(help: "List the selected tests and stop.")
    var list = false

    @Flag(help: "Print the shard plan with expected durations and stop.")
    var plan = false

    @Flag(help: "Print the report as JSON (see docs/json.md); progress still goes to standard error.")
    var json = false

    func run() async throws {
        let package = global.resolve(packagePath)
        var options = try runOptions()
        if affected {
            let changes = try ChangeDetector(repositoryPath: package.path, detectRenames: !changeOptions.noRenames)
                .changes(try changeOptions.comparison())
            let selection = try await AffectedTests.select(
                package: package, repository: try CommitHistory(repositoryPath: package.path).workTree,
                changedPaths: changes.files.flatMap(\.touchedPaths))
            selection.reasons.forEach { Console.error($0) }
            if let filters = selection.filters {
                guard !filters.isEmpty else { return Console.out("No test target is affected by the change; nothing to run.") }
                options.filters += filters
            }
        }
        let interactive = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
        let testRun = TestRun(
            settings: BuildSettings(packagePath: package, configuration: configuration,
                                    extraArguments: buildArguments, skipBuild: skipBuild),
            options: options, timingsFile: timings.map(global.resolve), record: !noRecord,
            snapshots: SnapshotCheck(package: package, local: LocalReferences.scan(package, isTest: NamePattern("*").matches),
                                     page: review.map(global.resolve)),
            junit: junit.map(global.resolve), interactive: interactive) { FileHandle.standardError.write(Data($0.utf8)) }
        Interrupts.install()
        if !skipBuild { Console.error("Building the tests of \(package.path) (\(configuration))…") }
        let prepared = try await testRun.prepare()
        if list { return prepared.tests.forEach { Console.out($0.name) } }
        if plan { return try showPlan(prepared.shards) }

        let (report, findings) = try await testRun.run(prepared)
        CIReport.publish(report, title: "pipeline test" + (options.node.count > 1 ? " (node \(options.node))" : ""))
        findings.render().forEach(Console.error)
        if json {
            try Console.json(report)
        } else {
            Console.out(report.render())
        }
        if !report.passed { throw QuietExit(status: .testsFailed) }
    }

    private func runOptions() throws -> TestRunOptions {
        guard let count = ShardCount(parsing: shards), count.resolved(cores: global.availableCores) > 0 else {
            throw TestRunError.invalidShards(shards)
        }
        guard let limit = Duration(parsingSpec: timeout), limit > .zero else {
            throw CLIFailure(status: .usage, message: "--timeout '\(timeout)' must be a positive duration such as 90s or 10m")
        }
        guard retries >= 0, retries <= 100 else {
            throw CLIFailure(status: .usage, message: "--retries \(retries) must be between 0 and 100")
        }
        guard flaky == "fail" || flaky == "pass" else {
            throw CLIFailure(status: .usage, message: "--flaky '\(flaky)' must be 'fail' or 'pass'")
        }
        guard let output = ByteCount(parsing: outputLimit), output.bytes > 0 else {
            throw CLIFailure(status: .usage, message: "--output-limit '\(outputLimit)' must be a size such as 64KiB or 1MiB")
        }
        return TestRunOptions(shards: count.resolved(cores: global.availableCores), node: try Node(parsing: node),
                              limits: RunLimits(timeout: limit, outputLimit: Int(output.bytes)), retries: retries,
                              flakyFails: flaky == "fail", filters: filter, skips: skip)
    }

    private func showPlan(_ shards: [Shard]) throws {
        if json {
            try Console.json(shards)
            return
        }
        for shard in shards {
            Console.out("shard \(shard.index): \(shard.tests.count) tests, expected \(String(format: "%.2f", shard.expectedSeconds)) s")
            shard.tests.forEach { Console.out("  \($0.name)") }
        }
    }
}
