import ArgumentParser
import Foundation
import GitChanges
import Orchestrator
import PipelineSpec
import ReferenceStore
import SharedRun
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

    @OptionGroup var flags: TestRunFlags

    @OptionGroup var shared: SharedRunOptions

    @Flag(help: "Do not update the recorded durations.")
    var noRecord = false

    @Option(help: ArgumentHelp("Write one JUnit XML report of the whole run here.", valueName: "path"))
    var junit: String?

    @Option(help: ArgumentHelp("Where the review page of failed snapshots goes (written when a snapshot failed). Default: <package>/.build/pipeline/snapshot-review.html.",
                               valueName: "path"))
    var review: String?

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
        var options = try flags.runOptions(cores: global.availableCores)
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
        if shared.queue != nil, flags.failed || flags.repeatCount != nil {
            throw CLIFailure(status: .usage, message: "--\(flags.failed ? "failed" : "repeat") runs on one machine; it cannot join a --queue")
        }
        let place = try shared.place(global, package: package)
        // With the timings in a store, a CI run keeps each node's report there for --failed.
        let keptInRun = shared.keptInRun()
        if flags.failed {
            let (last, origin) = try await TestRun.lastRun(package: package, place: place, run: keptInRun, node: options.node)
            guard !last.notPassed.isEmpty else {
                return Console.out("The last run (\(origin): \(last.summaryLine)) left no test failing: nothing to run.")
            }
            options.only = Set(last.notPassed)
        }
        let interactive = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
        let queue = try shared.run().map { try flags.queue($0, at: place, node: options.node) }
        // A static split over shared timings needs every node to plan from the same ones: they are
        // pinned in the CI run's folder.
        let pin = try queue ?? (options.node.count > 1 && shared.timings != nil
            ? SharedRunOptions.ciRun().map { try place.queue(run: $0, node: options.node) } : nil)
        var testRun = try TestRun(
            settings: BuildSettings(packagePath: package, configuration: configuration,
                                    extraArguments: buildArguments, skipBuild: skipBuild),
            options: options, timings: place, record: !noRecord,
            snapshots: SnapshotCheck(package: package, local: LocalReferences.scan(package, isTest: NamePattern("*").matches),
                                     page: review.map(global.resolve)),
            junit: junit.map(global.resolve), quarantine: try flags.quarantine(package: package, global: global),
            interactive: interactive) { FileHandle.standardError.write(Data($0.utf8)) }
        testRun.keptInRun = keptInRun
        testRun.flakeThreshold = try flags.flakeShare()
        Interrupts.install()
        if !skipBuild { Console.error("Building the tests of \(package.path) (\(configuration))…") }
        let prepared = try await testRun.prepare(pinningTo: pin)
        if list { return prepared.tests.forEach { Console.out($0.name) } }
        if plan {
            let shards = testRun.plan(prepared, queue: queue)
            return json ? try Console.json(shards) : Console.out(testRun.describe(shards, queue: queue))
        }
        if let times = flags.repeatCount {
            let hunt = try await testRun.hunt(prepared, times: times, untilFailure: flags.untilFailure)
            json ? try Console.json(hunt) : Console.out(hunt.render())
            if !hunt.passed { throw QuietExit(status: .testsFailed) }
            return
        }

        guard let queue else {
            let (report, findings) = try await testRun.run(prepared)
            return try publish(report, findings, node: options.node)
        }
        let outcome = try await testRun.run(prepared, queue: queue)
        if let report = outcome.report {
            try publish(report, outcome.findings, node: options.node, failure: outcome.storeFailure)
        } else {
            Console.error("Node \(options.node) ran no batch: the other nodes ran every one of them.")
        }
        if let failure = outcome.storeFailure { throw failure }
    }

    /// Prints the report (annotations, summary or JSON); a failed test fails the command unless a
    /// store failure, thrown after, decides the status.
    private func publish(_ report: TestReport, _ findings: SnapshotFindings, node: Node, failure: (any Error)? = nil) throws {
        CIReport.publish(report, title: "pipeline test" + (node.count > 1 ? " (node \(node))" : ""))
        findings.render().forEach(Console.error)
        if json {
            try Console.json(report)
        } else {
            Console.out(report.render())
        }
        if !report.passed, failure == nil { throw QuietExit(status: .testsFailed) }
    }
}
