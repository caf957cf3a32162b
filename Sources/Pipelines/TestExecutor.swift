import Coverage
import Foundation
import PipelineSpec
import References
import SharedRun
import SnapshotConventions
import TestSharding

/// `test`: the package's tests in balanced shards, with the snapshot check, the quarantine, the
/// timings where the stage keeps them, and (with `select: affected`) only the affected targets.
struct TestExecutor: StageExecutor {
    let stage: TestStage

    func summary(cores: Int) -> String {
        StageDescription(availableCores: cores).describe(stage)
    }

    func plan(_ spec: PipelineSpec, cores: Int) -> PipelinePlan.StagePlan {
        PipelinePlan.StagePlan(
            kind: .test, summary: summary(cores: cores),
            test: PipelinePlan.TestPlan(
                shards: stage.shards.description, shardCount: stage.shards.resolved(cores: cores),
                timeoutSeconds: stage.timeout.seconds, retries: stage.retries, select: stage.select.rawValue,
                flaky: stage.flaky.rawValue, package: stage.package, configuration: stage.configuration.rawValue,
                timings: stage.timingsPlace(spec.references).description, junit: stage.junit,
                outputLimitBytes: stage.outputLimit.bytes),
            promote: nil)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        let runner = context.runner
        let write = runner.write
        let selection = try await affected(context)
        if let selection { selection.reasons.forEach { write("    \($0)\n") } }
        if let selection, selection.filters?.isEmpty == true {
            return .skipped(.test, "the change affects no test target of \(stage.package)")
        }
        var place = try timings(context)
        var select = stage.select
        if select == .impactedOrAll,
            let (local, why) = await ImpactedTests.withoutStore(place, package: package(context))
        {
            write("    \(why)\n")
            (place, select) = (local, .all)
        }
        let run = try testRun(context, filters: selection?.filters ?? [], timings: place)
        write("    building the tests of \(package(context).path) (\(stage.configuration.rawValue))…\n")
        var prepared = try await run.prepare()
        if select.usesImpact {
            guard let reached = try await run.impacted(prepared, base: nil) else {
                return .skipped(.test, "the change reaches no test of \(stage.package)")
            }
            prepared = reached
        }
        let (report, findings) = try await run.run(prepared)
        let coverage = try await run.collectCoverage(of: report, product: prepared.product)
        if stage.recordsImpact, let coverage { try await run.recordImpact(from: coverage, report: report) }
        write(report.render() + "\n")
        findings.render().forEach { write("    \($0)\n") }
        let snapshots = snapshotCheck(context)
        if let commit = snapshots.candidatesCommit, let renderedOn = snapshots.renderedOn {
            let lines = await context.transfers().keepCandidates(
                artifacts: snapshots.artifacts, commit: commit, passed: report.passed, renderedOn: renderedOn,
                environment: snapshots.inherited)
            lines.forEach { write("    \($0)\n") }
        }
        if let coverage { write(coverage.text().split(separator: "\n").map { "    \($0)\n" }.joined()) }
        // Tests that passed with too little coverage stop the pipeline, as failed tests would.
        if report.passed, let shortfall = coverage?.shortfall { throw shortfall }
        var outcome = StageOutcome(
            kind: .test, status: report.passed ? .passed : .failed,
            summary: report.summaryLine + (findings.page.map { "; snapshot review: \($0.path)" } ?? "")
                + (coverage.map { "; " + $0.totalsLine } ?? ""))
        outcome.test = report
        outcome.coverage = coverage?.summary.totals
        outcome.snapshots = findings.page == nil ? nil : findings.entries.map(SnapshotEntry.init)
        context.snapshots = findings
        return outcome
    }

