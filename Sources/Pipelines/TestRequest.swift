import CISystem
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
    /// The quarantine already read (a pipeline run's), over `quarantineFile`.
    public var quarantine: Quarantine?
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
    /// Which tests run: all, the affected targets, or the suites the change can reach (the spec's `select:`).
    public var selection: TestSelection = .all
    /// The change `affected` selects by; with `impacted`, the map's commit (or `impactBase`) to the working tree.
    public var changes: ChangeSource?
    public var impactBase: String?
    /// The stores the spec names (the references, CI's candidates, timings kept in a store); nil
    /// when there is no spec, or it is ambiguous and none is needed.
    public var stores: ReferenceStores?
    /// How test files are named (the spec's `changes.tests`), for the checkout's references.
    public var testPattern = "*"
    /// The render environment's name the command line gave (`--environment`), over
    /// `PIPELINE_ENVIRONMENT` and the spec's, for the spec's stores.
    public var environmentName: String?
    /// In CI with a feature store, keep failed snapshots' new values there for `refs accept`.
    public var keepsCandidates = true
    /// The commit a CI run's candidates are kept under, before a pull request's synthetic merge is
    /// resolved to its branch head; nil: the repository's HEAD.
    public var candidatesCommit: String?
    /// The heading of the CI's report (GitHub's step summary).
    public var title = "pipeline test"
    public var interactive = CIEnvironment().isInteractive
    /// Progress and notes, for standard error.
    public var write: @Sendable (String) -> Void

    public init(package: URL, shared: SharedRunSettings, cores: Int, write: @escaping @Sendable (String) -> Void) {
        self.package = package
        self.shared = shared
        self.cores = cores
        self.write = write
    }
}

extension TestRequest {
    /// Takes the stores and test pattern of the spec found as the reference commands find it from
    /// the working folder (`shared.pipeline` when named, else the one pipeline that sets
    /// references), so a run in CI keeps its candidates and reads where references were rendered.
    /// Specs that name different references are an error only where a store is needed (timings
    /// kept in one); otherwise the run goes on without, saying so in CI.
    public mutating func useSpecStores() async throws {
        let source: ReferenceSource
        do {
            source = try ReferenceSource.locate(from: shared.workingDirectory, pipeline: shared.pipeline)
        } catch let error as RequestError {
            if case .store = shared.timings ?? .local { throw error }
            if CIEnvironment(shared.environment).isCI {
                write("note: \(error); failed snapshots' renderings are not kept for 'pipeline refs accept'\n")
            }
            return
        }
        guard let spec = source.spec else { return }
        var found = ReferenceStores(
            settings: spec.references ?? ReferenceSettings(), base: source.base, origin: source.origin,
            environment: shared.environment)
        try await found.resolveEnvironment(named: environmentName)
        stores = found
        testPattern = spec.changes.tests
    }
}

/// The change a selection reads: asked for by flags, or already found (a pipeline run's).
public enum ChangeSource: Sendable {
    case query(ChangeQuery)
    case known(ChangeSet)

    func changes(in package: URL) throws -> ChangeSet {
        switch self {
        case .query(let query): try query.changes(in: package)
        case .known(let changes): changes
        }
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
