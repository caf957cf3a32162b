import Coverage
import Foundation
import PipelineSpec
import References
import SharedRun
import SnapshotConventions
import TestImpact
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
        let write = context.runner.write
        let outcome = try await request(context).perform()
        guard case .ran(let ran, let findings, let coverage, _) = outcome, let report = ran else {
            if case .nothingToRun(let reason) = outcome { return .skipped(.test, skipReason(reason)) }
            return .skipped(.test, "nothing ran")
        }
        write(report.render() + "\n")
        findings.render().forEach { write("    \($0)\n") }
        if let coverage { write(coverage.text().split(separator: "\n").map { "    \($0)\n" }.joined()) }
        // Tests that passed with too little coverage stop the pipeline, as failed tests would.
        if report.passed, let shortfall = coverage?.shortfall { throw shortfall }
        var outcomeOfStage = StageOutcome(
            kind: .test, status: report.passed ? .passed : .failed,
            summary: report.summaryLine + (findings.page.map { "; snapshot review: \($0.path)" } ?? "")
                + (coverage.map { "; " + $0.totalsLine } ?? ""))
        outcomeOfStage.test = report
        outcomeOfStage.coverage = coverage?.summary.totals
        outcomeOfStage.snapshots = findings.page == nil ? nil : findings.entries.map(SnapshotEntry.init)
        context.snapshots = findings
        return outcomeOfStage
    }

    /// The stage as a request of the one test flow: its settings, the pipeline's stores and change,
    /// the spec's timings place, output indented under the stage's heading.
    func request(_ context: StageContext) async throws -> TestRequest {
        let runner = context.runner
        let write = runner.write
        var shared = SharedRunSettings(workingDirectory: runner.base)
        shared.timings = stage.timingsPlace(runner.spec.references)
        var request = TestRequest(package: package(context), shared: shared, cores: runner.cores) { text in
            write(
                text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "    \($0)\n" }.joined())
        }
        request.configuration = stage.configuration
        request.shards = stage.shards
        request.timeout = stage.timeout
        request.outputLimit = stage.outputLimit
        request.retries = stage.retries
        request.maxRetried = stage.maxRetried
        request.flaky = stage.flaky
        request.quarantine = runner.quarantine
        request.junit = stage.junit.map(context.resolve)
        request.coverage = stage.coverage.map { spec in
            CoverageRequest(
                output: spec.dir.map(context.resolve), include: spec.include.map { [$0] } ?? [],
                exclude: spec.exclude.map { [$0] } ?? [], minLines: spec.minLines.map { $0.share * 100 })
        }
        request.recordImpact = stage.recordsImpact
        request.selection = stage.select
        request.changes = .known(runner.changes)
        request.stores = try await context.transfers().stores
        request.testPattern = runner.spec.changes.tests
        request.keepsCandidates = stage.keepsCandidates
        request.candidatesCommit = runner.changes.head
        request.interactive = runner.interactive
        request.title = "pipeline run \(runner.spec.name)"
        return request
    }

    /// Why the stage did nothing, as the run's summary says it.
    private func skipReason(_ reason: String) -> String {
        if reason.hasPrefix("No test target is affected") {
            return "the change affects no test target of \(stage.package)"
        }
        if reason.hasPrefix("No test is reachable") { return "the change reaches no test of \(stage.package)" }
        return reason
    }

    func detail(_ plan: inout PipelinePlan.StagePlan, in context: inout StageContext) async throws {
        let flow = TestFlow(try await request(context))
        let selection = try await affected(context)
        var options = flow.request.runOptions()
        options.filters += selection?.filters ?? []
        let place = try flow.timingsFolder()
        let timings = try await place.plannedTimings.load()
        let tests = timings.tests.keys.sorted().map { TestID($0, framework: .xctest) }
        let selected = (try? options.select(tests)) ?? []
        var notes = selection?.reasons ?? []
        let snapshots = flow.snapshotCheck()
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

    /// For `select: affected`, what the change selects; nil for `select: all`.
    private func affected(_ context: StageContext) async throws -> AffectedTests? {
        guard stage.select == .affected else { return nil }
        return try await AffectedTests.select(
            package: package(context), repository: try context.history().workTree,
            changedPaths: context.runner.changes.files.flatMap(\.touchedPaths))
    }
}
