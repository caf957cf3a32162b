import Coverage
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import TestCore
import TestRun

/// How one stage ended.
public struct StageOutcome: Sendable, Encodable {
    public enum Status: String, Sendable, Encodable {
        case passed, failed, skipped
    }

    public let kind: Stage.Kind
    public let status: Status
    /// One line: what the stage did, or why it was skipped.
    public let summary: String
    public var seconds: Double = 0
    public var test: TestReport? = nil
    public var transfers: [TransferReport]? = nil
    public var orphans: [Orphan]? = nil
    /// The test stage's failed snapshots and written references, as its review page shows them.
    public var snapshots: [SnapshotEntry]? = nil
    /// The test stage's coverage totals, when it measures coverage.
    public var coverage: CoverageReport.Summary.Totals? = nil

    public init(kind: Stage.Kind, status: Status, summary: String) {
        self.kind = kind
        self.status = status
        self.summary = summary
    }

    /// A stage with nothing to do: skipped, saying why.
    static func skipped(_ kind: Stage.Kind, _ reason: String) -> StageOutcome {
        StageOutcome(kind: kind, status: .skipped, summary: reason)
    }

    /// A transfer stage's outcome: the objects copied, identical, deleted and failed.
    static func transferred(_ kind: Stage.Kind, _ reports: [TransferReport]) -> StageOutcome {
        let copied = reports.map(\.copied.count).reduce(0, +)
        let identical = reports.map(\.identical).reduce(0, +)
        let deleted = reports.map(\.deleted.count).reduce(0, +)
        let failed = reports.map(\.failures.count).reduce(0, +)
        let tests = Set(reports.flatMap(\.tests)).sorted()
        var summary = "\(tests.count) test(s): copied \(copied), identical \(identical), deleted \(deleted)"
        if failed > 0 { summary += ", \(failed) failed" }
        var outcome = StageOutcome(kind: kind, status: failed == 0 ? .passed : .failed, summary: summary)
        outcome.transfers = reports
        return outcome
    }
}

