/// A pipeline, as read from `pipelines/<name>.yml` and validated.
public struct PipelineSpec: Sendable, Hashable {
    public var name: String
    public var description: String
    public var changes: ChangeSettings
    public var references: ReferenceSettings?
    public var stages: [Stage]

    public init(
        name: String, description: String, changes: ChangeSettings = .init(),
        references: ReferenceSettings? = nil, stages: [Stage]
    ) {
        self.name = name
        self.description = description
        self.changes = changes
        self.references = references
        self.stages = stages
    }
}

/// Which commits a pipeline compares, and how test directories and files are named.
public struct ChangeSettings: Sendable, Hashable {
    public var compare: CompareMode
    /// A name pattern (`*` and `?` wildcards) for test directories; test files are `<pattern>.swift`.
    public var tests: String
    public var base: String?
    public var head: String?

    public init(compare: CompareMode = .merge, tests: String = "*Tests", base: String? = nil, head: String? = nil) {
        self.compare = compare
        self.tests = tests
        self.base = base
        self.head = head
    }
}

/// What a test stage does with verdicts (`verdicts:`): `keep` a passing run's, in feature (develop
/// for a pipeline that promotes into it); `reuse` one of the same key from feature or develop first,
/// and keep its own.
public enum VerdictUse: String, Sendable, Hashable, CaseIterable, SpecEnum {
    case keep, reuse

    static let noun = "verdicts setting"
}

public enum CompareMode: String, Sendable, Hashable, CaseIterable, SpecEnum {
    /// The merge commit (HEAD by default) against its first parent.
    case merge
    /// Any two revisions: `base` and `head`.
    case range
    /// The merge base of `base` and `head` against `head`.
    case mergeBase = "merge-base"

    static let noun = "comparison"
}

/// Where reference images live: a local folder and the `feature` and `develop` stores.
public struct ReferenceSettings: Sendable, Hashable {
    public var local: String?
    public var feature: StoreAddress?
    public var develop: StoreAddress?
    /// An S3-compatible endpoint (`https://s3.example.com`); AWS when absent.
    public var endpoint: String?
    public var region: String?
    /// A profile from `~/.aws/credentials`; the environment's credentials when absent.
    public var profile: String?
    /// Allow plain `http://` to an endpoint that is not on this machine.
    public var allowHTTP: Bool
    /// The render environment's name, as a template over its fields (`EnvironmentName`): each
    /// store keeps this environment's references in a folder of that name. Nil: one shared set.
    public var environment: String?
    /// The environments whose references a pull takes, in order, after the run's own; the shared
    /// set comes last always.
    public var fallback: [String]
    /// The address serving what feature holds (`<review-url>/<key under feature>`: the bucket's
    /// public or website address, or a web server over the folder): a CI run's review links use it
    /// instead of presigned S3 links.
    public var reviewURL: String?
    /// Whether a CI run's review links may be presigned S3 links (which anyone holding them opens
    /// for 7 days): nil, unless the repository is public (its logs and summaries are); true, also
    /// in a public repository; false, never.
    public var presignedLinks: Bool?

    public init(
        local: String? = nil, feature: StoreAddress? = nil, develop: StoreAddress? = nil,
        endpoint: String? = nil, region: String? = nil, profile: String? = nil, allowHTTP: Bool = false,
        environment: String? = nil, fallback: [String] = []
    ) {
        self.environment = environment
        self.fallback = fallback
        self.local = local
        self.feature = feature
        self.develop = develop
        self.endpoint = endpoint
        self.region = region
        self.profile = profile
        self.allowHTTP = allowHTTP
    }

    public func address(of role: StoreRole) -> StoreAddress? {
        switch role {
        case .feature: feature
        case .develop: develop
        }
    }
}

/// The two reference stores a team keeps.
public enum StoreRole: String, Sendable, Hashable, CaseIterable, SpecEnum {
    case feature
    case develop

    static let noun = "store"
}

/// One step of a pipeline, run in the order written.
public enum Stage: Sendable, Hashable {
    case pull(PullStage)
    case test(TestStage)
    case promote(PromoteStage)
    case push(PushStage)
    case orphans(OrphansStage)
    case review(ReviewStage)

