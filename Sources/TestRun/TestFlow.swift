import CISystem
import Coverage
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import SharedRun
import SnapshotReview
import TestCore
import TestImpact
import TestSharding

/// The one test flow. `pipeline test` and a pipeline's test stage hand it a request, and it
/// alone wires a run: build, list, select, plan, run here or through the queue, the snapshot check
/// (with the render environment, and CI's candidates whenever a feature store is known), coverage,
/// the reports (JUnit, review page, the CI's own) and the timings. What differs between entry
/// points differs only in the request.
public struct TestFlow: Sendable {
    public let request: TestRequest
    /// The run's phases (`TestFlow.phases` unless a test adds its own), taken in their steps' order.
    let phases: [any TestPhase]

    public init(_ request: TestRequest) {
        self.init(request, phases: Self.phases)
    }

    init(_ request: TestRequest, phases: [any TestPhase]) {
        self.request = request
        self.phases = phases.enumerated().sorted { ($0.element.phase, $0.offset) < ($1.element.phase, $1.offset) }
            .map(\.element)
    }

    /// Builds, selects and runs (or lists, plans, hunts) as asked: every phase in turn, until one
    /// ends the run.
    public func run() async throws -> TestOutcome {
        try checkCombinations()
        var state = RunState(options: request.runOptions())
        defer { state.reads?.remove() }
        return try await run(phases[...], &state)
    }

    /// The outcome of a run whose verdict an earlier run gave: its JUnit written and its summary
    /// published as a run's are.
    func verified(_ report: TestReport) throws -> TestOutcome {
        if let note = try reportFiles.write(report) { request.write(note + "\n") }
        publishToCI(report)
        return .ran(report, SnapshotFindings(), coverage: nil, storeFailure: nil)
    }

    /// Where this run's final report goes: the JUnit file asked for, and the package's last run.
    var reportFiles: ReportFiles { ReportFiles(junit: request.junit, package: request.package) }

    /// The CI's report of this run (annotations, summary with its review and coverage): the one
    /// place the test flow publishes it, for a run, an import and a verified tree alike.
    package func publishToCI(_ report: TestReport, coverage: CoverageReport? = nil, review: CIReview? = nil) {
        let node = request.limits.node
        CIReport.publish(
            report, coverage: coverage, title: request.title + (node.count > 1 ? " (node \(node))" : ""),
            review: review, package: request.package, variables: request.shared.variables)
    }

    /// Options that cannot go together, said before anything is built.
    private func checkCombinations() throws {
        if request.mapsImpact, request.limits.node.count > 1 || request.shared.queue != nil {
            throw RequestError(
                "--record-impact records the whole suite on one machine; it cannot take --node or --queue")
        }
        if request.shared.queue != nil, request.limits.failedOnly || request.isHunt {
            throw RequestError(
                "--\(request.limits.failedOnly ? "failed" : "repeat") runs on one machine; it cannot join a --queue")
        }
    }

    /// The filters of the test targets the change can affect; nil when it affects none, empty when
    /// every target runs.
    func affectedFilters() async throws -> [String]? {
        let selection = try await affectedSelection()
        selection.reasons.forEach { request.write($0 + "\n") }
        guard let filters = selection.filters else { return [] }
        return filters.isEmpty ? nil : filters
    }

    /// The test targets the request's change can affect, and why.
    func affectedSelection() async throws -> AffectedTests {
        let changes = try (request.changes ?? .query(ChangeQuery())).changes(in: request.package)
        return try await AffectedTests.select(
            package: request.package, repository: try CommitHistory(repositoryPath: request.package.path).workTree,
            changedPaths: changes.files.flatMap(\.touchedPaths))
    }

    /// The session of the request's suite, its timings kept at `timings` (and the node's report in
    /// the CI run `keptInRun`'s folder there).
    package func session(
        options: TestRunOptions, timings: TimingsPlace, keptInRun: String?, snapshots: SnapshotCheck,
        coverage: CoverageSettings?, build: BuildSettings? = nil
    ) throws -> TestSession {
        try TestSession(
            settings: build ?? request.build,
            options: options, timings: timings, updatesTimings: request.updatesTimings, snapshots: snapshots,
            junit: request.junit, quarantine: try quarantine(), coverage: coverage, keptInRun: keptInRun,
            flakeThreshold: request.limits.flakeThreshold, interactive: request.interactive, write: request.write)
    }

    /// Says the build is starting, with its configuration and build system; nothing when it does not build.
    package func sayBuilding(_ settings: BuildSettings) async {
        guard !settings.skipBuild else { return }
        let system = await settings.buildSystem
        request.write("Building the tests of \(settings.packagePath.path) (\(settings.configuration), \(system))…\n")
    }