/// One entry of a snapshot review, in a pipeline's JSON outcome.
public struct SnapshotEntry: Sendable, Encodable {
    public let key: String
    public let status: String
    public let test: String?
    public let matchRatio: Double?
    public let note: String?
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
        let width = stages.map(\.kind.rawValue.count).max() ?? 0
        for stage in stages {
            let kind = stage.kind.rawValue
            let padding = String(repeating: " ", count: width - kind.count)
            lines.append(
                "  \(kind)\(padding)  \(stage.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
                    + "\(stage.summary) (\(String(format: "%.1f", stage.seconds)) s)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Runs a pipeline's stages in order over one shared context: the changes found, the test results,
/// the references moved. Each stage kind has one executor, which serves the run and the dry run.
/// Promotion never runs after a failed test stage; a stage with nothing to do says so and is
/// skipped; an error (storage, build, git) stops the pipeline there.
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
    /// The render environment's name a command line gave (`--environment`), over
    /// `PIPELINE_ENVIRONMENT` and the spec's.
    public let environmentName: String?
    /// Whether the comparison started from develop's record of the last promoted commit (or
    /// would have, had there been one): then a completed promotion records the head there.
    public let comparedFromPromoted: Bool

    public init(
        spec: PipelineSpec, base: URL, origin: String, changes: ChangeSet, quarantine: Quarantine? = nil, cores: Int,
        interactive: Bool, environmentName: String? = nil, comparedFromPromoted: Bool = false,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.spec = spec
        self.environmentName = environmentName
        self.comparedFromPromoted = comparedFromPromoted
        self.base = base.standardizedFileURL
        self.origin = origin
        self.changes = changes
        self.quarantine = quarantine
        self.cores = cores
        self.interactive = interactive
        self.write = write
    }

    /// The pipeline `pipelines/<name>.yml` found from `directory`, over what the commits `query`
    /// names (after the spec's `changes:`) changed, with the repository's quarantine. A pipeline
    /// that promotes to develop over a merge comparison reads develop's record of the last
    /// promoted commit first and catches up from it (`ChangeQuery.promoted`). With `only`, just
    /// the stages named (`only(_:of:origin:)`); `environmentName` is `--environment`'s.
    public static func load(
        named name: String, from directory: URL, changes query: ChangeQuery, only: [String]? = nil,
        environmentName: String? = nil, cores: Int, interactive: Bool, write: @escaping @Sendable (String) -> Void
    ) async throws -> PipelineRunner {
        let catalog = try PipelineCatalog.locate(from: directory)
        let file = try catalog.file(named: name)
        let origin = catalog.displayPath(of: file)
        var spec = try SpecLoader.load(file, displayPath: origin)
        let base = catalog.folder.deletingLastPathComponent()
        var query = query
        if query.head == nil, query.base == nil, query.mergeBase == nil, spec.changes.compare == .merge,
            spec.changes.head == nil, let references = spec.references, references.address(of: .develop) != nil,
            spec.stages.contains(where: { if case .promote(let stage) = $0 { stage.to == .develop } else { false } })
        {
            // Best effort: a develop store that cannot be opened is the stages' to report.
            let stores = ReferenceStores(sharedSetsOf: references, base: base, origin: origin)
            do {
                query.promoted = await PromotedHead.read(develop: try stores.sharedFolder(.develop))
            } catch {
                query.promoted = PromotedHead.Read(problem: "\(error)")
            }
        }
        let changes = try query.changes(in: directory, settings: spec.changes)
        let quarantine = try QuarantineLoader.file(in: catalog).map {
            try QuarantineLoader.load($0, displayPath: catalog.displayPath(of: $0))
        }
        // After the comparison: every job of a pipeline compares as the whole pipeline would.
        if let only { spec.stages = try Self.only(only, of: spec, origin: origin) }
        return PipelineRunner(
            spec: spec, base: base, origin: origin, changes: changes, quarantine: quarantine, cores: cores,
            interactive: interactive, environmentName: environmentName, comparedFromPromoted: query.promoted != nil,
            write: write)
    }

    /// Keeps only the stages named (`pipeline run NAME --only pull,test`), in the spec's order: a
    /// CI job that runs part of a pipeline, such as a matrix node's pull before its share of the
    /// tests, or the promotion after every node passed. A name the spec has no stage of is an error.
    static func only(_ names: [String], of spec: PipelineSpec, origin: String) throws -> [Stage] {
        let known = spec.stages.map(\.kind.rawValue)
        for name in names where !known.contains(name) {
            throw RequestError(
                "--only \(name): \(origin) has no \(name) stage (its stages: \(known.joined(separator: ", ")))")
        }
        return spec.stages.filter { names.contains($0.kind.rawValue) }
    }

    /// The dry run: the plan with each stage's detail worked out, and nothing built, run or written.
    public func dryRun() async -> DryRun {
        await detail(DryRun(spec: spec, file: origin, availableCores: cores, dryRun: true, changeSet: changes))
    }

    /// Runs the stages after saying what changed. A test stage's results reach the CI (annotations,
    /// step summary) from the test flow that ran them, once: not again here.
    public func run() async throws -> PipelineOutcome {
        write(ChangeReport.render(changes).joined(separator: "\n") + "\n")
        return try await runStages()
    }

    /// Runs the stages in order.
    func runStages() async throws -> PipelineOutcome {
        let start = ContinuousClock.now
        var outcome = PipelineOutcome(pipeline: spec.name, changes: changes, stages: [], seconds: 0)
        var context = StageContext(runner: self)
        for (index, stage) in spec.stages.enumerated() {
            let executor = StageExecutors.executor(for: stage)
            write("==> [\(index + 1)/\(spec.stages.count)] \(stage.kind.rawValue): \(executor.summary(cores: cores))\n")
            let stageStart = ContinuousClock.now
            var result = try await executor.run(in: &context)
            result.seconds = (ContinuousClock.now - stageStart).seconds
            write("    \(result.status.rawValue): \(result.summary)\n")
            outcome.stages.append(result)
            context.finished.append(result)
        }
        outcome.seconds = (ContinuousClock.now - start).seconds
        return outcome
    }

    /// The dry run's detail for each stage, worked out without building, running or writing:
    /// the test shards from the recorded durations, and the objects each transfer would move
    /// (read from the stores). A stage that cannot be worked out gets a note saying why.
    public func detail(_ plan: DryRun) async -> DryRun {
        var plan = plan
        var context = StageContext(runner: self)
        for (index, stage) in spec.stages.enumerated() {
            do {
                try await StageExecutors.executor(for: stage).detail(&plan.stages[index], in: &context)
            } catch {
                plan.stages[index].note = "cannot work this stage out: \(error)"
                plan.stages[index].exitStatus = (ExitStatus.classify(error)?.status ?? .internalError).rawValue
            }
        }
        return plan
    }
}

/// What the stages of one run share: the runner's settings, and what earlier stages handed on.
struct StageContext {
    let runner: PipelineRunner
    /// The stages that ran before this one.
    var finished: [StageOutcome] = []
    /// The changed tests, found once: changed files, and references the compared commits pushed.
    private var changed: (all: [String], pushed: [String])?
    /// The test stage's outcome, whose snapshot findings the review stage shows.
    var tested: TestOutcome?
    /// The spec's stores, once opened (`transfers()`).
    private var opened: ReferenceTransfers?

    init(runner: PipelineRunner) {
        self.runner = runner
    }

    var testsFailed: Bool {
        finished.contains { $0.kind == .test && $0.status == .failed }
    }

    mutating func changedTests() async throws -> (all: [String], pushed: [String]) {
        if let changed { return changed }
        let found = try await transfers().changedTests(runner.changes, history: try history())
        changed = found
        return found
    }

    func history() throws -> CommitHistory {
        try CommitHistory(repositoryPath: runner.base.path)
    }

    /// The transfers over the spec's stores, the run's environment named: opened once per run,
    /// for every stage.
    mutating func transfers() async throws -> ReferenceTransfers {
        if let opened { return opened }
        let stores = try await ReferenceStores(
            settings: runner.spec.references ?? ReferenceSettings(), base: runner.base, origin: runner.origin,
            named: runner.environmentName)
        let write = runner.write
        let transfers = ReferenceTransfers(
            stores: stores, testPattern: runner.spec.changes.tests, integrationBranch: runner.spec.changes.base,
            progress: { action, done, total in
                if done == total { write("    \(action): \(done)/\(total) objects\n") }
            })
        opened = transfers
        return transfers
    }

    /// A path of the spec, absolute: relative to the folder holding `pipelines/`.
    func resolve(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: runner.base).standardizedFileURL
    }
}

/// One stage kind's work: its summary, its run, and its dry run's detail.
protocol StageExecutor: Sendable {
    /// One line saying what the stage does, for `pipeline list`, the plan and the run's headers.
    func summary(cores: Int) -> String
    /// The stage as the plan shows it before anything is worked out.
    func dryRun(_ spec: PipelineSpec, cores: Int) -> DryRun.StageDryRun
    func run(in context: inout StageContext) async throws -> StageOutcome
    /// Fills in what the stage would do, building, running and writing nothing.
    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws
}

extension StageExecutor {
    func detail(_ plan: inout DryRun.StageDryRun, in context: inout StageContext) async throws {}
}

/// The executor of each stage kind.
enum StageExecutors {
    /// The executor of `stage`'s kind.
    static func executor(for stage: Stage) -> any StageExecutor {
        switch stage {
        case .pull(let stage): PullExecutor(stage: stage)
        case .test(let stage): TestExecutor(stage: stage)
        case .promote(let stage): PromoteExecutor(stage: stage)
        case .push(let stage): PushExecutor(stage: stage)
        case .review(let stage): ReviewExecutor(stage: stage)
        case .orphans(let stage): OrphansExecutor(stage: stage)
        }
    }
}

extension DryRun.StageDryRun {
    /// A stage that names a store (`pull`, `push`, `review`, `orphans`).
    init(_ kind: Stage.Kind, summary: String, store role: StoreRole, in spec: PipelineSpec) {
        self.init(
            kind: kind, summary: summary, test: nil, promote: nil,
            store: DryRun.StoreDryRun(
                role: role.rawValue, location: spec.references?.address(of: role)?.description))
    }
}