    public enum Kind: String, Sendable, CaseIterable, Encodable, SpecEnum {
        case pull
        case test
        case promote
        case push
        case orphans
        case review

        static let noun = "stage"
    }

    public var kind: Kind {
        switch self {
        case .pull: .pull
        case .test: .test
        case .promote: .promote
        case .push: .push
        case .orphans: .orphans
        case .review: .review
        }
    }
}

/// Brings the references into the checkout before the tests, for teams that keep them out of git:
/// every test's references from `from` (develop), then the changed tests' from `changedFrom`
/// (feature), where it holds them. Each test's local folder is made what the store holds.
public struct PullStage: Sendable, Hashable {
    public var from: StoreRole
    /// The store the changed tests' references come from; nil pulls every test from `from` alone.
    public var changedFrom: StoreRole?

    public init(from: StoreRole = .develop, changedFrom: StoreRole? = .feature) {
        self.from = from
        self.changedFrom = changedFrom
    }
}

/// A store, or none: how `changed-from` is written.
enum OptionalStore: String, CaseIterable, SpecEnum {
    case feature, develop, none

    static let noun = "store (feature, develop or none)"
    var role: StoreRole? { StoreRole(rawValue: rawValue) }
}

/// Runs the package's tests in parallel shards.
public struct TestStage: Sendable, Hashable {
    public var shards: ShardCount
    /// The limit for one test; a test running longer is stopped and reported as timed out.
    public var timeout: Duration
    /// How many times a failing test is run again; one that then passes is reported flaky.
    public var retries: Int
    /// When more tests than this fail, none is retried; nil retries any number.
    public var maxRetried: Int?
    /// `history-timeout: false`: every test has the whole `timeout`, whatever its recorded durations.
    public var historyTimeout = true
    public var select: TestSelection
    public var flaky: FlakyPolicy
    /// Where the recorded test durations that balance the shards are kept, as written; see `timingsPlace`.
    public var timings: TimingsAddress?
    /// Where to write the merged JUnit report.
    public var junit: String?
    /// The Swift package to test, relative to the repository.
    public var package: String
    public var configuration: BuildConfiguration
    /// How much of a failing test's output is kept in reports.
    public var outputLimit: ByteCount
    /// Code coverage to measure (`coverage: true`, or its settings); nil measures none.
    public var coverage: CoverageSpec?
    /// `impact: record`: record what each suite executes, beside the timings, for `select: impacted`.
    public var recordsImpact = false
    /// In CI, keep failed snapshots' new values in the feature store for `refs accept` (`candidates: false` turns it off).
    public var keepsCandidates = true
    /// Where builds are kept and restored from (`build-cache:`): a folder or an S3 prefix.
    public var buildCache: StoreAddress?
    /// `build-system:`, the build system that builds the tests; nil: the toolchain's default.
    public var buildSystem: BuildSystemName?
    /// `verdicts:`: keep a passing run's verdict (`keep`), and first look for one of the same key
    /// (`reuse`; docs/ci.md, "Tested once"); nil: neither.
    public var verdicts: VerdictUse?
    /// `full-every:`: a verdict composed on this many others since the last whole-suite run is not
    /// reused: the whole suite runs (docs/ci.md, "Composed verdicts"); nil: no bound.
    public var fullEvery: Int?

    public init(
        shards: ShardCount = .auto, timeout: Duration = .seconds(600), retries: Int = 0, maxRetried: Int? = nil,
        select: TestSelection = .all, flaky: FlakyPolicy = .fail, timings: TimingsAddress? = nil,
        junit: String? = nil, package: String = ".", configuration: BuildConfiguration = .debug,
        outputLimit: ByteCount = ByteCount(1 << 20), coverage: CoverageSpec? = nil
    ) {
        self.shards = shards
        self.timeout = timeout
        self.retries = retries
        self.maxRetried = maxRetried
        self.select = select
        self.flaky = flaky
        self.timings = timings
        self.junit = junit
        self.package = package
        self.configuration = configuration
        self.outputLimit = outputLimit
        self.coverage = coverage
    }

    /// Where the stage keeps its durations: its `timings:`; else, when `references` has a store, the
    /// develop store (or the feature store), so every CI machine plans from the team's durations
    /// from its first run; else the package's own file.
    public func timingsPlace(_ references: ReferenceSettings?) -> TimingsAddress {
        if let timings { return timings }
        if references?.develop != nil { return .store(.develop) }
        if references?.feature != nil { return .store(.feature) }
        return .local
    }
}

