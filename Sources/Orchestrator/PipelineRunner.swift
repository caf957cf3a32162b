import Foundation
import GitChanges
import ImageDiff
import PipelineSpec
import ReferenceStore
import SharedRun
import SnapshotConventions
import TestSharding

/// How one stage ended.
public struct StageOutcome: Sendable, Encodable {
    public enum Status: String, Sendable, Encodable {
        case passed, failed, skipped
    }

    public let kind: String
    public let status: Status
    /// One line: what the stage did, or why it was skipped.
    public let summary: String
    public var seconds: Double
    public var test: TestReport? = nil
    public var transfers: [TransferReport]? = nil
    public var orphans: [Orphan]? = nil
    /// The test stage's failed snapshots and written references, as its review page shows them.
    public var snapshots: [SnapshotEntry]? = nil
}

/// One entry of a snapshot review, in a pipeline's JSON outcome.
public struct SnapshotEntry: Sendable, Encodable {
    public let key: String
    public let status: String
    public let test: String?
    public let matchRatio: Double?
    public let note: String?

    init(_ entry: ReviewEntry) {
        key = entry.key
        status = entry.status.rawValue
        test = entry.testName
        matchRatio = entry.comparison?.matchRatio
        note = entry.note
    }
}

/// What `pipeline run NAME` did. Its JSON form is documented in docs/json.md.
public struct PipelineOutcome: Sendable, Encodable {
    public let pipeline: String
    public let changes: ChangeSet
    public var stages: [StageOutcome]
    public var passed: Bool { stages.allSatisfy { $0.status != .failed } }
    public var seconds: Double

