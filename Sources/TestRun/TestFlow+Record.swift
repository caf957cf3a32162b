import Foundation
import References
import SnapshotReview

extension TestFlow {
    /// `refs record`: the named test files' tests, and only those, run through the flow with
    /// recording forced (no retries, no timings written); the recorder checks the names first and
    /// says what changed after, putting every reference back if the run fails for another reason.
    public func record(_ tests: [String], with recorder: ReferenceRecorder) async throws -> RecordReport {
        let recording = try recorder.begin(tests)
        var options = request.runOptions()
        options.filters += recording.filters
        options.retries = 0
        do {
            let session = try TestSession(
                settings: request.build,
                options: options, updatesTimings: false, snapshots: recorder.check, junit: nil,
                interactive: request.interactive, write: request.write)
            await sayBuilding(request.build)
            let prepared = try await session.prepare()
            request.write(
                prepared.announcement(
                    node: request.limits.node, note: "snapshots: record mode \(recorder.check.mode.rawValue)")
                    + "\n")
            _ = session.snapshots.begin()
            let report = try await session.execute(prepared)
            return try recorder.finish(recording, report: report)
        } catch let error as ReferenceError {
            throw error
        } catch {
            recorder.abandon(recording)
            throw error
        }
    }
}

extension TestFlow {
    /// How `refs record` runs the tests it records: the flow's own SwiftPM run, or another
    /// (xcodebuild's, from XcodeFlow).
    public typealias RecordRun = @Sendable (TestFlow, [String], ReferenceRecorder) async throws -> RecordReport

    /// `refs record`: re-records `tests` (with `all`, every test file asserting snapshots) in the
    /// package through the one test flow (or through `run`, such as xcodebuild testing an app's
    /// products) and, with `push`, uploads them to feature.
    public static func record(
        _ named: [String], all: Bool = false, in context: ReferenceContext, package: URL, timeout: Duration, cores: Int,
        review: URL?, push: Bool, dryRun: Bool, through run: RecordRun? = nil,
        write: @escaping @Sendable (String) -> Void
    ) async throws -> (record: RecordReport, push: [TransferReport]?) {
        let request = TestRequest(
            package: package, shared: RunSharing(workingDirectory: context.checkout), cores: cores,
            limits: TestRequest.Limits(timeout: timeout), write: write)
        let recorder = ReferenceRecorder(
            package: package, local: context.transfers.stores.local(testPattern: context.transfers.testPattern),
            page: review,
            write: write)
        let tests = all ? try recorder.snapshotTests() : named
        let flow = TestFlow(request)
        let report =
            if let run { try await run(flow, tests, recorder) } else { try await flow.record(tests, with: recorder) }
        guard push else { return (report, nil) }
        let pushed = try await context.transfers.push(
            tests: tests, to: [.feature], commit: context.headCommit, prune: true, dryRun: dryRun)
        return (report, pushed)
    }
}
