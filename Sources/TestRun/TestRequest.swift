import CISystem
import Coverage
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import SnapshotReview
import TestCore
import TestSharding

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
        /// Build, keep the build in the cache (and the test products for the CI run's nodes), run nothing.
        case buildOnly

        package var isBuildOnly: Bool {
            if case .buildOnly = self { true } else { false }
        }

        /// Whether the tests run once, for a report (coverage is measured only then).
        var runs: Bool {
            if case .run = self { true } else { false }
        }
    }

    public let package: URL
    public let configuration: BuildConfiguration
    /// How the tests are built: the package, the configuration, `swift build`'s arguments (the build
    /// system named in them) and whether to build at all. The build cache (`buildCache`) adds to it.
    public let build: BuildSettings
    /// The build cache (`--build-cache`, a test stage's `build-cache:`; CachedBuilds' `BuildCacheUse`):
    /// what readies the build and keeps what it built.
    public let buildCache: (any BuildPreparer)?
    public let mode: Mode
    public let cores: Int
    /// How the tests are split, bounded, retried and chosen.
    public let limits: Limits
    /// The quarantine file; nil looks for `pipelines/quarantine.yml` around the package.
    public let quarantineFile: (url: URL, display: String)?
    /// The quarantine already read (a pipeline run's), over `quarantineFile`.
    public let quarantine: Quarantine?
    /// Where the timings are kept, and the shared run to join.
    public let shared: RunSharing
    public let updatesTimings: Bool
    public let junit: URL?
    public let review: URL?
    /// Coverage to measure and where to write it (`--coverage`); nil measures none.
    public let coverage: CoverageRequest?
    /// Record what each suite executed, beside the timings (`--record-impact`; measures coverage).
    public let mapsImpact: Bool
    /// Which tests run: all, the affected targets, or the suites the change can reach (the spec's `select:`).
    public let selection: TestSelection
    /// The change `affected` selects by; with `impacted`, the map's commit (or `impactBase`) to the working tree.
    public let changes: ChangeSource?
    public let impactBase: String?
    /// The stores the spec names (the references, CI's candidates, timings kept in a store); nil
    /// when there is no spec, or it is ambiguous and none is needed.
    public let stores: ReferenceStores?
    /// How test files are named (the spec's `changes.tests`), for the checkout's references.
    public let testPattern: String
    /// In CI with a feature store, keep failed snapshots' new values there for `refs accept`.
    public let keepsCandidates: Bool
    /// The commit a CI run's candidates are kept under, before a pull request's synthetic merge is
    /// resolved to its branch head; nil: the repository's HEAD.
    public let candidatesCommit: String?
    /// The heading of the CI's report (GitHub's step summary).
    /// Where a passing run's verdict is looked for first and kept after (docs/ci.md, "Tested once").
    public let verdicts: VerdictSettings?
    public let title: String
    public let interactive: Bool
    /// Progress and notes, for standard error.
    public let write: @Sendable (String) -> Void

    /// The request, made once by whichever entry point asks (`pipeline test`, `pipeline import`, a
    /// pipeline's test stage, `refs record`); what it leaves out is `pipeline test`'s default.
    public init(
        package: URL, shared: RunSharing, cores: Int, configuration: BuildConfiguration = .debug,
        skipBuild: Bool = false, buildSystem: BuildSystemName? = nil, buildArguments: [String] = [],
        buildCache: (any BuildPreparer)? = nil, mode: Mode = .run,
        limits: Limits = Limits(),
        quarantineFile: (url: URL, display: String)? = nil, quarantine: Quarantine? = nil,
        updatesTimings: Bool = true, junit: URL? = nil, review: URL? = nil, coverage: CoverageRequest? = nil,
        mapsImpact: Bool = false, selection: TestSelection = .all, changes: ChangeSource? = nil,
        impactBase: String? = nil, stores: SpecStores? = nil, keepsCandidates: Bool = true,
        candidatesCommit: String? = nil, verdicts: VerdictSettings? = nil, title: String = "pipeline test",
        interactive: Bool = CIContext().isInteractive, write: @escaping @Sendable (String) -> Void
    ) {
        self.package = package
        self.shared = shared
        self.cores = cores
        self.configuration = configuration
        // A build system named (`--build-system`, `build-system:`, else `PIPELINE_BUILD_SYSTEM`) goes
        // to `swift build` as its own flag.
        self.build = BuildSettings(
            packagePath: package, configuration: configuration.rawValue,
            extraArguments: BuildSettings.naming(
                (buildSystem.map { ["--build-system", $0.rawValue] } ?? []) + buildArguments,
                variables: shared.variables),
            skipBuild: skipBuild)
        self.buildCache = buildCache
        self.mode = mode
        self.limits = limits
        self.quarantineFile = quarantineFile
        self.quarantine = quarantine
        self.updatesTimings = updatesTimings
        self.junit = junit
        self.review = review
        self.coverage = coverage
        self.mapsImpact = mapsImpact
        self.selection = selection
        self.changes = changes
        self.impactBase = impactBase
        self.stores = stores?.stores
        self.testPattern = stores?.testPattern ?? "*"
        self.keepsCandidates = keepsCandidates
        self.candidatesCommit = candidatesCommit
        self.verdicts = verdicts
        self.title = title
        self.interactive = interactive
        self.write = write
    }

    /// How the tests are split, bounded, retried and chosen: the options `pipeline test` and a
    /// test stage share.
    public struct Limits: Sendable {
        public var shards: ShardCount = .auto
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
        public var queueLease: Duration = .seconds(120)
        public var clockSkew: Duration = .seconds(60)
        /// A test whose recorded durations give a p90 is stopped far past it (nil: only `timeout`).
        public var historyTimeout: HistoryTimeout? = .standard

        public init(
            shards: ShardCount = .auto, node: Node = .whole, timeout: Duration = .seconds(600), retries: Int = 0,
            maxRetried: Int? = nil, flaky: FlakyPolicy = .fail, outputLimit: ByteCount = ByteCount(1 << 20),
            filters: [String] = [], skips: [String] = [], failedOnly: Bool = false, flakeThreshold: Double = 0.1,
            queueLease: Duration = .seconds(120), clockSkew: Duration = .seconds(60)
        ) {
            (self.shards, self.node, self.timeout, self.retries, self.maxRetried) =
                (shards, node, timeout, retries, maxRetried)
            (self.flaky, self.outputLimit, self.filters, self.skips, self.failedOnly) =
                (flaky, outputLimit, filters, skips, failedOnly)
            (self.flakeThreshold, self.queueLease, self.clockSkew) = (flakeThreshold, queueLease, clockSkew)
        }
    }
}

