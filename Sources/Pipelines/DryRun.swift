import GitChanges
import PipelineCore
import PipelineSpec
import References

/// What `pipeline run NAME --dry-run` would do, for people (`render()`) and machines (JSON).
/// The JSON form is documented in docs/json.md; fields are only ever added.
public struct DryRun: Sendable, Encodable {
    public let pipeline: String
    public let file: String
    public let description: String
    public let dryRun: Bool
    public let changes: ChangesDryRun
    /// What the compared commits changed, when the plan was made in a repository.
    public let changeSet: ChangeSet?
    public let references: ReferencesDryRun?
    public var stages: [StageDryRun]

    public struct ChangesDryRun: Sendable, Encodable {
        public let compare: String
        public let base: String?
        public let head: String?
        public let tests: String
        public let summary: String
    }

    public struct ReferencesDryRun: Sendable, Encodable {
        public let local: String?
        public let feature: String?
        public let develop: String?
    }

    public struct StageDryRun: Sendable, Encodable {
        public let kind: Stage.Kind
        public let summary: String
        public let test: TestDryRun?
        public let promote: PromoteDryRun?
        /// The store a `push` or `orphans` stage works on.
        public var store: StoreDryRun? = nil
        /// What the stage would do, worked out for a dry run: the shards (from recorded durations)
        /// or the objects that would be copied, skipped and pruned.
        public var shards: [ShardPlan]? = nil
        public var transfer: TransferReport? = nil
        /// A `pull` stage's transfers: develop for every test, then feature for the changed tests;
        /// a `promote` stage's in the render environments' sets other than the run's own.
        public var transfers: [TransferReport]? = nil
        /// Why the dry run could not work the stage out in detail.
        public var note: String? = nil
        /// The exit status the run would stop with at this stage (a store that does not exist, a
        /// comparison git cannot make), when working it out failed; the dry run exits with the first.
        public var exitStatus: Int32? = nil
    }

    /// The exit status the run would stop with: the first stage that could not be worked out.
    public var exitStatus: ExitStatus? {
        stages.lazy.compactMap { $0.exitStatus.flatMap(ExitStatus.init(rawValue:)) }.first
    }

    public struct StoreDryRun: Sendable, Encodable {
        public let role: String
        public let location: String?
    }

    public struct ShardPlan: Sendable, Encodable {
        public let index: Int
        public let expectedSeconds: Double
        public let tests: [String]
    }

    public struct TestDryRun: Sendable, Encodable {
        public let shards: String
        public let shardCount: Int
        public let timeoutSeconds: Double
        public let retries: Int
        public let select: String
        public let flaky: String
        public let package: String
        public let configuration: String
        public let timings: String?
        public let junit: String?
        public let outputLimitBytes: Int
    }

    public struct PromoteDryRun: Sendable, Encodable {
        public let from: String
        public let to: String
        public let fromLocation: String?
        public let toLocation: String?
        public let prune: Bool
    }

    public init(spec: PipelineSpec, file: String, availableCores: Int, dryRun: Bool, changeSet: ChangeSet? = nil) {
        self.changeSet = changeSet
        let describer = StageDescription(availableCores: availableCores)
        pipeline = spec.name
        self.file = file
        description = spec.description
        self.dryRun = dryRun
        changes = ChangesDryRun(
            compare: spec.changes.compare.rawValue, base: spec.changes.base,
            head: spec.changes.head, tests: spec.changes.tests,
            summary: describer.describe(
                spec.changes, parents: changeSet.map { $0.base == nil ? 0 : $0.headIsMerge ? 2 : 1 }))
        references = spec.references.map {
            ReferencesDryRun(local: $0.local, feature: $0.feature?.description, develop: $0.develop?.description)
        }
        stages = spec.stages.map { StageExecutors.executor(for: $0).dryRun(spec, cores: availableCores) }
    }

    /// The plan as people read it.
    public func render() -> String {
        var lines = ["pipeline \(pipeline) (\(file))", "  \(description)", ""]
        lines.append("changes: \(changes.summary)")
        if let changeSet {
            lines += ChangeReport.render(changeSet).map { "  " + $0 }
        }
        if let references {
            let stores = [
                ("local", references.local), ("feature", references.feature), ("develop", references.develop),
            ]
            .compactMap { name, value in value.map { "\(name) \($0)" } }
            if !stores.isEmpty { lines.append("references: " + stores.joined(separator: ", ")) }
        }
        lines.append("stages:")
        let width = stages.map(\.kind.rawValue.count).max() ?? 0
        for (index, stage) in stages.enumerated() {
            let padding = String(repeating: " ", count: width - stage.kind.rawValue.count)
            lines.append("  \(index + 1). \(stage.kind.rawValue)\(padding)  \(stage.summary)")
            let indent = "       "
            if let note = stage.note { lines += note.split(separator: "\n").map { indent + $0 } }
            for shard in stage.shards ?? [] {
                lines.append(
                    indent + "shard \(shard.index): \(counted(shard.tests.count, "test")), expected "
                        + String(format: "%.2f", shard.expectedSeconds) + " s")
            }
            for transfer in (stage.transfer.map { [$0] } ?? []) + (stage.transfers ?? []) {
                lines += transfer.render(listLimit: 10).map { indent + $0 }
            }
        }
        if dryRun {
            lines += ["", "dry run: nothing was built, run, written or uploaded"]
        }
        return lines.joined(separator: "\n")
    }
}
