import Coverage
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import SharedRun
import SnapshotReview
import TestCore
import TestSharding

/// One suite's session in the one test flow (`TestFlow`): what it adds to a `SuiteRun`: swift-snapshot-testing's
/// switches for the test processes and the snapshot check after them (failed snapshots paired with
/// their references, references written in CI failed, one review page); the timings read from and
/// folded back into where they are kept; the quarantine; the JUnit file and the last run's report.
public struct TestSession: Sendable {
    public let suite: SuiteRun
    public let snapshots: SnapshotCheck
    /// Where the durations are read to plan, and folded back after the run when `updatesTimings` is on.
    public let timings: TimingsPlace
    public let updatesTimings: Bool
    public let junit: URL?
    /// The known-flaky tests: they run, and their failures do not fail the run.
    public let quarantine: Quarantine?
    /// The CI run whose folder in the timings' store keeps a copy of each node's report, so that
    /// `--failed` finds it when the job is re-run on a fresh machine; nil keeps the local copy only.
    public let keptInRun: String?
    /// Tests flaky or failing in this share of their recent runs (or more) are named after the run.
    public let flakeThreshold: Double
    public let interactive: Bool
    /// Coverage: the tests built instrumented, each process writing its profile; nil measures none.
    public let coverage: CoverageSettings?
    /// Progress and notes, for standard error.
    public let write: @Sendable (String) -> Void

    public init(
        settings: BuildSettings, options: TestRunOptions, timings: TimingsPlace? = nil, updatesTimings: Bool = true,
        snapshots: SnapshotCheck, junit: URL?, quarantine: Quarantine? = nil, coverage: CoverageSettings? = nil,
        keptInRun: String? = nil, flakeThreshold: Double = 0.1, interactive: Bool,
        write: @escaping @Sendable (String) -> Void
    ) throws {
        var options = options
        var settings = settings
        options.variables.merge(snapshots.variables) { $1 }
        if let coverage {
            settings.coverage = true
            options.variables.merge(coverage.variables) { $1 }
        }
        suite = SuiteRun(settings: settings, options: options)
        self.coverage = coverage
        self.timings = try timings ?? TimingsPlace(file: SuiteRun.defaultTimings(of: settings.packagePath))
        self.updatesTimings = updatesTimings
        self.snapshots = snapshots
        self.junit = junit
        self.quarantine = quarantine
        self.keptInRun = keptInRun
        self.flakeThreshold = flakeThreshold
        self.interactive = interactive
        self.write = write
    }

    /// Reads the timings, then builds, lists, selects and plans. The nodes of one run plan from the
    /// timings pinned in its `queue` folder, the same for all of them. Warns of quarantine entries
    /// that match no test of the suite.
    public func prepare(pinningTo queue: WorkQueue? = nil) async throws -> SuiteRun.Prepared {
        let recorded =
            if let queue {
                try await queue.pinned(timings.plannedTimings)
            } else {
                try await timings.plannedTimings.load()
            }
        let prepared =
            suite.settings.skipBuild
            ? try await suite.prepare(timings: recorded)
            : try await Self.racing(
                { [suite] in try await suite.prepare(timings: recorded) },
                beside: { [write] in
                    // A line every 10 s, so a log shows the build is alive.
                    for seconds in stride(from: 10, to: Int.max, by: 10) {
                        try await Task.sleep(for: .seconds(10))
                        write("  still building and listing the tests (\(seconds) s)…\n")
                    }
                })
        try coverage?.clearProfiles()
        quarantine?.warnings(among: prepared.discovered.map(\.name)).forEach { write($0 + "\n") }
        if let only = suite.options.only {
            let gone = only.subtracting(prepared.tests.map(\.name)).sorted()
            write(
                "Running the \(counted(prepared.tests.count, "test")) that did not pass last time"
                    + (gone.isEmpty ? "" : "; \(gone.count) no longer exist: \(gone.prefix(5).joined(separator: ", "))")
                    + "\n")
        }
        return prepared
    }