    func detail(_ plan: inout PipelinePlan.StagePlan, in context: inout StageContext) async throws {
        let selection = try await affected(context)
        let options = options(context, filters: selection?.filters ?? [])
        let place = try timings(context)
        let timings = try await place.timings.load()
        let tests = timings.tests.keys.sorted().map { TestID($0, framework: .xctest) }
        let selected = (try? options.select(tests)) ?? []
        var notes = selection?.reasons ?? []
        let snapshots = snapshotCheck(context)
        notes.append(
            "snapshots: \(SnapshotSwitches.record)=\(snapshots.mode.rawValue)"
                + (snapshots.writesFail ? " (CI: a missing reference fails, a written one too)" : "")
                + "; failed snapshots go to \(snapshots.artifacts.path) and are reviewed in \(snapshots.page.path)")
        notes.append("timings: read from \(place) to plan, and updated there after the run")
        if selection?.filters?.isEmpty == true {
            notes.append("the stage would be skipped")
        } else if selected.isEmpty {
            notes.append("no recorded durations in \(place) yet: the shards are planned when the tests are listed")
        } else {
            plan.shards = ShardPlanner(timings: timings).plan(selected, shards: options.shards).map {
                PipelinePlan.ShardPlan(
                    index: $0.index, expectedSeconds: $0.expectedSeconds, tests: $0.tests.map(\.name))
            }
        }
        plan.note = notes.isEmpty ? nil : notes.joined(separator: "\n")
    }

    private func package(_ context: StageContext) -> URL {
        context.resolve(stage.package)
    }

    /// The stage's settings as run options; `filters` select the affected targets.
    func options(_ context: StageContext, filters: [String]) -> TestRunOptions {
        TestRunOptions(
            shards: stage.shards.resolved(cores: context.runner.cores),
            limits: RunLimits(timeout: stage.timeout, outputLimit: Int(stage.outputLimit.bytes)),
            retries: stage.retries, maxRetried: stage.maxRetried, flakyFails: stage.flaky == .fail, filters: filters)
    }

    /// Where the stage's timings are kept (`TestStage.timingsPlace`).
    private func timings(_ context: StageContext) throws -> SharedFolder {
        try context.transfers().stores.shared(
            stage.timingsPlace(context.runner.spec.references), package: package(context))
    }

    /// The stage's run: the suite with the snapshot check over the checkout's references.
    private func testRun(_ context: StageContext, filters: [String], timings: SharedFolder) throws -> TestStageRun {
        let runner = context.runner
        let measuring = try coverage(context)
        var runOptions = options(context, filters: filters)
        if stage.recordsImpact { runOptions.suiteProfiles = measuring?.profiles }
        return try TestStageRun(
            settings: BuildSettings(packagePath: package(context), configuration: stage.configuration.rawValue),
            options: runOptions, timings: timings,
            snapshots: snapshotCheck(context), junit: stage.junit.map(context.resolve),
            quarantine: runner.quarantine, coverage: measuring, interactive: runner.interactive,
            write: runner.write)
    }

    /// The stage's `coverage:`, its tools and folder checked; nil measures none.
    private func coverage(_ context: StageContext) throws -> CoverageSettings? {
        guard let spec = stage.coverage ?? (stage.recordsImpact ? CoverageSpec() : nil) else { return nil }
        return try CoverageRequest(
            output: spec.dir.map(context.resolve), include: spec.include.map { [$0] } ?? [],
            exclude: spec.exclude.map { [$0] } ?? [], minLines: spec.minLines.map { $0.share * 100 }
        ).settings(package: package(context))
    }

    /// The snapshot check over the checkout's references; in CI, with a feature store and unless
    /// the stage says `candidates: false`, failed snapshots' new values are kept as candidates.
    private func snapshotCheck(_ context: StageContext) -> SnapshotCheck {
        let stores = context.transfers().stores
        var check = SnapshotCheck(
            package: package(context), local: stores.local(testPattern: context.runner.spec.changes.tests))
        if stage.keepsCandidates, SnapshotSwitches.isCI(check.inherited), stores.settings.address(of: .feature) != nil {
            check.candidatesCommit = context.runner.changes.head
        }
        let (package, inherited) = (package(context), check.inherited)
        check.renderedOn = { RenderEnvironment.current(package: package, environment: inherited) }
        check.referenceRenderedOn = { await stores.renderedOn($0) }
        return check
    }

    /// For `select: affected`, what the change selects; nil for `select: all`.
    private func affected(_ context: StageContext) async throws -> AffectedTests? {
        guard stage.select == .affected else { return nil }
        return try await AffectedTests.select(
            package: package(context), repository: try context.history().workTree,
            changedPaths: context.runner.changes.files.flatMap(\.touchedPaths))
    }
}
