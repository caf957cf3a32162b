import Foundation
import References
import TestCore
import XcodeResults

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
    /// `refs record --xcode`: the named test files' tests, and only those, run by xcodebuild with
    /// recording forced (`TEST_RUNNER_SNAPSHOT_TESTING_RECORD=all`): built once (or from the given
    /// `.xctestrun`), listed, and run with `-only-testing:` for each of their tests. swift-snapshot-
    /// testing fails every test that records (xcodebuild exits 65), which the recorder expects.
    public func record(_ tests: [String], with recorder: ReferenceRecorder, xcode: Xcodebuild) async throws
        -> RecordReport
    {
        let recording = try recorder.begin(tests)
        do {
            let xctestrun = try await xcode.xctestrun()
            let filters = try recording.filters.map { try Regex($0) }
            let chosen = try await xcode.tests(in: xctestrun).filter { name in
                filters.contains { name.key.firstMatch(of: $0) != nil }
            }
            guard !chosen.isEmpty else {
                throw ReferenceError.notATest(
                    tests.joined(separator: ", "),
                    reason: "xcodebuild lists none of their tests in \(xctestrun.lastPathComponent)")
            }
            let run = try await xcode.run(
                chosen, of: xctestrun, variables: ["TEST_RUNNER_SNAPSHOT_TESTING_RECORD": "all"])
            return try recorder.finish(recording, report: run.report(flakyFails: true))
        } catch let error as ReferenceError {
            throw error
        } catch {
            recorder.abandon(recording)
            throw error
        }
    }
}

extension TestFlow {
    /// `refs record`: re-records `tests` (with `all`, every test file asserting snapshots) in the
    /// package through the one test flow (with `xcode`, through xcodebuild testing those products
    /// on that destination) and, with `push`,
    /// uploads them to feature.
    public static func record(
        _ named: [String], all: Bool = false, in context: ReferenceContext, package: URL, timeout: Duration, cores: Int,
        review: URL?, push: Bool,
        dryRun: Bool, xcode: (products: XcodeProducts, destination: String)? = nil,
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
        let report =
            if let xcode {
                try await TestFlow(request).record(
                    tests, with: recorder,
                    xcode: Xcodebuild(
                        products: xcode.products, destination: xcode.destination, folder: package,
                        work: package.appendingPathComponent(".build/pipeline/xcode"), write: write))
            } else {
                try await TestFlow(request).record(tests, with: recorder)
            }
        guard push else { return (report, nil) }
        let pushed = try await context.transfers.push(
            tests: tests, to: [.feature], commit: context.headCommit, prune: true, dryRun: dryRun)
        return (report, pushed)
    }
}
