import Foundation
import References
import SnapshotReview
import TestCore
import TestRun
import XcodeResults

extension XcodeTests {
    /// `refs record --xcode`'s run: the tests through xcodebuild testing `products` on `destination`.
    public static func recordingThroughXcodebuild(products: XcodeProducts, destination: String) -> TestFlow.RecordRun {
        { flow, tests, recorder in
            let package = flow.request.package
            return try await XcodeTests(flow).record(
                tests, with: recorder,
                xcode: Xcodebuild(
                    products: products, destination: destination, folder: package,
                    work: package.appendingPathComponent(".build/pipeline/xcode"), write: flow.request.write))
        }
    }

    /// `refs record --xcode`: the named test files' tests, and only those, run by xcodebuild with
    /// recording forced (`TEST_RUNNER_SNAPSHOT_TESTING_RECORD=all`): built once (or from the given
    /// `.xctestrun`), listed, and run with `-only-testing:` for each of their tests. swift-snapshot-
    /// testing fails every test that records (xcodebuild exits 65), which the recorder expects.
    func record(_ tests: [String], with recorder: ReferenceRecorder, xcode: Xcodebuild) async throws -> RecordReport {
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
