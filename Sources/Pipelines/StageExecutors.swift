import Foundation
import PipelineSpec
import References

/// `pull`: develop's references for every test into the checkout, then feature's for the changed tests.
struct PullExecutor: StageExecutor {
    let stage: PullStage

    func summary(cores: Int) -> String {
        "\(stage.from.rawValue)'s references for every test into the checkout"
            + (stage.changedFrom.map { ", then \($0.rawValue)'s for the changed tests" } ?? "")
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(.pull, summary: summary(cores: cores), store: stage.from, in: spec)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        .transferred(.pull, try await transfer(in: &context, dryRun: false))
    }

    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws {
        plan.transfers = try await transfer(in: &context, dryRun: true)
    }

    private func transfer(in context: inout StageContext, dryRun: Bool) async throws -> [TransferReport] {
        let changed = stage.changedFrom == nil ? [] : try await context.changedTests().all
        return try await context.transfers().pullForRun(
            changed: changed, changes: context.runner.changes, history: changed.isEmpty ? nil : try context.history(),
            base: stage.from, changedFrom: stage.changedFrom, dryRun: dryRun)
    }
}

/// `promote`: feature to develop for the tests the change touched or pushed; never after failed tests.
struct PromoteExecutor: StageExecutor {
    let stage: PromoteStage

    func summary(cores: Int) -> String {
        StageDescription(availableCores: cores).describe(stage)
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(
            kind: .promote, summary: summary(cores: cores), test: nil,
            promote: DryRun.PromoteDryRun(
                from: stage.from.rawValue, to: stage.to.rawValue,
                fromLocation: spec.references?.address(of: stage.from)?.description,
                toLocation: spec.references?.address(of: stage.to)?.description, prune: stage.prune))
    }

    static let nothingChanged = "the change touched no test or reference folder, and pushed no reference"

    func run(in context: inout StageContext) async throws -> StageOutcome {
        if context.testsFailed, !stage.evenIfTestsFail {
            return .skipped(.promote, "the test stage failed; nothing promoted")
        }
        guard let reports = try await promotion(in: &context, dryRun: false) else {
            try await recordPromoted(in: &context)
            return .skipped(.promote, Self.nothingChanged)
        }
        // The stage fails exactly when `pipeline refs promote` would: renderings never accepted
        // (exit 8), tests develop stays stale for (10), objects that failed to copy.
        if reports.contains(where: { !$0.neverAccepted.isEmpty || !$0.notPromoted.isEmpty || !$0.failures.isEmpty }) {
            reports.flatMap { $0.render() }.forEach { context.runner.write("    \($0)\n") }
            try TransferReport.requireComplete(reports)
        }
        try await recordPromoted(in: &context)
        return .transferred(.promote, reports)
    }

    /// After a complete promotion to develop over a comparison from develop's record: the head
    /// becomes the last promoted commit, so the next run compares from it.
    private func recordPromoted(in context: inout StageContext) async throws {
        guard context.runner.comparedFromPromoted, stage.to == .develop else { return }
        let line = try await PromotedHead.record(
            context.runner.changes.head, develop: try context.transfers().stores.sharedFolder(.develop),
            history: try context.history())
        context.runner.write("    \(line)\n")
    }

    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws {
        guard let reports = try await promotion(in: &context, dryRun: true) else {
            plan.note = Self.nothingChanged + ": nothing to promote"
            return
        }
        plan.transfer = reports.first
        plan.transfers = reports.count > 1 ? Array(reports.dropFirst()) : nil
    }

    /// The promotion of the changed tests, in every render environment's set; nil when the change
    /// touched none and left no renderings of CI's unaccepted.
    private func promotion(in context: inout StageContext, dryRun: Bool) async throws -> [TransferReport]? {
        let changed = try await context.changedTests()
        let reports = try await context.transfers().promoteEverySet(
            tests: nil, changes: context.runner.changes, history: try context.history(),
            from: stage.from, to: stage.to, force: false, prune: stage.prune, dryRun: dryRun, changed: changed)
        let empty = reports.allSatisfy { $0.tests.isEmpty && $0.neverAccepted.isEmpty }
        return changed.all.isEmpty && empty ? nil : reports
    }
}

