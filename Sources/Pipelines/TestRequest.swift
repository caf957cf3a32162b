import Coverage
import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore
import References
import SharedRun
import TestSharding

/// This machine's part of a suite split across CI machines (`--node I/N`).
public typealias Node = TestSharding.Node

/// Everything `pipeline test` is asked to do, with its values checked and typed.
public struct TestRequest: Sendable {
    /// What to do once the tests are built and selected.
    public enum Mode: Sendable {
        /// Run them (the default).
        case run
        /// List the selected tests.
        case list
        /// Print the shard (or batch) plan.
        case plan
        /// Run them `times` times in fresh processes, for their failure rates.
        case hunt(times: Int, untilFailure: Bool)

        /// Whether the tests run once, for a report (coverage is measured only then).
        var runs: Bool {
            if case .run = self { true } else { false }
        }
    }

    public var package: URL
    public var configuration: BuildConfiguration = .debug
    public var skipBuild = false
    public var buildArguments: [String] = []
    public var mode: Mode = .run
    public var shards: ShardCount = .auto
    public var cores: Int
    public var node: Node = .whole
    public var timeout: Duration = .seconds(600)
    public var retries = 0
    public var maxRetried: Int?
    public var flaky: FlakyPolicy = .fail
    public var outputLimit = ByteCount(1 << 20)
    public var filters: [String] = []
    public var skips: [String] = []
    /// Run only what the last run left failing.
    public var failedOnly = false
    /// Tests flaky or failing in this share of their recent runs are named after the run.
    public var flakeThreshold = 0.1
    /// The quarantine file; nil looks for `pipelines/quarantine.yml` around the package.
    public var quarantineFile: (url: URL, display: String)?
    /// Where the timings are kept, and the shared run to join.
    public var shared: SharedRunSettings
    public var queueLease: Duration = .seconds(120)
    public var clockSkew: Duration = .seconds(60)
    public var updatesTimings = true
    public var junit: URL?
    public var review: URL?
    /// Coverage to measure and where to write it (`--coverage`); nil measures none.
    public var coverage: CoverageRequest?
    /// Record what each suite executed, beside the timings (`--record-impact`; measures coverage).
    public var recordImpact = false
    /// Run only the suites the change can reach (`--impacted`), from the map's commit or `impactBase`.
    public var impacted = false
    /// With `impacted`: a store that cannot be reached runs every test (`--impacted-or-all`), not exit 5.
    public var impactedOrAll = false
    public var impactBase: String?
    /// Only the test targets the change can affect (`--affected`).
    public var affected: ChangeQuery?
    public var interactive = CIEnvironment.isInteractive
    /// Progress and notes, for standard error.
    public var write: @Sendable (String) -> Void

    public init(package: URL, shared: SharedRunSettings, cores: Int, write: @escaping @Sendable (String) -> Void) {
        self.package = package
        self.shared = shared
        self.cores = cores
        self.write = write
    }
}

/// What `pipeline test` did.
public enum TestOutcome: Sendable {
    /// Nothing was run, and why (no affected target, nothing left failing).
    case nothingToRun(String)
    /// The selected tests' names (`--list`).
    case listed([String])
    /// The plan (`--plan`): the shards or batches, and their description for people.
    case planned([Shard], description: String)
    /// A flake hunt's report (`--repeat`).
    case hunted(RepeatReport)
    /// A run's report (nil when the other nodes of a shared run ran every batch), its snapshot
    /// findings, its coverage (when measured), and the store error that ended a shared run's claiming.
    case ran(TestReport?, SnapshotFindings, coverage: CoverageReport?, storeFailure: (any Error)?)
}

