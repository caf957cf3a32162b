import Foundation
import References
import SharedRun
import SnapshotConventions
import SnapshotReview
import TestCore
import TestRun
import XcodeResults

extension XcodeTests {
    /// `pipeline import`: a run Xcode made, read from its results, taken through the end of the one
    /// test flow as `pipeline test`'s own runs are: target-less names given theirs from the
    /// timings, failed snapshots' new values (from `snapshots`) paired with their references on
    /// the review page and kept as CI's candidates, the quarantine applied, flaky tests named, the
    /// JUnit file, the last run kept for `--failed`, the durations folded into the timings, and
    /// the CI's report. In a shared run (`--queue`) the report is filed as the node's part
    /// (`request.limits.node`) of the split `xcodePlan` kept, for `pipeline report` to merge.
    /// With `renderNew` (the node's `.xctestrun` and destination), the tests that failed on a
    /// missing reference run once more recording only what is missing, and their renderings are
    /// kept as CI's candidates, as `pipeline test` keeps a new test's.
    public func importRun(
        _ kind: XcodeOutputKind, at path: String, artifacts: URL? = nil, attachments: URL? = nil,
        renderNew: (xctestrun: URL, destination: String)? = nil
    ) async throws -> TestOutcome {
        let snapshots = artifacts.map(XcodeSnapshots.artifacts) ?? attachments.map(XcodeSnapshots.attachments)
        let renderNew = renderNew.map { XcodeRender(xctestrun: $0.xctestrun, destination: $0.destination) }
        let shared = try request.shared.runID()
        // Keyed before anything is rendered into the checkout: the references the run compared against.
        let verdict = try await xcodeVerdictKey()
        let run = try await XcodeInput.run(kind, at: path)
        let place = try flow.timingsPlace()
        let recorded = try await place.plannedTimings.load()
        let resolved = run.resolved(among: Set(recorded.tests.keys))
        var report = resolved.report(flakyFails: request.limits.flaky == .fail)
        var check = flow.snapshotCheck()
        var findings = SnapshotFindings()
        if let device = run.device { findings.notes += deviceNotes(device, check: &check) }
        if let snapshots {
            _ = try snapshots.copy(into: check.artifacts)
            if let renderNew { try await self.renderNew(of: report, tests: resolved.tests, check: check, renderNew) }
            findings = check.check(&report, since: check.inventory())
        }
        findings.notes += run.notes
        // The session only finishes the run Xcode made: it builds and runs nothing.
        let session = try flow.session(
            options: request.runOptions(), timings: place, keptInRun: request.shared.keptInRun, snapshots: check,
            coverage: nil)
        (report, findings) = try await session.finish(&report, findings: findings, planned: recorded)
        if snapshots != nil {
            await flow.keepCandidates(check, findings: &findings, passed: report.passed)
            // The run's page is on this machine; reviewers open the copy kept in the store.
            if let page = findings.page, let kept = findings.kept {
                report.readdress(review: page.path, as: kept.review.page)
            }
        }
        let queue = try shared.map { try place.queue(run: $0, node: request.limits.node) }
        if let queue {
            try await queue.file(report)
            request.write("Filed node \(queue.node)'s results in \(queue.location)\n")
        }
        if let verdict { await flow.keepVerdict(verdict, report: report, queue: queue) }
        flow.publishToCI(report, review: findings.reviewForCI)
        await flow.keepHistory(report)
        return .ran(report, findings, coverage: nil, storeFailure: nil)
    }

    /// The tests of `report` that failed on a missing reference, run once more through xcodebuild
    /// with `SNAPSHOT_TESTING_RECORD=missing`; what they record in the checkout is moved into the
    /// artifacts as their candidates. Their verdict stays the first run's: failed.
    private func renderNew(
        of report: TestReport, tests: [XcodeTestName], check: SnapshotCheck, _ render: XcodeRender
    ) async throws {
        guard check.rendersNewTests else { return }
        let missing = Set(check.missingReferences(in: report))
        let chosen = tests.filter { missing.contains($0.key) }
        guard !chosen.isEmpty else { return }
        request.write(SnapshotCheck.renderingNewTests(chosen.count))
        let xcodebuild = Xcodebuild(
            products: .xctestrun(render.xctestrun), destination: render.destination, folder: request.package,
            work: request.package.appendingPathComponent(".build/pipeline/xcode-render"), write: request.write)
        let before = check.inventory()
        _ = try await xcodebuild.run(
            chosen, of: render.xctestrun,
            variables: ["TEST_RUNNER_" + SnapshotSwitches.record: SnapshotSwitches.RecordMode.missing.rawValue])
        let kept = check.keepRendered(since: before)
        request.write(SnapshotCheck.keptRenderings(kept))
    }

    /// The candidates' render environment with the device the run recorded; a note when the
    /// destination named another (the environment's set is named from the destination).
    private func deviceNotes(_ device: (name: String, os: String), check: inout SnapshotCheck) -> [String] {
        check.rendered(onDevice: device.name, os: device.os)
        guard let destination = request.shared.variables[RenderEnvironment.destinationVariable] else { return [] }
        let named = RenderEnvironment.device(destination: destination)
        guard named.name.map({ $0 != device.name }) ?? false || named.os.map({ $0 != device.os }) ?? false else {
            return []
        }
        return [
            "the run's device is \(device.name) (\(device.os)), not the one \(RenderEnvironment.destinationVariable) "
                + "names (\(destination)): its snapshots are kept as rendered on \(device.name), in the set the "
                + "destination names"
        ]
    }

    /// `pipeline plan --format xcodebuild`: `tests` split over `nodes` CI machines by the recorded
    /// durations; with `failedOnly`, only those the last run here (or the CI run's kept copy) left
    /// not passing; with `xctestrun`, each node's own copy of it written beside it. In a shared
    /// run (`--queue`) the split is kept in the run's folder by whichever node plans first, and
    /// every other node gets that one; each node then files its import there for `pipeline report`.
    public func xcodePlan(
        testsAt path: String, nodes: Int, by split: XcodeSplit, failedOnly: Bool, xctestrun: URL? = nil
    ) async throws -> [XcodeNode] {
        let run = try xctestrun.map(Xctestrun.init(contentsOf:))
        let place = try flow.timingsPlace()
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
        if let run = try request.shared.runID() {
            // The run's split is planned once: a node planning after another imported (and folded
            // its durations into the timings) gets the same split, and the report checks it.
            let stored = try await place.queue(run: run, node: .whole).staticPlan(
                proposing: QueuePlan(nodes: plan.map { ($0.members.map(\.testID), $0.expectedSeconds) }))
            let byName = Dictionary(tests.map { ($0.testID.name, $0) }, uniquingKeysWith: { first, _ in first })
            plan = XcodeNode.nodes(
                stored.batches.map { ($0.tests.compactMap { byName[$0.name] }, $0.expectedSeconds) }, by: split)
        }
        if let run, let xctestrun { try run.write(&plan, into: xctestrun.deletingLastPathComponent()) }
        return plan
    }
}
