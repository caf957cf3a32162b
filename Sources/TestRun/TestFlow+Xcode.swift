import Foundation
import References
import SharedRun
import TestSharding
import XcodeResults

extension TestFlow {
    /// `pipeline import`: a run Xcode made, read from its results, taken through the end of the one
    /// test flow as `pipeline test`'s own runs are: target-less names given theirs from the
    /// timings, failed snapshots' new values (from `snapshots`) paired with their references on
    /// the review page and kept as CI's candidates, the quarantine applied, flaky tests named, the
    /// JUnit file, the last run kept for `--failed`, the durations folded into the timings, and
    /// the CI's report.
    public func importRun(_ kind: XcodeInput.Kind, at path: String, snapshots: XcodeSnapshots? = nil) async throws
        -> TestOutcome
    {
        let run = try await XcodeInput.run(kind, at: path)
        let place = try timingsFolder()
        let recorded = try await place.plannedTimings.load()
        var report = run.resolved(among: Set(recorded.tests.keys)).report(flakyFails: request.limits.flaky == .fail)
        let check = snapshotCheck()
        var findings = SnapshotFindings()
        if let snapshots {
            _ = try snapshots.copy(into: check.artifacts)
            findings = check.check(&report, since: check.inventory())
        }
        findings.notes += run.notes
        // The session only finishes the run Xcode made: it builds and runs nothing.
        let session = try session(
            options: request.runOptions(), timings: place, keptInRun: request.shared.keptInRun, snapshots: check,
            coverage: nil)
        (report, findings) = try await session.finish(&report, findings: findings, planned: recorded)
        if snapshots != nil { await keepCandidates(check, findings: &findings, passed: report.passed) }
        CIReport.publish(
            report, coverage: nil, title: request.title, review: findings.reviewForCI,
            variables: request.shared.variables)
        return .ran(report, findings, coverage: nil, storeFailure: nil)
    }

    /// `pipeline plan --format xcodebuild`: `tests` split over `nodes` CI machines by the recorded
    /// durations; with `failedOnly`, only those the last run here (or the CI run's kept copy) left
    /// not passing; with `xctestrun`, each node's own copy of it written beside it.
    public func xcodePlan(
        testsAt path: String, nodes: Int, by split: XcodeSplit, failedOnly: Bool, xctestrun: URL? = nil
    ) async throws -> [XcodeNode] {
        let run = try xctestrun.map(Xctestrun.init(contentsOf:))
        let place = try timingsFolder()
        var tests = try await XcodeInput.tests(at: path)
        if failedOnly {
            let (last, origin) = try await TestSession.lastRun(
                package: request.package, place: place, run: request.shared.keptInRun, node: .whole)
            let failing = Set(last.notPassed)
            tests = tests.filter { failing.contains($0.key) }
            guard !tests.isEmpty else {
                throw XcodeResultsError.noTests(
                    file: origin, reason: "the last run left none of the listed tests failing: nothing to run")
            }
        }
        var plan = XcodeNode.plan(tests, timings: try await place.plannedTimings.load(), nodes: nodes, by: split)
        if let run, let xctestrun { try run.write(&plan, into: xctestrun.deletingLastPathComponent()) }
        return plan
    }
}