/// `push`: the changed tests' local references to a store; never after failed tests.
struct PushExecutor: StageExecutor {
    let stage: PushStage

    func summary(cores: Int) -> String {
        "the changed tests' local references → \(stage.to.rawValue)"
            + (stage.prune ? ", deleting files the checkout no longer has" : "")
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(.push, summary: summary(cores: cores), store: stage.to, in: spec)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        if context.testsFailed { return .skipped(.push, "the test stage failed; nothing pushed") }
        let tests = try await changedTestsWithReferences(&context)
        guard !tests.isEmpty else { return .skipped(.push, "no changed test has local references") }
        return .transferred(.push, try await push(tests, in: &context, dryRun: false))
    }

    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws {
        let tests = try await changedTestsWithReferences(&context)
        guard !tests.isEmpty else {
            plan.note = "no changed test has local references: nothing to push"
            return
        }
        plan.transfer = try await push(tests, in: &context, dryRun: true).first
    }

    /// Pushes under the compared head, or on a pull request's synthetic merge commit under the
    /// branch head the real merge brings in.
    private func push(_ tests: [String], in context: inout StageContext, dryRun: Bool) async throws -> [TransferReport]
    {
        let commit = BranchCommit.key(for: context.runner.changes.head, history: try? context.history()).commit
        return try await context.transfers().push(
            tests: tests, to: [stage.to], commit: commit, prune: stage.prune, dryRun: dryRun)
    }

    /// The tests the change touched that have a test file and local references: what a push uploads.
    private func changedTestsWithReferences(_ context: inout StageContext) async throws -> [String] {
        let local = try await context.transfers().stores.local(testPattern: context.runner.spec.changes.tests)
        let withReferences = Set(try await local.testsWithReferences())
        return context.runner.changes.promotable.filter { withReferences.contains($0) && local.testFiles.contains($0) }
    }
}

/// `review`: one page of the test stage's failed snapshots and the changed tests' references.
struct ReviewExecutor: StageExecutor {
    let stage: ReviewStage

    func summary(cores: Int) -> String {
        "an HTML review of the changed tests' references, \(stage.new.rawValue) against "
            + "\(stage.reference.rawValue), in \(stage.output)"
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(.review, summary: summary(cores: cores), store: stage.new, in: spec)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        let failures = context.tested?.findings?.entries ?? []
        let changed = try await context.changedTests().all
        guard !failures.isEmpty || !changed.isEmpty else {
            return .skipped(.review, "no snapshot failed, and the change touched no test or reference folder")
        }
        let stores = try await context.transfers().stores
        let runner = context.runner
        let review = try await ReferenceReview(tolerance: stage.tolerance).page(
            tests: changed, reference: try stores.folder(stage.reference), new: try stores.folder(stage.new),
            failures: failures, title: "Reference review: \(runner.spec.name)",
            subtitle: "failed snapshots of this run, and \(stage.new.rawValue) against "
                + "\(stage.reference.rawValue) at \(runner.changes.head.prefix(12))",
            output: context.resolve(stage.output))
        let counts =
            (failures.isEmpty ? [] : ["\(failures.count) failed snapshot(s)"])
            + review.counts
        return StageOutcome(
            kind: .review, status: .passed, summary: "\(review.page.path): " + counts.joined(separator: ", "))
    }
}

/// `orphans`: references in a store whose test file is gone.
struct OrphansExecutor: StageExecutor {
    let stage: OrphansStage

    func summary(cores: Int) -> String {
        "list references in \(stage.store.rawValue) whose test file is gone"
            + (stage.fail ? " (they fail the pipeline)" : "")
    }

    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun {
        DryRun.StageDryRun(.orphans, summary: summary(cores: cores), store: stage.store, in: spec)
    }

    func run(in context: inout StageContext) async throws -> StageOutcome {
        let orphans = try await context.transfers().orphans(in: stage.store)
        let names = orphans.map(\.place).joined(separator: ", ")
        var outcome = StageOutcome(
            kind: .orphans, status: orphans.isEmpty || !stage.fail ? .passed : .failed,
            summary: orphans.isEmpty
                ? "no orphaned references in \(stage.store.rawValue)"
                : "\(orphans.count) test(s) with references and no test file: \(names)")
        outcome.orphans = orphans
        return outcome
    }
}