extension TestRequest {
    /// What opens a store an address names (`--build-cache`, `--reuse-verdicts`, a stage's
    /// `build-cache:`): the spec's stores when the request has them, else the command line's.
    public func addressedStores() throws -> ReferenceStores {
        try stores ?? shared.commandLineStores()
    }
}

/// The stores and test pattern of a spec, for a request: found as the reference commands find it,
/// or a pipeline run's own.
public struct SpecStores: Sendable {
    public let stores: ReferenceStores
    public let testPattern: String

    public init(stores: ReferenceStores, testPattern: String) {
        self.stores = stores
        self.testPattern = testPattern
    }

    /// The spec found from the working folder (`shared.pipeline` when named, else the one pipeline
    /// that sets references), its stores opened with the run's environment (`environment`, a
    /// command's `--environment`), so a run in CI keeps its candidates and reads where references
    /// were rendered. Specs that name different references are an error only where a store is
    /// needed (timings kept in one); otherwise the run goes on without (nil), saying so in CI.
    public static func locate(
        for shared: RunSharing, environment: String?, write: @Sendable (String) -> Void
    ) async throws -> SpecStores? {
        let source: ReferenceSource
        do {
            source = try ReferenceSource.locate(from: shared.workingDirectory, pipeline: shared.pipeline)
        } catch let error as RequestError {
            if case .store = shared.timings ?? .local { throw error }
            if CIContext(shared.variables).isCI {
                write("note: \(error); failed snapshots' renderings are not kept for 'pipeline refs accept'\n")
            }
            return nil
        }
        guard let spec = source.spec else { return nil }
        let stores = try await ReferenceStores(
            settings: spec.references ?? ReferenceSettings(), base: source.base, origin: source.origin,
            variables: shared.variables, named: environment)
        return SpecStores(stores: stores, testPattern: spec.changes.tests)
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
    /// Nothing was run, and why.
    case nothingToRun(NothingToRun)
    /// The selected tests' names (`--list`).
    case listed([String])
    /// The plan (`--plan`): the shards or batches, and their description for people.
    case planned([Shard], description: String)
    /// A flake hunt's report (`--repeat`).
    case hunted(RepeatReport)
    /// `--build-only`: what was built and kept.
    case built(String)
    /// A run's report (nil when the other nodes of a shared run ran every batch), its snapshot
    /// findings, its coverage (when measured), and the store error that ended a shared run's claiming.
    case ran(TestReport?, SnapshotFindings, coverage: CoverageReport?, storeFailure: (any Error)?)

    /// A run's snapshot findings; nil for an outcome that ran nothing.
    public var findings: SnapshotFindings? {
        if case .ran(_, let findings, _, _) = self { findings } else { nil }
    }
}

/// Why a run ran nothing, which a pipeline's test stage reports as skipped.
public enum NothingToRun: Sendable, Equatable {
    /// `select: affected`: the change affects no test target.
    case noAffectedTarget
    /// `--impacted`: no test is reachable from the change.
    case noReachableTest
    /// `--failed`: the last run (where it was read, its summary) left no test failing.
    case nothingFailing(origin: String, summary: String)

    /// The sentence `pipeline test` prints.
    public var message: String {
        switch self {
        case .noAffectedTarget: "No test target is affected by the change; nothing to run."
        case .noReachableTest: "No test is reachable from the change; nothing to run."
        case .nothingFailing(let origin, let summary):
            "The last run (\(origin): \(summary)) left no test failing: nothing to run."
        }
    }
}
