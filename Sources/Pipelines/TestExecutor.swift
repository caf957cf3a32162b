import CachedBuilds
import Foundation
import PipelineSpec
import TestRun

/// `test`: the package's tests in balanced shards, with the snapshot check, the quarantine, the
/// timings where the stage keeps them, and (with `select: affected`) only the affected targets.
struct TestExecutor: StageExecutor {
    let stage: TestStage

    func summary(cores: Int) -> String {
        StageDescription(availableCores: cores).describe(stage)
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(
            kind: .test, summary: summary(cores: cores),
            test: DryRun.TestDryRun(
                shards: stage.shards.description, shardCount: stage.shards.resolved(cores: cores),
                timeoutSeconds: stage.timeout.seconds, retries: stage.retries, select: stage.select.rawValue,
                flaky: stage.flaky.rawValue, package: stage.package, configuration: stage.configuration.rawValue,
                timings: stage.timingsPlace(spec.references).description, junit: stage.junit,
                outputLimitBytes: stage.outputLimit.bytes),
            promote: nil)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        let write = context.runner.write
        let outcome = try await request(&context).perform()
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
            summary: report.summaryLine + (report.verifiedBy.map { "; \($0)" } ?? "")
                + (findings.page.map { "; snapshot review: \($0.path)" } ?? "")
                + (coverage.map { "; " + $0.totalsLine } ?? ""))
        outcomeOfStage.test = report
        outcomeOfStage.coverage = coverage?.summary.totals
        outcomeOfStage.snapshots =
            findings.page == nil
            ? nil
            : findings.entries.map { entry in
                SnapshotEntry(
                    key: entry.key, status: entry.status.rawValue, test: entry.testName,
                    matchRatio: entry.comparison?.matchRatio, note: entry.note)
            }
        context.tested = outcome
        return outcomeOfStage
    }

    /// The stage as a request of the one test flow: its settings, the pipeline's stores and change,
    /// the spec's timings place, output indented under the stage's heading.
    func request(_ context: inout StageContext) async throws -> TestRequest {
        let runner = context.runner
        let write = runner.write
        var shared = RunSharing(workingDirectory: runner.base)
        shared.timings = stage.timingsPlace(runner.spec.references)
        var limits = TestRequest.Limits(
            shards: stage.shards, timeout: stage.timeout, retries: stage.retries, maxRetried: stage.maxRetried,
            flaky: stage.flaky, outputLimit: stage.outputLimit)
        if !stage.historyTimeout { limits.historyTimeout = nil }
        return TestRequest(
            package: package(context), shared: shared, cores: runner.cores, configuration: stage.configuration,
            buildSystem: stage.buildSystem, buildCache: stage.buildCache.map(BuildCacheUse.init),
            limits: limits,
            quarantine: runner.quarantine, junit: stage.junit.map(context.resolve),
            coverage: stage.coverage.map { spec in
                CoverageRequest(
                    output: spec.dir.map(context.resolve), include: spec.include.map { [$0] } ?? [],
                    exclude: spec.exclude.map { [$0] } ?? [], minLines: spec.minLines.map { $0.share * 100 })
            }, mapsImpact: stage.recordsImpact, selection: stage.select, changes: .known(runner.changes),
            stores: SpecStores(stores: try await context.transfers().stores, testPattern: runner.spec.changes.tests),
            keepsCandidates: stage.keepsCandidates, candidatesCommit: runner.changes.head,
            verdicts: verdicts(runner.spec), title: "pipeline run \(runner.spec.name)", interactive: runner.interactive
        ) { text in
            write(
                text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "    \($0)\n" }.joined())
        }
    }

    /// The stage's `verdicts:` as the flow's settings: read from feature then develop, kept in
    /// develop by a pipeline that promotes into it (a merge's), else in feature (a pull request's).
    private func verdicts(_ spec: PipelineSpec) -> VerdictSettings? {
        guard let use = stage.verdicts, let references = spec.references else { return nil }
        let (feature, develop) = (references.address(of: .feature), references.address(of: .develop))
        let promotes = spec.stages.contains {
            if case .promote(let promote) = $0, promote.to == .develop { return true }
            return false
        }
        return VerdictSettings(
            read: use == .reuse ? [feature, develop].compactMap { $0 } : [], keep: promotes ? develop : feature,
            reuse: use == .reuse, fullEvery: stage.fullEvery)
    }

    /// Why the stage did nothing, as the run's summary says it.
    private func skipReason(_ reason: NothingToRun) -> String {
        switch reason {
        case .noAffectedTarget: "the change affects no test target of \(stage.package)"
        case .noReachableTest: "the change reaches no test of \(stage.package)"
        case .nothingFailing: reason.message
        }
    }

    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws {
        let preview = try await TestFlow(try await request(&context)).preview()
        if !preview.shards.isEmpty {
            plan.shards = preview.shards.map {
                DryRun.ShardPlan(
                    index: $0.index, expectedSeconds: $0.expectedSeconds, tests: $0.tests.map(\.name))
            }
        }
        plan.note = preview.notes.isEmpty ? nil : preview.notes.joined(separator: "\n")
    }

    private func package(_ context: StageContext) -> URL {
        context.resolve(stage.package)
    }
}
