/// Build: the build cache readies the build (a CI run's products fetched, or an ancestor's tree
/// restored), the session builds and lists the tests, and what was built is kept while the later
/// phases run (`--build-only`: kept, and the run ends).
struct CachedBuildPhase: TestPhase {
    var phase: Phase { .build }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        let cached = try await flow.cachedBuild(coverage: run.coverage != nil)
        let session = try flow.session(
            options: run.options, timings: try run.needs(run.place, "the timings' place"), keptInRun: run.keptInRun,
            snapshots: flow.snapshotCheck(), coverage: run.coverage, build: cached)
        await flow.sayBuilding(cached.settings)
        let prepared = try await session.prepare(pinningTo: run.pin)
        (run.build, run.session, run.prepared) = (cached, session, prepared)
        let runners = prepared.product.runners
        if request.mode.isBuildOnly {
            let lines = try await cached.keep(runners: runners, request: request)
            return .finished(
                .built(lines.isEmpty ? "Built the tests; no build cache to keep them in.\n" : lines.joined()))
        }
        return .alongside { (try? await cached.keep(runners: runners, request: request)) ?? [] }
    }
}
