import Foundation
import SharedRun
import TestSharding

/// One snapshot-aware test run, as `pipeline test` and a pipeline's test stage do it: the session
/// (build, list, plan, run) with swift-snapshot-testing's switches set for its test processes and
/// the durations read from and folded back into where the timings are kept, then the snapshot
/// check (failed snapshots paired with their references, references written in CI failed, one
/// review page), then the JUnit report.
public struct TestRun: Sendable {
    public let session: TestSession
    public let snapshots: SnapshotCheck
    /// Where the durations are read to plan, and folded back after the run when `record` is on.
    public let timings: SharedPlace
    public let record: Bool
    /// A recording run (`refs record`): snapshot assertions fail by design, and the recorder reads
    /// the references itself, so there is no snapshot check.
    public let recording: Bool
    public let junit: URL?
    public let interactive: Bool
    /// Progress and notes, for standard error.
    public let write: @Sendable (String) -> Void

    public init(settings: BuildSettings, options: TestRunOptions, timings: SharedPlace? = nil, record: Bool = true,
                snapshots: SnapshotCheck, recording: Bool = false, junit: URL?, interactive: Bool,
                write: @escaping @Sendable (String) -> Void) throws {
        var options = options
        options.environment.merge(snapshots.environment) { $1 }
        session = TestSession(settings: settings, options: options)
        self.timings = try timings ?? SharedPlace(file: TestSession.defaultTimings(of: settings.packagePath))
        self.record = record
        self.snapshots = snapshots
        self.recording = recording
        self.junit = junit
        self.interactive = interactive
        self.write = write
    }

    /// Reads the timings, then builds, lists, selects and plans. The nodes of one run plan from the
    /// timings pinned in its `queue` folder, the same for all of them.
    public func prepare(pinningTo queue: WorkQueue? = nil) async throws -> TestSession.Prepared {
        let recorded = if let queue { try await queue.pinned(timings.timings) } else { try await timings.timings.load() }
        return try await session.prepare(timings: recorded)
    }

    /// Runs the plan, showing progress, and checks the snapshots.
    public func run(_ prepared: TestSession.Prepared) async throws -> (TestReport, SnapshotFindings) {
        let node = session.options.node.count > 1 ? " (node \(session.options.node))" : ""
        write("Running \(prepared.plannedTests) tests in \(prepared.shards.count) shard\(prepared.shards.count == 1 ? "" : "s")"
              + "\(node), expected \(String(format: "%.1f", prepared.expectedSeconds)) s"
              + (snapshots.mode == .missing ? "" : "; \(snapshotModeNote)") + "\n")
        let before = snapshots.begin()
        var report = try await execute(prepared)
        var findings = SnapshotFindings()
        if !recording {
            findings = snapshots.check(&report, since: before)
        }
        return try await finish(&report, findings: findings)
    }

    /// Runs the planned shards with a progress display; `part` keeps a part's logs apart.
    func execute(_ prepared: TestSession.Prepared, part: String? = nil) async throws(TestRunError) -> TestReport {
        let write = self.write
        let progress = RunProgress(total: prepared.plannedTests, shards: prepared.shards.count,
                                   expectedSeconds: prepared.expectedSeconds, interactive: interactive,
                                   recording: recording) { write($0) }
        return try await session.run(prepared, progress: progress, statusInterval: .seconds(interactive ? 1 : 10), part: part)
    }

    /// After the tests: the review page, the JUnit file, the durations folded back (unless the
    /// store already failed).
    func finish(_ report: inout TestReport, findings: SnapshotFindings,
                storeFailed: Bool = false) async throws -> (TestReport, SnapshotFindings) {
        var findings = findings
        if !recording { snapshots.publish(&findings, report: &report) }
        if let junit { try JUnitReport.write(report, to: junit) }
        if !recording {
            do {
                try report.save(Self.lastRun(of: session.settings.packagePath))
            } catch {
                findings.notes.append("\(error)")
            }
        }
        if record, !storeFailed {
            let measured = report
            if try await timings.timings.fold({ $0.record(measured) }) == .lastWriterWins {
                findings.notes.append("\(timings) was written without a version check (the store has none), "
                                      + "so an update another machine made meanwhile may be lost")
            }
        }
        return (report, findings)
    }

    /// The last run's report, which `--failed` reads: `<package>/.build/pipeline/last-run.json`.
    public static func lastRun(of package: URL) -> URL {
        TestSession.workFolder(of: package).appendingPathComponent("last-run.json")
    }

    private var snapshotModeNote: String {
        "snapshots: record mode \(snapshots.mode.rawValue)" + (snapshots.writesFail ? " (CI: a missing reference fails)" : "")
    }
}