extension TestRequest {
    /// Builds, selects and runs (or lists, plans, hunts) as asked; a run's results also go where the
    /// CI shows them.
    public func perform() async throws -> TestOutcome {
        if recordImpact, node.count > 1 || shared.queue != nil {
            throw RequestError(
                "--record-impact records the whole suite on one machine; it cannot take --node or --queue")
        }
        let asked = recordImpact ? (coverage ?? CoverageRequest()) : coverage
        let coverageSettings = mode.runs ? try asked?.settings(package: package, node: node) : nil
        var options = runOptions()
        if recordImpact { options.suiteProfiles = coverageSettings?.profiles }
        if let affected {
            let changes = try affected.changes(in: package)
            let selection = try await AffectedTests.select(
                package: package, repository: try CommitHistory(repositoryPath: package.path).workTree,
                changedPaths: changes.files.flatMap(\.touchedPaths))
            selection.reasons.forEach { write($0 + "\n") }
            if let filters = selection.filters {
                guard !filters.isEmpty else {
                    return .nothingToRun("No test target is affected by the change; nothing to run.")
                }
                options.filters += filters
            }
        }
        if shared.queue != nil, failedOnly || isHunt {
            throw RequestError("--\(failedOnly ? "failed" : "repeat") runs on one machine; it cannot join a --queue")
        }
        var place = try shared.folder(package: package)
        // With the timings in a store, a CI run keeps each node's report there for --failed.
        var keptInRun = shared.keptInRun
        var impacted = impacted
        if impacted, impactedOrAll, let (local, why) = await ImpactedTests.withoutStore(place, package: package) {
            write(why + "\n")
            (place, keptInRun, impacted) = (local, nil, false)
        }
        if failedOnly {
            let (last, origin) = try await TestStageRun.lastRun(
                package: package, place: place, run: keptInRun, node: node)
            guard !last.notPassed.isEmpty else {
                return .nothingToRun(
                    "The last run (\(origin): \(last.summaryLine)) left no test failing: nothing to run.")
            }
            options.only = Set(last.notPassed)
        }
        let queue = try shared.runID().map { try workQueue($0, at: place) }
        // A static split over shared timings needs every node to plan from the same ones: they are
        // pinned in the CI run's folder.
        let pin =
            try queue
            ?? (node.count > 1 && shared.timings != nil
                ? CIEnvironment.runID(environment: shared.environment).map {
                    try place.queue(run: $0, node: node)
                } : nil)
        var testRun = try TestStageRun(
            settings: BuildSettings(
                packagePath: package, configuration: configuration.rawValue, extraArguments: buildArguments,
                skipBuild: skipBuild),
            options: options, timings: place, updatesTimings: updatesTimings,
            snapshots: SnapshotCheck(
                package: package, local: LocalReferences.scan(package, isTest: NamePattern("*").matches), page: review),
            junit: junit, quarantine: try quarantine(), coverage: coverageSettings, interactive: interactive,
            write: write)
        testRun.keptInRun = keptInRun
        testRun.flakeThreshold = flakeThreshold
        if !skipBuild { write("Building the tests of \(package.path) (\(configuration.rawValue))…\n") }
        var prepared = try await testRun.prepare(pinningTo: pin)
        if impacted {
            guard let reached = try await testRun.impacted(prepared, base: impactBase) else {
                return .nothingToRun("No test is reachable from the change; nothing to run.")
            }
            prepared = reached
        }
        switch mode {
        case .list:
            return .listed(prepared.tests.map(\.name))
        case .plan:
            let shards = testRun.plan(prepared, queue: queue)
            return .planned(shards, description: testRun.describe(shards, queue: queue))
        case .hunt(let times, let untilFailure):
            return .hunted(try await testRun.hunt(prepared, times: times, untilFailure: untilFailure))
        case .run:
            break
        }
        let title = "pipeline test" + (node.count > 1 ? " (node \(node))" : "")
        guard let queue else {
            let (report, findings) = try await testRun.run(prepared)
            let measured = try await testRun.collectCoverage(of: report, product: prepared.product)
            if recordImpact, let measured { try await testRun.recordImpact(from: measured, report: report) }
            // A static split's nodes keep their coverage in the CI run's folder when the timings are in a store.
            if let measured, let folder = measured.folder, node.count > 1, let run = keptInRun {
                try await place.saveCoverage(folder.appendingPathComponent("coverage.profdata"), run: run, node: node)
            }
            CIReport.publish(report, coverage: measured, title: title, environment: shared.environment)
            return .ran(report, findings, coverage: measured, storeFailure: nil)
        }
        let outcome = try await testRun.run(prepared, queue: queue)
        var measured: CoverageReport?
        if let report = outcome.report {
            measured = try await testRun.collectCoverage(of: report, product: prepared.product)
            if let measured, let folder = measured.folder {
                try await place.saveCoverage(
                    folder.appendingPathComponent("coverage.profdata"), run: queue.run, node: node)
            }
            CIReport.publish(report, coverage: measured, title: title, environment: shared.environment)
        }
        return .ran(outcome.report, outcome.findings, coverage: measured, storeFailure: outcome.storeFailure)
    }

    private var isHunt: Bool {
        if case .hunt = mode { true } else { false }
    }

    /// The run's options for the test processes.
    func runOptions() -> TestRunOptions {
        TestRunOptions(
            shards: shards.resolved(cores: cores), node: node,
            limits: RunLimits(timeout: timeout, outputLimit: Int(outputLimit.bytes)), retries: retries,
            maxRetried: maxRetried, flakyFails: flaky == .fail, filters: filters, skips: skips)
    }

    /// The work queue of `run` at `place`, with these leases.
    private func workQueue(_ run: String, at place: SharedFolder) throws -> WorkQueue {
        var queue = try place.queue(run: run, node: node)
        queue.leaseMargin = queueLease.seconds
        queue.clockSkew = clockSkew.seconds
        return queue
    }

    /// The quarantine named, or the one of the repository around the package.
    private func quarantine() throws -> Quarantine? {
        guard let quarantineFile else { return try QuarantineLoader.find(from: package) }
        return try QuarantineLoader.load(quarantineFile.url, displayPath: quarantineFile.display)
    }
}
