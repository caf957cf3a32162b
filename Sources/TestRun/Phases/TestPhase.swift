import Coverage
import SharedRun
import SnapshotReview
import TestCore
import TestImpact
import TestSharding
import Verdicts

/// The steps every test run takes, in this order (docs/architecture.md, "The path of one `pipeline
/// test`"): what to run and where its timings are (configure), an earlier verdict standing for this
/// one (reuse), the build (build), narrowing what was built to what runs (select), running it (run),
/// keeping what the run leaves (keep) and telling the CI (publish).
enum Phase: Int, Comparable, CaseIterable, Sendable {
    case configure, reuse, build, select, run, keep, publish

    static func < (a: Phase, b: Phase) -> Bool { a.rawValue < b.rawValue }
}

/// One feature's part of a test run: it reads and narrows the run as the phases before it left it,
/// and says whether the run goes on.
protocol TestPhase: Sendable {
    /// When it takes its turn; phases of one step keep the order they were given in.
    var phase: Phase { get }
    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult
}

/// What a phase leaves the run to do.
enum PhaseResult: Sendable {
    /// The next phase takes its turn.
    case next
    /// The run ends here with this outcome.
    case finished(TestOutcome)
    /// The next phases take their turns while this work runs; the lines it returns are written
    /// when they end, whatever became of them.
    case alongside(@Sendable () async -> [String])
}

/// A test run between its phases: what the earlier ones decided, made and found.
struct RunState: Sendable {
    /// The options the test processes run with (filters, shards, environment).
    var options: TestRunOptions
    var coverage: CoverageSettings?
    /// `--record-impact`'s read tracing, removed when the run ends.
    var reads: ReadCapture?
    /// Where the timings (and a shared run's queue, a node's report) are kept.
    var place: TimingsPlace?
    /// The CI run whose folder keeps this node's report (for --failed), if any.
    var keptInRun: String?
    /// Whether the impact map narrows what runs.
    var impacted = false
    /// The shared run's queue (`--queue`).
    var queue: WorkQueue?
    /// The queue folder a static split's timings are pinned in.
    var pin: WorkQueue?
    /// This tree's verdict key, when a passing run may keep its record.
    var verdict: VerdictKey?
    /// The same change verified over a base that moved since.
    var verifiedChange: VerifiedChange?
    var session: TestSession?
    var prepared: SuiteRun.Prepared?
    /// The tests impact selection left out, and their expected seconds.
    var leftOut: (tests: Int, seconds: Double) = (0, 0)
    /// The results taken from a verified run rather than run.
    var taken: [TestReport.Entry] = []
    var report: TestReport?
    var findings = SnapshotFindings()
    var storeFailure: (any Error)?
    var measured: CoverageReport?

    init(options: TestRunOptions) {
        self.options = options
    }

    /// What a phase needs an earlier one to have made: a phase run out of order is the code's error.
    func needs<Value>(_ value: Value?, _ what: String) throws -> Value {
        guard let value else { throw PhaseOrderError(missing: what) }
        return value
    }

    /// The session and what it built and listed: what every phase after the build works on.
    func built() throws -> (session: TestSession, prepared: SuiteRun.Prepared) {
        (try needs(session, "the session"), try needs(prepared, "the build"))
    }

    /// The outcome of a run that went through every phase.
    var outcome: TestOutcome {
        .ran(report, findings, coverage: measured, storeFailure: storeFailure)
    }
}

extension TestFlow {
    /// The phases of every run, each feature's where its step comes.
    static let phases: [any TestPhase] = [
        CoverageSettingsPhase(), TimingsPlacePhase(), AffectedTargets(), FailedOnly(), VerdictReuse(),
        BuildPhase(),
        ImpactNarrowing(), VerifiedNarrowing(), ModeOutcome(), RunTests(), TakenResults(), CandidatesKept(),
        CoverageKept(), PublishedToCI(), HistoryKept(), VerdictKept(),
    ]

    /// Runs `phases` in their steps' order, from the first, on `run`.
    func run(_ phases: ArraySlice<any TestPhase>, _ run: inout RunState) async throws -> TestOutcome {
        for index in phases.indices {
            switch try await phases[index].apply(&run, in: self) {
            case .next: continue
            case .finished(let outcome): return outcome
            case .alongside(let work):
                async let lines = work()
                let rest: Result<TestOutcome, any Error>
                do { rest = .success(try await self.run(phases[(index + 1)...], &run)) } catch {
                    rest = .failure(error)
                }
                for line in await lines { request.write(line) }
                return try rest.get()
            }
        }
        return run.outcome
    }
}

/// A phase that ran before the one making what it needs: the flow's phases are in the wrong order.
struct PhaseOrderError: Error, CustomStringConvertible {
    let missing: String

    var description: String { "internal error: a test run's phase ran before \(missing) was made" }
}
