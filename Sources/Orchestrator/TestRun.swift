import Foundation
import TestSharding

/// One snapshot-aware test run, as `pipeline test` and a pipeline's test stage do it: the session
/// (build, list, plan, run, record timings) with swift-snapshot-testing's switches set for its test
/// processes, then the snapshot check (failed snapshots paired with their references, references
/// written in CI failed, one review page), then the JUnit report.
public struct TestRun: Sendable {
    public let session: TestSession
    public let snapshots: SnapshotCheck
    /// A recording run (`refs record`): snapshot assertions fail by design, and the recorder reads
    /// the references itself, so there is no snapshot check.
    public let recording: Bool
    public let junit: URL?
    public let interactive: Bool
    /// Progress and notes, for standard error.
    public let write: @Sendable (String) -> Void

    public init(settings: BuildSettings, options: TestRunOptions, timingsFile: URL?, record: Bool = true,
                snapshots: SnapshotCheck, recording: Bool = false, junit: URL?, interactive: Bool,
                write: @escaping @Sendable (String) -> Void) {
        var options = options
        options.environment.merge(snapshots.environment) { $1 }
        session = TestSession(settings: settings, options: options, timingsFile: timingsFile, record: record)
        self.snapshots = snapshots
        self.recording = recording
        self.junit = junit
        self.interactive = interactive
        self.write = write
    }

    /// Builds, lists, selects and plans.
    public func prepare() async throws(TestRunError) -> TestSession.Prepared {
        try await session.prepare()
    }

    /// Runs the plan, showing progress, and checks the snapshots.
    public func run(_ prepared: TestSession.Prepared) async throws(TestRunError) -> (TestReport, SnapshotFindings) {
        let node = session.options.node.count > 1 ? " (node \(session.options.node))" : ""
        write("Running \(prepared.plannedTests) tests in \(prepared.shards.count) shard\(prepared.shards.count == 1 ? "" : "s")"
              + "\(node), expected \(String(format: "%.1f", prepared.expectedSeconds)) s"
              + (snapshots.mode == .missing ? "" : "; \(snapshotModeNote)") + "\n")
        let write = self.write
        let progress = RunProgress(total: prepared.plannedTests, shards: prepared.shards.count,
                                   expectedSeconds: prepared.expectedSeconds, interactive: interactive,
                                   recording: recording) { write($0) }
        let before = snapshots.begin()
        var report = try await session.run(prepared, progress: progress, statusInterval: .seconds(interactive ? 1 : 10))
        let findings = recording ? SnapshotFindings() : snapshots.finish(&report, since: before)
        if let junit { try session.writeJUnit(report, to: junit) }
        return (report, findings)
    }

    private var snapshotModeNote: String {
        "snapshots: record mode \(snapshots.mode.rawValue)" + (snapshots.writesFail ? " (CI: a missing reference fails)" : "")
    }
}
