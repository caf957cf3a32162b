/// Select: `--impacted` runs only the tests the change from the impact map's commit can reach.
struct ImpactNarrowing: TestPhase {
    var phase: Phase { .select }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        // A run composing on a verified tree selects from that tree's commit (`VerifiedNarrowing`).
        guard run.impacted, run.verifiedChange == nil else { return .next }
        let (session, prepared) = try run.built()
        guard let reached = try await session.impacted(prepared, base: flow.request.impactBase) else {
            return .finished(.nothingToRun(.noReachableTest))
        }
        run.prepared = reached
        let selected = Set(reached.tests)
        let left = prepared.tests.filter { !selected.contains($0) }
        run.leftOut = (left.count, left.reduce(0) { $0 + (prepared.estimates[$1] ?? 0) })
        // Every test selected (no map yet, or a change reaching them all): a whole run after all.
        run.impacted = reached.tests.count < prepared.tests.count
        return .next
    }
}

/// Select: `--list`, `--plan` and `--repeat` end with what was selected: its names, its shards, a
/// flake hunt over it.
struct ModeOutcome: TestPhase {
    var phase: Phase { .select }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let (session, prepared) = try run.built()
        switch flow.request.mode {
        case .list:
            return .finished(.listed(prepared.tests.map(\.name)))
        case .plan:
            let shards = session.plan(prepared, queue: run.queue)
            return .finished(.planned(shards, description: session.describe(shards, queue: run.queue)))
        case .hunt(let times, let untilFailure):
            return .finished(.hunted(try await session.hunt(prepared, times: times, untilFailure: untilFailure)))
        case .run, .buildOnly:
            return .next
        }
    }
}

/// Run: the selected tests, here or through the shared run's queue; a node that found every batch
/// run by others ends with no report.
struct RunTests: TestPhase {
    var phase: Phase { .run }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let (session, prepared) = try run.built()
        if let queue = run.queue {
            let outcome = try await session.run(prepared, queue: queue)
            (run.report, run.findings, run.storeFailure) = (outcome.report, outcome.findings, outcome.storeFailure)
        } else {
            (run.report, run.findings) = try await session.run(prepared)
        }
        return run.report == nil ? .finished(run.outcome) : .next
    }
}

/// Keep: failed snapshots' new values kept as CI's candidates.
struct CandidatesKept: TestPhase {
    var phase: Phase { .keep }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let report = run.report else { return .next }
        await flow.keepCandidates(
            try run.needs(run.session, "the session").snapshots, findings: &run.findings, passed: report.passed)
        return .next
    }
}

/// Keep: the coverage measured, the impact map recorded from it (`--record-impact`), and a
/// split's node's profile kept in the CI run's folder when the timings are in a store.
struct CoverageKept: TestPhase {
    var phase: Phase { .keep }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let (session, prepared) = try run.built()
        guard let report = run.report,
            let measured = try await session.collectCoverage(of: report, product: prepared.product)
        else { return .next }
        run.measured = measured
        if let reads = run.reads {
            try await session.keepImpactMap(
                from: measured, report: report, reads: reads, bin: prepared.product.binFolder)
        }
        let node = flow.request.limits.node
        if let folder = measured.folder, let ciRun = run.queue?.run ?? (node.count > 1 ? run.keptInRun : nil) {
            let place = try run.needs(run.place, "the timings' place")
            try await place.saveCoverage(
                folder.appendingPathComponent("coverage.profdata"), run: ciRun, node: node)
        }
        return .next
    }
}

/// Publish: the CI's report of the run (annotations, summary with its review and coverage).
struct PublishedToCI: TestPhase {
    var phase: Phase { .publish }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard let report = run.report else { return .next }
        flow.publishToCI(report, coverage: run.measured, review: run.findings.reviewForCI)
        return .next
    }
}
