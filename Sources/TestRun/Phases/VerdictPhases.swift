import PipelineCore
import TestSharding

/// Reuse: a tree verified already (same sources, build, selection and references) runs nothing;
/// the same change verified over a base that moved since runs what the move reaches; a run
/// selecting by impact composes on the nearest verified ancestor's tree.
struct VerdictReuse: TestPhase {
    var phase: Phase { .reuse }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        guard let verdict = try await flow.verdictKey() else { return .next }
        run.verdict = verdict
        if let record = try await flow.reusedVerdict(verdict) {
            request.write(record.line + "\n")
            if request.mode.isBuildOnly { return .finished(.built("Nothing built: the tree was verified already.\n")) }
            // The shared run's report stands on the same record: this node says so in the run's folder.
            try await run.queue?.keepNote(try JSONFile.encode(record, what: "verdict"), as: TestFlow.verifiedNote)
            var report = record.report
            report.verifiedBy = record.line
            return .finished(try flow.verified(report))
        }
        run.verifiedChange = try await flow.verifiedChange(verdict)
        if run.verifiedChange == nil, run.impacted, !request.mode.isBuildOnly {
            run.verifiedChange = try await flow.verifiedBase(verdict)
        }
        if let line = run.verifiedChange?.line { request.write(line + "\n") }
        return .next
    }
}

/// Select: of a change verified over another base (or a run composing on a verified ancestor),
/// only the tests what differs reaches run; the rest's results are taken from the verified run.
struct VerifiedNarrowing: TestPhase {
    var phase: Phase { .select }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let verifiedChange = run.verifiedChange else { return .next }
        let prepared: SuiteRun.Prepared
        let built = try run.built()
        (prepared, run.taken) = try await flow.verifiedSelection(
            built.prepared, session: built.session, verified: verifiedChange)
        run.prepared = prepared
        guard prepared.tests.isEmpty else { return .next }
        var report = verifiedChange.record.report
        report.tests = []
        report.take(run.taken, verifiedBy: verifiedChange.record.run)
        report.verifiedBy = verifiedChange.line + "; nothing it differs in reaches a test"
        if let key = run.verdict {
            await flow.keepVerdict(key, report: report, queue: run.queue, composedOn: verifiedChange)
        }
        return .finished(try flow.verified(report))
    }
}

/// Keep: the results taken from a verified run join this run's report, which is written again.
struct TakenResults: TestPhase {
    var phase: Phase { .keep }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let verifiedChange = run.verifiedChange, var report = run.report else { return .next }
        report.take(run.taken, verifiedBy: verifiedChange.record.run)
        run.report = report
        if let note = try flow.reportFiles.write(report) { flow.request.write(note + "\n") }
        return .next
    }
}

/// Publish: a passing run keeps its verdict for its tree: of the whole suite, or composed of what
/// it ran and a verified run's results for the rest; a run selecting by impact with no verified
/// tree to compose on keeps none.
struct VerdictKept: TestPhase {
    var phase: Phase { .publish }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let verdict = run.verdict, let report = run.report, !run.impacted || run.verifiedChange != nil else {
            return .next
        }
        await flow.keepVerdict(verdict, report: report, queue: run.queue, composedOn: run.verifiedChange)
        return .next
    }
}