    /// Runs `work` with `side` running beside it until the work ends (a side that returns early
    /// leaves the work running); the work's result.
    static func racing<Result: Sendable>(
        _ work: @escaping @Sendable () async throws -> Result, beside side: @escaping @Sendable () async throws -> Void
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await side()
                return nil
            }
            group.addTask { try await work() }
            while let finished = try await group.next() {
                if let finished {
                    group.cancelAll()
                    return finished
                }
            }
            throw CancellationError()
        }
    }

    /// This node's shards, or with a queue the batches the nodes claim.
    public func plan(_ prepared: SuiteRun.Prepared, queue: WorkQueue?) -> [Shard] {
        queue.map { QueuePlan(tests: prepared.tests, estimates: prepared.estimates, nodes: $0.node.count).batches }
            ?? prepared.shards
    }

    /// The plan for people: where the timings (and queue) are, each shard or batch with its tests.
    public func describe(_ shards: [Shard], queue: WorkQueue?) -> String {
        var lines = ["timings: \(timings)"]
        if let queue {
            lines.append(
                "queue: \(queue.location) (plan.json, claims/, results/); \(counted(shards.count, "batch", plural: "batches")), claimed by the nodes in turn"
            )
        }
        for shard in shards {
            lines.append(
                "\(queue == nil ? "shard" : "batch") \(shard.index): \(counted(shard.tests.count, "test")), "
                    + "expected \(String(format: "%.2f", shard.expectedSeconds)) s")
            lines += shard.tests.map { "  \($0.name)" }
        }
        return lines.joined(separator: "\n")
    }

    /// Runs the plan, showing progress, and checks the snapshots.
    public func run(_ prepared: SuiteRun.Prepared) async throws -> (TestReport, SnapshotFindings) {
        write(
            prepared.announcement(node: suite.options.node, note: snapshots.mode == .missing ? nil : snapshotModeNote)
                + "\n")
        let before = snapshots.begin()
        let started = Date()
        var report = try await execute(prepared)
        try await renderNewTests(of: report, prepared)
        if coverage == nil {
            // An instrumented build (one built for coverage before) run without measuring it: what
            // its children wrote into the tree goes to the logs.
            let working = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            for stray in CoverageSettings.moveStrayProfiles(
                in: [suite.settings.packagePath, working], since: started, into: suite.logs)
            {
                write(
                    "\(stray): a coverage profile written by a child a test started with an environment of its own "
                        + "(the build is instrumented); moved into \(suite.logs.path)\n")
            }
        }
        let findings = snapshots.check(&report, since: before)
        return try await finish(&report, findings: findings, planned: prepared.timings)
    }

    /// In CI, after the verdict: the tests that failed on a missing reference (new snapshot tests)
    /// run once more with `SNAPSHOT_TESTING_RECORD=missing`, and what they record is moved out of
    /// the checkout into the artifacts, so CI keeps it as a candidate to accept. Their verdict stays
    /// the first run's: failed.
    func renderNewTests(of report: TestReport, _ prepared: SuiteRun.Prepared) async throws {
        guard snapshots.rendersNewTests else { return }
        let names = Set(snapshots.missingReferences(in: report))
        let tests = prepared.tests.filter { names.contains($0.name) }
        guard !tests.isEmpty else { return }
        write(SnapshotCheck.renderingNewTests(tests.count))
        var options = suite.options
        options.variables.merge(SnapshotCheck.recordingMissing) { _, new in new }
        options.retries = 0
        let render = SuiteRun(settings: suite.settings, options: options)
        let subset = prepared.only(tests, shards: max(1, min(tests.count, options.shards)))
        let start = snapshots.inventory()
        let progress = RunProgress(
            total: subset.plannedTests, shards: subset.shards.count, expectedSeconds: subset.expectedSeconds,
            interactive: false
        ) { _ in }
        _ = try await render.run(subset, progress: progress, statusInterval: statusInterval, part: "render-new")
        let kept = snapshots.keepRendered(since: start)
        write(SnapshotCheck.keptRenderings(kept))
    }

    /// A flake hunt: the selected tests run `times` times, each run in fresh processes, as many runs
    /// at once as there are shards. Nothing is recorded: not the timings, not the last run.
    public func hunt(_ prepared: SuiteRun.Prepared, times: Int, untilFailure: Bool) async throws -> RepeatReport {
        let lanes = max(1, min(suite.options.shards, times))
        let perRun = prepared.tests.reduce(0) { $0 + (prepared.estimates[$1] ?? 0) }
        let expected = perRun * Double((times + lanes - 1) / lanes)
        write(
            "Running \(counted(prepared.tests.count, "test")) \(times) times, \(counted(lanes, "run")) at once, "
                + "each in fresh processes"
                + (untilFailure ? ", until one fails" : "") + "; expected \(String(format: "%.1f", expected)) s\n")
        let write = self.write
        let progress = RunProgress(
            total: prepared.tests.count * times, shards: lanes, expectedSeconds: expected,
            interactive: interactive, repeating: true
        ) { write($0) }
        return try await suite.hunt(
            prepared, times: times, untilFailure: untilFailure, progress: progress,
            statusInterval: statusInterval)
    }

    /// Runs the planned shards with a progress display; `part` keeps a part's logs apart.
    func execute(_ prepared: SuiteRun.Prepared, part: String? = nil) async throws(TestRunError) -> TestReport {
        let write = self.write
        var quarantined: Set<String> = []
        if let entry = quarantine?.matcher() {
            quarantined = Set(prepared.tests.map(\.name).filter { entry($0) != nil })
        }
        let progress = RunProgress(
            total: prepared.plannedTests, shards: prepared.shards.count,
            expectedSeconds: prepared.expectedSeconds, interactive: interactive,
            recording: snapshots.forcedMode == .all, quarantined: quarantined
        ) { write($0) }
        return try await suite.run(prepared, progress: progress, statusInterval: statusInterval, part: part)
    }

    /// After the tests: the review page, the quarantine, the JUnit file, the durations and outcomes
    /// folded back (unless the store already failed), and the tests the history (`planned` and this
    /// run) shows flaky.
    package func finish(
        _ report: inout TestReport, findings: SnapshotFindings, planned: Timings,
        storeFailed: Bool = false
    ) async throws -> (TestReport, SnapshotFindings) {
        var findings = findings
        await snapshots.compareEnvironments(&findings)
        snapshots.publish(&findings, report: &report)
        applyQuarantine(&report)
        // Flakiness is flipping on the same code: outcomes are kept with the commit tested, and the
        // failures the change explains (renderings awaiting review, new tests) are left out.
        let commit = try? CommitHistory(repositoryPath: suite.settings.packagePath.path).sha("HEAD")
        let explained = findings.explainedFailures(reviewable: snapshots.candidatesCommit != nil)
        var history = planned
        history.add(report, commit: commit, explained: explained)
        findings.notes += flakeNotes(history)
        if let note = try ReportFiles(junit: junit, package: suite.settings.packagePath).write(report) {
            findings.notes.append(note)
        }
        if let run = keptInRun, !storeFailed {
            do {
                try await timings.saveLastRun(report, run: run, node: suite.options.node)
            } catch {
                findings.notes.append("the report could not be kept in \(timings.store.name) for --failed: \(error)")
            }
        }
        if updatesTimings, !storeFailed {
            let measured = report
            if try await timings.timings.fold({ $0.add(measured, commit: commit, explained: explained) })
                == .lastWriterWins
            {
                findings.notes.append(
                    "\(timings) was written without a version check (the store has none), "
                        + "so an update another machine made meanwhile may be lost")
            }
        }
        return (report, findings)
    }

    /// The run's coverage, from the profiles its processes wrote (nil when none is measured); the
    /// one-screen summary goes to `write`. Tests whose process crashed or timed out are named as
    /// not counted: such a process writes no profile.
    public func collectCoverage(of report: TestReport, product: TestProduct) async throws -> CoverageReport? {
        guard let coverage else { return nil }
        write("Merging the coverage profiles…\n")
        let working = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let strays = coverage.adoptStrayProfiles(in: [suite.settings.packagePath, working])
        for stray in strays {
            write(
                "\(stray): written by an instrumented process that lost LLVM_PROFILE_FILE (a child a test started "
                    + "with an environment of its own); counted in the run's coverage and moved out of the tree\n")
        }
        let missing = report.tests.filter { $0.status == .crashed || $0.status == .timedOut }.map(\.name)
        var collected = try await coverage.collect(objects: product.coverageObjects, missing: missing)
        collected.strays = strays
        return collected
    }

    /// Marks the failures of quarantined tests, which then do not fail the run.
    func applyQuarantine(_ report: inout TestReport) {
        guard let quarantine else { return }
        let entry = quarantine.matcher()
        report.quarantine { name in
            entry(name).map {
                TestReport.QuarantineNote(owner: $0.owner, reason: $0.reason, expires: $0.expires.description)
            }
        }
    }

    /// One line per test whose recent runs show it flaky at `flakeThreshold` or more and that is not
    /// quarantined yet, with the command that quarantines it.
    func flakeNotes(_ history: Timings) -> [String] {
        let quarantined = quarantine?.matcher()
        return history.flaky(threshold: flakeThreshold).filter { quarantined?($0.name) == nil }.map { name, history in
            let rate = "\(Int((history.flakeRate * 100).rounded())) % of its last \(history.runs) runs"
            let what = history.flips == nil ? "was flaky or failed in" : "failed and passed on the same code in"
            return "flaky: \(name) \(what) \(rate); to quarantine it: "
                + "pipeline quarantine add '\(name.replacingOccurrences(of: "'", with: "'\\''"))' --owner <who> "
                + "--reason 'flaky in \(rate)' --days 14"
        }
    }

    /// The report `--failed` starts from: the copy the CI run `run` keeps in `place` for this node
    /// when there is one, else the last run here. Returns it with where it was read.
    public static func lastRun(
        package: URL, place: TimingsPlace, run: String?,
        node: Node
    ) async throws -> (report: TestReport, origin: String) {
        if let run, let report = try await place.lastRun(run: run, node: node) {
            return (report, "\(place.store.name)/\(try place.lastRunKey(run: run, node: node).rawValue)")
        }
        let local = lastRun(of: package)
        return (try TestReport.load(local), local.path)
    }

    /// The last run's report here: `<package>/.build/pipeline/last-run.json`.
    public static func lastRun(of package: URL) -> URL {
        SuiteRun.workFolder(of: package).appendingPathComponent("last-run.json")
    }

    /// How often the status line is shown: every second on a terminal, every ten in a log.
    private var statusInterval: Duration { .seconds(interactive ? 1 : 10) }

    private var snapshotModeNote: String {
        "snapshots: record mode \(snapshots.mode.rawValue)"
            + (snapshots.writesFail ? " (CI: a missing reference fails)" : "")
    }
}
