import Foundation
import TestSharding

/// How a run's build is readied before it builds, and what it built kept after: the build cache's
/// (`BuildCacheUse`, CachedBuilds), named on the request (`--build-cache`, a test stage's
/// `build-cache:`). TestRun knows only this seam.
public protocol BuildPreparer: Sendable {
    /// The build this run makes: the request's, with what the preparer adds to it, or none when
    /// what it would build was fetched; said on the request's log.
    func prepare(for flow: TestFlow, coverage: Bool) async throws -> PreparedBuild
}

/// A build readied for a run: its settings, and how what it built is kept.
public struct PreparedBuild: Sendable {
    public var settings: BuildSettings
    /// Keeps what the build made, given the test products' runners; the lines to log. Nil: nothing is kept.
    public var keep: (@Sendable (_ runners: [URL]) async throws -> [String])?

    public init(settings: BuildSettings, keep: (@Sendable (_ runners: [URL]) async throws -> [String])? = nil) {
        (self.settings, self.keep) = (settings, keep)
    }
}

/// Build: the request's preparer readies the build (the build cache: a CI run's products fetched,
/// or an ancestor's tree restored), the session builds and lists the tests, and what was built is
/// kept while the later phases run (`--build-only`: kept, and the run ends).
struct BuildPhase: TestPhase {
    var phase: Phase { .build }

    func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
        let request = flow.request
        let build =
            try await request.buildCache?.prepare(for: flow, coverage: run.coverage != nil)
            ?? PreparedBuild(settings: request.build)
        let session = try flow.session(
            options: run.options, timings: try run.needs(run.place, "the timings' place"), keptInRun: run.keptInRun,
            snapshots: flow.snapshotCheck(), coverage: run.coverage, build: build.settings)
        await flow.sayBuilding(build.settings)
        let prepared = try await session.prepare(pinningTo: run.pin)
        (run.session, run.prepared) = (session, prepared)
        let runners = prepared.product.runners
        if request.mode.isBuildOnly {
            let lines = try await build.keep?(runners) ?? []
            return .finished(
                .built(lines.isEmpty ? "Built the tests; no build cache to keep them in.\n" : lines.joined()))
        }
        guard let keep = build.keep else { return .next }
        return .alongside { (try? await keep(runners)) ?? [] }
    }
}