    /// Where the timings (and a shared run's queue) are: through the spec's stores when known.
    package func timingsPlace() throws -> TimingsPlace {
        if let stores = request.stores {
            return try RunSharing.place(request.shared.timings ?? .local, in: stores, package: request.package)
        }
        return try request.shared.folder(package: request.package)
    }

    /// The snapshot check over the checkout's references, knowing where this run renders and
    /// where the stores say each reference was rendered; in CI with a feature store (and unless
    /// the request says not to), failed snapshots' new values are kept as candidates under the
    /// branch's commit.
    package func snapshotCheck() -> SnapshotCheck {
        let (package, environment) = (request.package, request.shared.variables)
        let local =
            request.stores?.local(testPattern: request.testPattern)
            ?? LocalReferences.scan(package, isTest: NamePattern(request.testPattern).matches)
        let renderedOn: @Sendable () async -> RenderEnvironment = {
            await RenderEnvironment.current(package: package, variables: environment)
        }
        guard let stores = request.stores else {
            return SnapshotCheck(
                package: package, local: local, page: request.review, variables: environment, renderedOn: renderedOn)
        }
        let origin: @Sendable (String) async -> ReferenceOrigin? = { await stores.origin(of: $0) }
        var candidates: (commit: String, environment: String?)?
        if request.keepsCandidates, CIContext(environment).isCI, stores.settings.address(of: .feature) != nil,
            let commit = candidatesKey()
        {
            candidates = (commit, stores.environmentName)
        }
        return SnapshotCheck(
            package: package, local: local, page: request.review, variables: environment, renderedOn: renderedOn,
            referenceOrigin: origin, candidates: candidates)
    }

    /// The commit CI's candidates are kept under: the request's (or HEAD), resolved to the branch
    /// head on a pull request's synthetic merge commit; nil outside a repository.
    private func candidatesKey() -> String? {
        let history = try? CommitHistory(repositoryPath: request.package.path)
        guard let checkedOut = request.candidatesCommit ?? (try? history?.sha("HEAD")) else { return nil }
        let key = BranchCommit.key(for: checkedOut, history: history, ci: CIContext(request.shared.variables))
        if let why = key.why { request.write("candidates: kept under \(key.commit.prefix(12)), \(why)\n") }
        return key.commit
    }

    /// Keeps the failed snapshots' new values in feature when the check names a commit for them,
    /// with the review page and its images beside them; the lines to show go into `findings`, and
    /// where the review is kept.
    package func keepCandidates(_ check: SnapshotCheck, findings: inout SnapshotFindings, passed: Bool) async {
        guard let commit = check.candidatesCommit, let stores = request.stores, let renderedOn = check.renderedOn else {
            return
        }
        let transfers = ReferenceTransfers(stores: stores, testPattern: request.testPattern)
        let node = request.limits.node
        let kept = await transfers.keepCandidates(
            artifacts: check.artifacts, commit: commit, passed: passed, renderedOn: renderedOn,
            variables: check.inherited, part: node.count > 1 ? node.label : nil,
            review: findings.page.map { ($0, findings.entries) })
        findings.notes += kept.lines
        findings.kept = kept.review.map { ($0, check.accept) }
    }

    /// The work queue of `run` at `place`, with the request's leases.
    func workQueue(_ run: String, at place: TimingsPlace) throws -> WorkQueue {
        var queue = try place.queue(run: run, node: request.limits.node)
        queue.leaseMargin = request.limits.queueLease.seconds
        queue.clockSkew = request.limits.clockSkew.seconds
        return queue
    }

    /// The quarantine given or named, or the one of the repository around the package.
    func quarantine() throws -> Quarantine? {
        if let quarantine = request.quarantine { return quarantine }
        guard let file = request.quarantineFile else { return try QuarantineLoader.find(from: request.package) }
        return try QuarantineLoader.load(file.url, displayPath: file.display)
    }
}

extension TestRequest {
    /// Runs the request through the one test flow.
    public func perform() async throws -> TestOutcome {
        try await TestFlow(self).run()
    }

    var isHunt: Bool {
        if case .hunt = mode { true } else { false }
    }

    /// The run's options for the test processes.
    /// A test that failed only on snapshots that do not match their references is not retried.
    public func runOptions() -> TestRunOptions {
        var options = TestRunOptions(
            shards: limits.shards.resolved(cores: cores), node: limits.node,
            limits: RunLimits(
                timeout: limits.timeout, outputLimit: Int(limits.outputLimit.bytes), history: limits.historyTimeout),
            retries: limits.retries, maxRetried: limits.maxRetried, flakyFails: limits.flaky == .fail,
            filters: limits.filters, skips: limits.skips)
        options.retriable = { !SnapshotCheck.failedOnReferences(status: $0.status, text: [$0.message, $0.output]) }
        return options
    }
}