    /// The closing summary: one line per stage.
    public func render() -> String {
        var lines = ["pipeline \(pipeline): \(passed ? "passed" : "failed") in \(String(format: "%.1f", seconds)) s"]
        let width = stages.map(\.kind.count).max() ?? 0
        for stage in stages {
            let padding = String(repeating: " ", count: width - stage.kind.count)
            lines.append("  \(stage.kind)\(padding)  \(stage.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
                         + "\(stage.summary) (\(String(format: "%.1f", stage.seconds)) s)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Runs a pipeline's stages in order over one shared context: the changes found, the test results,
/// the references moved. Promotion never runs after a failed test stage; a stage with nothing to
/// do says so and is skipped; an error (storage, build, git) stops the pipeline there.
public struct PipelineRunner: Sendable {
    public let spec: PipelineSpec
    /// The folder holding `pipelines/`: paths in the spec are relative to it.
    public let base: URL
    public let origin: String
    public let changes: ChangeSet
    /// The repository's known-flaky tests, for the test stages.
    public let quarantine: Quarantine?
    public let cores: Int
    /// Progress and stage headers, for standard error.
    public let write: @Sendable (String) -> Void
    public let interactive: Bool

    public init(spec: PipelineSpec, base: URL, origin: String, changes: ChangeSet, quarantine: Quarantine? = nil, cores: Int,
                interactive: Bool, write: @escaping @Sendable (String) -> Void) {
        self.spec = spec
        self.base = base.standardizedFileURL
        self.origin = origin
        self.changes = changes
        self.quarantine = quarantine
        self.cores = cores
        self.interactive = interactive
        self.write = write
    }

    public func run() async throws -> PipelineOutcome {
        let start = ContinuousClock.now
        var outcome = PipelineOutcome(pipeline: spec.name, changes: changes, stages: [], seconds: 0)
        let describer = StageDescription(availableCores: cores)
        var context = Context()
        for (index, stage) in spec.stages.enumerated() {
            write("==> [\(index + 1)/\(spec.stages.count)] \(stage.kind.rawValue): \(describer.describe(stage))\n")
            let stageStart = ContinuousClock.now
            var result = try await run(stage, after: outcome.stages, context: &context)
            result.seconds = (ContinuousClock.now - stageStart).seconds
            write("    \(result.status.rawValue): \(result.summary)\n")
            outcome.stages.append(result)
        }
        outcome.seconds = (ContinuousClock.now - start).seconds
        return outcome
    }

    /// What stages hand on to later ones.
    private struct Context {
        /// The changed tests, found once: changed files, and references the compared commits pushed.
        var changed: (all: [String], pushed: [String])?
        /// The test stage's snapshot findings, for the review stage.
        var snapshots: SnapshotFindings?
    }

    private func changedTests(_ context: inout Context) async throws -> (all: [String], pushed: [String]) {
        if let changed = context.changed { return changed }
        let changed = try await transfers().changedTests(changes, history: try CommitHistory(repositoryPath: base.path))
        context.changed = changed
        return changed
    }

    private func run(_ stage: Stage, after earlier: [StageOutcome], context: inout Context) async throws -> StageOutcome {
        let kind = stage.kind.rawValue
        let testsFailed = earlier.contains { $0.kind == Stage.Kind.test.rawValue && $0.status == .failed }
        switch stage {
        case .pull(let pull):
            let changed = pull.changedFrom == nil ? [] : try await changedTests(&context).all
            let reports = try await transfers().pullForRun(changed: changed, base: pull.from, changedFrom: pull.changedFrom,
                                                           dryRun: false)
            return finished(kind, reports)
        case .test(let test):
            let (outcome, findings) = try await runTests(test)
            context.snapshots = findings
            return outcome
        case .promote(let promote):
            if testsFailed, !promote.evenIfTestsFail {
                return StageOutcome(kind: kind, status: .skipped, summary: "the test stage failed; nothing promoted", seconds: 0)
            }
            let changed = try await changedTests(&context)
            guard !changed.all.isEmpty else {
                return StageOutcome(kind: kind, status: .skipped,
                                    summary: "the change touched no test or reference folder, and pushed no reference", seconds: 0)
            }
            var report = try await transfers().promote(
                tests: changed.all, changes: changes, history: try CommitHistory(repositoryPath: base.path),
                from: promote.from, to: promote.to, force: false, prune: promote.prune, dryRun: false)
            report.pushed = changed.pushed
            return finished(kind, [report])
        case .push(let push):
            if testsFailed {
                return StageOutcome(kind: kind, status: .skipped, summary: "the test stage failed; nothing pushed", seconds: 0)
            }
            let tests = try await changedTestsWithReferences()
            guard !tests.isEmpty else {
                return StageOutcome(kind: kind, status: .skipped, summary: "no changed test has local references", seconds: 0)
            }
            let reports = try await transfers().push(tests: tests, to: [push.to], commit: changes.head, prune: push.prune,
                                                     dryRun: false)
            return finished(kind, reports)
        case .review(let review):
            return try await writeReview(review, failures: context.snapshots?.entries ?? [], changed: try await changedTests(&context).all)
        case .orphans(let settings):
            let orphans = try await transfers().orphans(in: settings.store)
            let names = orphans.map(\.test).joined(separator: ", ")
            var outcome = StageOutcome(kind: kind, status: orphans.isEmpty || !settings.fail ? .passed : .failed,
                                       summary: orphans.isEmpty ? "no orphaned references in \(settings.store.rawValue)"
                                           : "\(orphans.count) test(s) with references and no test file: \(names)",
                                       seconds: 0)
            outcome.orphans = orphans
            return outcome
        }
    }

    /// One page: the test stage's failed snapshots, then the changed tests' references, new against reference store.
    private func writeReview(_ review: ReviewStage, failures: [ReviewEntry], changed: [String]) async throws -> StageOutcome {
        guard !failures.isEmpty || !changed.isEmpty else {
            return StageOutcome(kind: "review", status: .skipped,
                                summary: "no snapshot failed, and the change touched no test or reference folder", seconds: 0)
        }
        let stores = transfers().stores
        let entries = changed.isEmpty ? [] : try await ReferenceReview(tolerance: review.tolerance)
            .entries(tests: changed, reference: try stores.location(review.reference), new: try stores.location(review.new))
        let page = ReviewPage.html(title: "Reference review: \(spec.name)",
                                   subtitle: "failed snapshots of this run, and \(review.new.rawValue) against "
                                       + "\(review.reference.rawValue) at \(changes.head.prefix(12))",
                                   entries: failures + entries)
        let url = URL(fileURLWithPath: review.output, relativeTo: base).standardizedFileURL
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(page.utf8).write(to: url, options: .atomic)
        let counts = (failures.isEmpty ? [] : ["\(failures.count) failed snapshot(s)"])
            + [ReviewEntry.Status.changed, .new, .removed].map { status in "\(entries.filter { $0.status == status }.count) \(status.rawValue)" }
        return StageOutcome(kind: "review", status: .passed, summary: "\(url.path): " + counts.joined(separator: ", "), seconds: 0)
    }

    private func finished(_ kind: String, _ reports: [TransferReport]) -> StageOutcome {
        let copied = reports.map(\.copied.count).reduce(0, +)
        let identical = reports.map(\.identical).reduce(0, +)
        let deleted = reports.map(\.deleted.count).reduce(0, +)
        let failed = reports.map(\.failures.count).reduce(0, +)
        let tests = Set(reports.flatMap(\.tests)).sorted()
        var summary = "\(tests.count) test(s): copied \(copied), identical \(identical), deleted \(deleted)"
        if failed > 0 { summary += ", \(failed) failed" }
        var outcome = StageOutcome(kind: kind, status: failed == 0 ? .passed : .failed, summary: summary, seconds: 0)
        outcome.transfers = reports
        return outcome
    }

    /// The tests the change touched that have a test file and local references: what a push uploads.
    private func changedTestsWithReferences() async throws -> [String] {
        let local = transfers().stores.local(testPattern: spec.changes.tests)
        let withReferences = Set(try await local.testsWithReferences())
        return changes.promotable.filter { withReferences.contains($0) && local.testFiles.contains($0) }
    }

    private func transfers() -> ReferenceTransfers {
        let stores = ReferenceStores(settings: spec.references ?? ReferenceSettings(), base: base, origin: origin)
        let write = self.write
        return ReferenceTransfers(stores: stores, testPattern: spec.changes.tests) { action, done, total in
            if done == total { write("    \(action): \(done)/\(total) objects\n") }
        }
    }

    // MARK: The test stage

    /// The test stage's session: the spec's settings, paths relative to the repository.
    public func session(_ test: TestStage, filters: [String] = [], skipBuild: Bool = false) -> TestSession {
        let options = TestRunOptions(shards: test.shards.resolved(cores: cores),
                                     limits: RunLimits(timeout: test.timeout, outputLimit: Int(test.outputLimit.bytes)),
                                     retries: test.retries, maxRetried: test.maxRetried, flakyFails: test.flaky == .fail,
                                     filters: filters)
        return TestSession(settings: BuildSettings(packagePath: package(of: test), configuration: test.configuration.rawValue,
                                                   skipBuild: skipBuild),
                           options: options)
    }

    /// Where the test stage's timings are kept: its `timings:`, else the package's own file.
    func timings(_ test: TestStage) throws -> SharedPlace {
        guard let location = test.timings else { return try SharedPlace(file: TestSession.defaultTimings(of: package(of: test))) }
        return try transfers().stores.shared(location)
    }

    private func package(of test: TestStage) -> URL {
        URL(fileURLWithPath: test.package, relativeTo: base).standardizedFileURL
    }

    private func runTests(_ test: TestStage) async throws -> (StageOutcome, SnapshotFindings?) {
        let package = package(of: test)
        let write = self.write
        let selection = try await affected(test)
        if let selection { selection.reasons.forEach { write("    \($0)\n") } }
        if let selection, selection.filters?.isEmpty == true {
            return (StageOutcome(kind: "test", status: .skipped, summary: "the change affects no test target of \(test.package)",
                                 seconds: 0), nil)
        }
        let run = try testRun(test, filters: selection?.filters ?? [])
        write("    building the tests of \(package.path) (\(test.configuration.rawValue))…\n")
        let prepared = try await run.prepare()
        let (report, findings) = try await run.run(prepared)
        write(report.render() + "\n")
        findings.render().forEach { write("    \($0)\n") }
        var outcome = StageOutcome(kind: "test", status: report.passed ? .passed : .failed,
                                   summary: report.summaryLine + (findings.page.map { "; snapshot review: \($0.path)" } ?? ""),
                                   seconds: 0)
        outcome.test = report
        outcome.snapshots = findings.page == nil ? nil : findings.entries.map(SnapshotEntry.init)
        return (outcome, findings)
    }

    /// The test stage's run: the session with the snapshot check over the checkout's references.
    func testRun(_ test: TestStage, filters: [String]) throws -> TestRun {
        let session = session(test, filters: filters)
        let write = self.write
        return try TestRun(settings: session.settings, options: session.options, timings: try timings(test),
                           snapshots: snapshotCheck(test),
                           junit: test.junit.map { URL(fileURLWithPath: $0, relativeTo: base).standardizedFileURL },
                           quarantine: quarantine, interactive: interactive, write: write)
    }

    /// The snapshot check over the checkout's references.
    func snapshotCheck(_ test: TestStage) -> SnapshotCheck {
        SnapshotCheck(package: package(of: test), local: transfers().stores.local(testPattern: spec.changes.tests))
    }

    /// For `select: affected`, what the change selects; nil for `select: all`.
    func affected(_ test: TestStage) async throws -> AffectedTests? {
        guard test.select == .affected else { return nil }
        return try await AffectedTests.select(package: package(of: test), repository: try CommitHistory(repositoryPath: base.path).workTree,
                                              changedPaths: changes.files.flatMap(\.touchedPaths))
    }
}

extension PipelineRunner {
    /// The dry run's detail for each stage, worked out without building, running or writing:
    /// the test shards from the recorded durations, and the objects each transfer would move
    /// (read from the stores). A stage that cannot be worked out gets a note saying why.
    public func detail(_ plan: PipelinePlan) async -> PipelinePlan {
        var plan = plan
        var context = Context()
        for (index, stage) in spec.stages.enumerated() {
            do {
                switch stage {
                case .pull(let pull):
                    let changed = pull.changedFrom == nil ? [] : try await changedTests(&context).all
                    plan.stages[index].transfers = try await transfers().pullForRun(
                        changed: changed, base: pull.from, changedFrom: pull.changedFrom, dryRun: true)
                case .test(let test):
                    let selection = try await affected(test)
                    let session = session(test, filters: selection?.filters ?? [], skipBuild: true)
                    let place = try self.timings(test)
                    let timings = try await place.timings.load()
                    let tests = timings.tests.keys.sorted().map { TestID($0, framework: .xctest) }
                    let selected = (try? session.options.select(tests)) ?? []
                    var notes = selection?.reasons ?? []
                    let snapshots = snapshotCheck(test)
                    notes.append("snapshots: \(SnapshotSwitches.record)=\(snapshots.mode.rawValue)"
                                 + (snapshots.writesFail ? " (CI: a missing reference fails, a written one too)" : "")
                                 + "; failed snapshots go to \(snapshots.artifacts.path) and are reviewed in \(snapshots.page.path)")
                    notes.append("timings: read from \(place) to plan, and updated there after the run")
                    if selection?.filters?.isEmpty == true {
                        notes.append("the stage would be skipped")
                    } else if selected.isEmpty {
                        notes.append("no recorded durations in \(place) yet: "
                                     + "the shards are planned when the tests are listed")
                    } else {
                        plan.stages[index].shards = ShardPlanner(timings: timings)
                            .plan(selected, shards: session.options.shards)
                            .map { PipelinePlan.ShardPlan(index: $0.index, expectedSeconds: $0.expectedSeconds, tests: $0.tests.map(\.name)) }
                    }
                    plan.stages[index].note = notes.isEmpty ? nil : notes.joined(separator: "\n")
                case .promote(let promote):
                    let changed = try await changedTests(&context)
                    guard !changed.all.isEmpty else {
                        plan.stages[index].note = "the change touched no test or reference folder, and pushed no reference: "
                            + "nothing to promote"
                        continue
                    }
                    var report = try await transfers().promote(
                        tests: changed.all, changes: changes, history: try CommitHistory(repositoryPath: base.path),
                        from: promote.from, to: promote.to, force: false, prune: promote.prune, dryRun: true)
                    report.pushed = changed.pushed
                    plan.stages[index].transfer = report
                case .push(let push):
                    let tests = try await changedTestsWithReferences()
                    guard !tests.isEmpty else {
                        plan.stages[index].note = "no changed test has local references: nothing to push"
                        continue
                    }
                    plan.stages[index].transfer = try await transfers().push(
                        tests: tests, to: [push.to], commit: changes.head, prune: push.prune, dryRun: true).first
                case .orphans, .review:
                    break
                }
            } catch {
                plan.stages[index].note = "cannot work this stage out: \(error)"
            }
        }
        return plan
    }
}
