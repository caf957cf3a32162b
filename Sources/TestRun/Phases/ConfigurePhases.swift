import CISystem
import TestImpact

/// Configure: coverage's settings, and `--record-impact`'s read tracing in every test process.
struct CoverageSettingsPhase: TestPhase {
    var phase: Phase { .configure }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        let asked = request.mapsImpact ? (request.coverage ?? CoverageRequest()) : request.coverage
        run.coverage =
            request.mode.runs ? try asked?.settings(package: request.package, node: request.limits.node) : nil
        guard request.mapsImpact, let coverage = run.coverage else { return .next }
        let reads = try await ReadCapture.prepare(package: request.package)
        run.reads = reads
        run.options.suiteEnvironment = { suite in
            coverage.suiteEnvironment(suite).merging(reads.variables(suite)) { $1 }
        }
        return .next
    }
}

/// Configure: where the timings are, and through them a shared run's queue; with the timings in a store,
/// a CI run keeps each node's report there for --failed.
struct TimingsPlacePhase: TestPhase {
    var phase: Phase { .configure }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        var place = try flow.timingsPlace()
        run.keptInRun = request.shared.keptInRun
        run.impacted = request.selection.usesImpact
        if request.selection == .impactedOrAll,
            let (local, why) = await TestSession.impactMapUnreachable(place, package: request.package)
        {
            request.write(why + "\n")
            (place, run.keptInRun, run.impacted) = (local, nil, false)
        }
        run.place = place
        run.queue = try request.shared.runID().map { try flow.workQueue($0, at: place) }
        // A static split over shared timings needs every node to plan from the same ones: they are
        // pinned in the CI run's folder.
        run.pin =
            try run.queue
            ?? (request.limits.node.count > 1 && request.shared.timings != nil
                ? CIContext(request.shared.variables).runID.map {
                    try place.queue(run: $0, node: request.limits.node)
                } : nil)
        return .next
    }
}

/// Configure: `select: affected` runs only the test targets the change can affect.
struct AffectedTargets: TestPhase {
    var phase: Phase { .configure }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        guard flow.request.selection == .affected else { return .next }
        guard let filters = try await flow.affectedFilters() else { return .finished(.nothingToRun(.noAffectedTarget)) }
        run.options.filters += filters
        return .next
    }
}

/// Configure: `--failed` runs only what the last run left failing, read where it was kept.
struct FailedOnly: TestPhase {
    var phase: Phase { .configure }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        guard request.limits.failedOnly else { return .next }
        let (last, origin) = try await TestSession.lastRun(
            package: request.package, place: try run.needs(run.place, "the timings' place"), run: run.keptInRun,
            node: request.limits.node)
        guard !last.notPassed.isEmpty else {
            return .finished(.nothingToRun(.nothingFailing(origin: origin, summary: last.summaryLine)))
        }
        run.options.only = Set(last.notPassed)
        return .next
    }
}