/// A test stage's `coverage:` settings (docs/spec.md).
public struct CoverageSpec: Sendable, Hashable {
    /// Line coverage below this fails the run (exit 9).
    public var minLines: Percentage?
    /// Where the reports go, relative to the repository; nil: `<package>/.build/pipeline/coverage`.
    public var dir: String?
    /// Regular expressions over source paths: files to add, and to leave out.
    public var include: String?
    public var exclude: String?

    public init(minLines: Percentage? = nil, dir: String? = nil, include: String? = nil, exclude: String? = nil) {
        self.minLines = minLines
        self.dir = dir
        self.include = include
        self.exclude = exclude
    }
}

public enum TestSelection: String, Sendable, Hashable, CaseIterable, SpecEnum {
    /// Every test of the package.
    case all
    /// Only the test targets that depend on what the change touched.
    case affected
    /// Only the suites the change can reach, by the impact map kept beside the timings.
    case impacted
    /// As `impacted`, but a store that cannot be reached runs every test instead of stopping.
    case impactedOrAll = "impacted-or-all"

    /// Whether the impact map selects.
    public var usesImpact: Bool { self == .impacted || self == .impactedOrAll }

    static let noun = "selection"
}

public enum FlakyPolicy: String, Sendable, Hashable, CaseIterable, SpecEnum {
    /// A test that passed only on retry fails the run.
    case fail
    /// A test that passed only on retry is reported but does not fail the run.
    case pass

    static let noun = "flaky policy"
}

public enum BuildConfiguration: String, Sendable, Hashable, CaseIterable, SpecEnum {
    case debug
    case release

    static let noun = "build configuration"
}

/// SwiftPM's build systems: its native one, and Swift Build (SwiftPM 6.4's default).
public enum BuildSystemName: String, Sendable, Hashable, CaseIterable, SpecEnum {
    case native
    case swiftbuild

    static let noun = "build system"
}

/// Makes one store hold what another holds for the changed tests.
public struct PromoteStage: Sendable, Hashable {
    public var from: StoreRole
    public var to: StoreRole
    /// Delete what the destination has and the source no longer does.
    public var prune: Bool
    /// Promote even when the test stage failed (by default a failed test stage stops promotion).
    public var evenIfTestsFail: Bool

    public init(
        from: StoreRole = .feature, to: StoreRole = .develop, prune: Bool = false, evenIfTestsFail: Bool = false
    ) {
        self.from = from
        self.to = to
        self.prune = prune
        self.evenIfTestsFail = evenIfTestsFail
    }
}

/// Uploads the changed tests' local references to a store (a pull request's references to feature).
public struct PushStage: Sendable, Hashable {
    public var to: StoreRole
    /// Delete what the store has of those tests and the checkout no longer does.
    public var prune: Bool

    public init(to: StoreRole = .feature, prune: Bool = false) {
        self.to = to
        self.prune = prune
    }
}

/// Lists references in a store whose test file no longer exists.
public struct OrphansStage: Sendable, Hashable {
    /// The store to look in.
    public var store: StoreRole
    /// Whether orphans fail the pipeline.
    public var fail: Bool

    public init(store: StoreRole = .develop, fail: Bool = false) {
        self.store = store
        self.fail = fail
    }
}

/// Writes the HTML review page of the changed tests' references (a CI artifact).
public struct ReviewStage: Sendable, Hashable {
    /// Where the page goes, relative to the repository.
    public var output: String
    /// The store with the proposed references, and the one they replace.
    public var new: StoreRole
    public var reference: StoreRole
    /// The largest channel difference still counted as the same pixel.
    public var tolerance: Int

    public init(
        output: String = ".build/pipeline/reference-review.html", new: StoreRole = .feature,
        reference: StoreRole = .develop, tolerance: Int = 0
    ) {
        self.output = output
        self.new = new
        self.reference = reference
        self.tolerance = tolerance
    }
}

/// An enumeration written in specs by its raw value, named in messages by `noun`.
protocol SpecEnum: RawRepresentable<String>, CaseIterable {
    static var noun: String { get }
}
