import CISystem
import Foundation
import PipelineCore
import PipelineSpec
import References
import SharedRun
import TestCore
import TestSharding
import Verdicts

/// Where recorded durations are kept and which shared run a node joins, as `pipeline test`,
/// `plan` and `report` are asked: timings kept in a store are shared by every CI machine, and a
/// shared run's work queue lives beside them.
public struct RunSharing: Sendable {
    /// Where the timings are kept; nil keeps them in the package's own file.
    public var timings: TimingsAddress?
    /// The pipeline whose stores `feature`/`develop` and the S3 settings come from (default: the
    /// one pipeline that sets references).
    public var pipeline: String?
    /// The shared run: `--queue RUN`, or `ci` for the CI's run id; nil runs alone.
    public var queue: String?
    /// A file named in `timings` is relative to this folder, and the spec is looked for from it.
    public var workingDirectory: URL
    /// The process's variables (the CI's run id, whether this is CI).
    public var variables: [String: String]

    /// `--queue` given without a run: the CI's run id.
    public static let queueFromCI = "ci"

    public init(
        timings: TimingsAddress? = nil, pipeline: String? = nil, queue: String? = nil, workingDirectory: URL,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.timings = timings
        self.pipeline = pipeline
        self.queue = queue
        self.workingDirectory = workingDirectory
        self.variables = variables
    }

    /// Where the timings (and a shared run's queue) are, for `package`'s tests: a file (relative to
    /// `workingDirectory`), a store of the spec (`pipeline`, else the one that sets references) or
    /// an S3 prefix; the package's own file when nil.
    public func folder(package: URL) throws -> TimingsPlace {
        switch timings ?? .local {
        case .local:
            return try TimingsPlace(file: SuiteRun.defaultTimings(of: package))
        case .file(let path):
            return try TimingsPlace(file: URL(fileURLWithPath: path, relativeTo: workingDirectory).standardizedFileURL)
        case let timings:
            return try Self.place(timings, in: try sharedStores(specRequired: true), package: package)
        }
    }

    /// What opens a store named on the command line (`--build-cache`, `--reuse-verdicts`): with the
    /// S3 settings of the spec (`pipeline`, else the one that sets references), when there is one.
    public func commandLineStores() throws -> ReferenceStores {
        try sharedStores(specRequired: false)
    }

    /// The spec's shared sets, for the stores a command names without a test request's stores: the
    /// spec located once from `workingDirectory`. Without one (when not required) the command
    /// line's stores alone, relative to `workingDirectory`.
    private func sharedStores(specRequired: Bool) throws -> ReferenceStores {
        let source =
            specRequired
            ? try ReferenceSource.locate(from: workingDirectory, pipeline: pipeline)
            : try? ReferenceSource.locate(from: workingDirectory, pipeline: pipeline)
        return ReferenceStores(
            sharedSetsOf: source?.spec?.references ?? ReferenceSettings(),
            base: specRequired ? source?.base ?? workingDirectory : workingDirectory,
            origin: source?.origin ?? "the command line")
    }

    /// The CI run whose folder in the store keeps each node's report for `--failed`: the CI's run id
    /// when the timings are kept in a store (not a file).
    public var keptInRun: String? {
        switch timings ?? .local {
        case .local, .file: return nil
        case .store, .s3: break
        }
        return CIContext(variables).runID
    }

    /// The shared run's id: `--queue RUN`, or the CI's run id for `--queue` alone; nil without `--queue`.
    public func runID() throws(RequestError) -> String? {
        guard let queue else { return nil }
        guard queue == Self.queueFromCI else { return queue }
        guard let id = CIContext(variables).runID else {
            throw RequestError(
                "--queue needs a run id: none of \(CIContext.runVariables.joined(separator: ", ")) "
                    + "is set here; pass --queue RUN, the same on every node of the run")
        }
        return id
    }

    /// `pipeline report --queue RUN`: every node's batches merged into one report, written as JUnit
    /// to `junit` and published where the CI shows it. With `verdicts` (`--reuse-verdicts`): the
    /// record a node found this tree verified by stands for the run; a passing run whose nodes all
    /// filed the same key keeps its record there (docs/ci.md, "Tested once"), said through `write`.
    public func mergedReport(
        package: URL, junit: URL?, verdicts: StoreAddress? = nil, write: @Sendable (String) -> Void = { _ in }
    ) async throws -> TestReport {
        let place = try folder(package: package)
        guard let run = try runID() else {
            throw RequestError("name the shared run: --queue RUN (or --queue alone in CI)")
        }
        let queue = try place.queue(run: run, node: .whole)
        let notes = verdicts == nil ? [:] : try await queue.notes()
        var report: TestReport
        if let record = TestFlow.notedVerdict(notes) {
            write(record.line + "\n")
            report = record.report
            report.verifiedBy = record.line
        } else {
            report = try await queue.report()
        }
        if let note = try ReportFiles(junit: junit, package: package).write(report) { write(note + "\n") }
        // Each node annotated its own tests; the merged report adds the summary only.
        CIReport.publish(report, title: "pipeline report (\(run))", annotate: false, variables: variables)
        if let verdicts, report.passed, report.verifiedBy == nil {
            write(
                await keepVerdict(
                    report, notes: notes, nodes: try await queue.nodesThatRan(), in: verdicts, package: package))
        }
        return report
    }

    /// Keeps a passing shared run's record under the key every node that ran filed; the line saying
    /// so, or why not.
    package func keepVerdict(
        _ report: TestReport, notes: [String: Data], nodes: Set<String>, in address: StoreAddress, package: URL
    ) async -> String {
        let keys = nodes.sorted().map { (node: $0, key: notes[TestFlow.keyNote($0)]) }
        if let missing = keys.first(where: { $0.key == nil }) {
            return "verdicts: not kept: node \(missing.node) filed no key (its run was not keyed; see its output)\n"
        }
        guard let first = keys.first?.key, keys.allSatisfy({ $0.key == first }),
            let key = try? JSONDecoder().decode(VerdictKey.self, from: first)
        else {
            return "verdicts: not kept: the nodes did not run under one key (another build, selection or references)\n"
        }
        do {
            try await VerdictStore(try commandLineStores().open(address)).keep(
                key, report: report, package: package, variables: variables)
            return TestFlow.keptLine(address)
        } catch {
            return "verdicts: could not keep this run's verdict in \(address): \(error)\n"
        }
    }

    /// `pipeline plan --nodes N`: how the recorded timings split the suite across `nodes` CI machines,
    /// or with a queue the batches they would claim.
    public func matrix(package: URL, nodes: Int) async throws -> CIMatrix {
        let place = try folder(package: package)
        let recorded = try await place.plannedTimings.load()
        let tests = recorded.tests.keys.sorted().map { TestID($0, framework: .xctest) }
        let planner = ShardPlanner(timings: recorded)
        if let run = try runID() {
            let plan = QueuePlan(tests: tests, estimates: planner.estimates(for: tests), nodes: nodes)
            return .batches(
                CIMatrix.Batches(
                    queue: try place.queue(run: run, node: .whole).location, timings: place.description,
                    batches: plan.batches))
        }
        return .nodes(
            (1...nodes).map { index in
                let part = planner.plan(tests, shards: 1, node: Node(index: index, count: nodes))
                return CIMatrix.Entry(
                    node: "\(index)/\(nodes)", index: index, count: nodes,
                    tests: part.reduce(0) { $0 + $1.tests.count },
                    expectedSeconds: ((part.map(\.expectedSeconds).max() ?? 0) * 100).rounded() / 100)
            })
    }
}

extension RunSharing {
    /// Where timings are kept and shared runs meet, in the spec's `stores`. A file is relative to
    /// the stores' base.
    static func place(_ timings: TimingsAddress, in stores: ReferenceStores, package: URL) throws -> TimingsPlace {
        switch timings {
        case .local:
            return try TimingsPlace(file: SuiteRun.defaultTimings(of: package))
        case .file(let path):
            return try TimingsPlace(file: URL(fileURLWithPath: path, relativeTo: stores.base).standardizedFileURL)
        case .store(let role):
            // A pull request's job writes feature only: its run goes there, planned from develop's timings.
            guard role == .develop, CIContext(stores.variables).isPullRequest,
                stores.settings.address(of: .feature) != nil
            else { return try TimingsPlace(try stores.folder(role, creating: true)) }
            return try TimingsPlace(try stores.folder(.feature, creating: true)).planning(
                from: try TimingsPlace(try stores.folder(.develop, creating: true)))
        case .s3(let bucket, let prefix):
            return try TimingsPlace(try stores.open(.s3(bucket: bucket, prefix: prefix)))
        }
    }
}

/// The split of a suite across CI machines (`pipeline plan`). Its JSON forms are documented in docs/json.md.
public enum CIMatrix: Sendable {
    /// A static split: each node's share.
    case nodes([Entry])
    /// A shared run's batches, claimed by the nodes in turn.
    case batches(Batches)

    public struct Entry: Sendable, Encodable {
        public let node: String
        public let index: Int
        public let count: Int
        public let tests: Int
        public let expectedSeconds: Double
    }

    public struct Batches: Sendable, Encodable {
        public let queue: String
        public let timings: String
        public let batches: [Shard]
    }
}

extension RunSharing {
    /// `pipeline timings merge FILE… -o OUT`: the files merged into one; `timings` (a file, written
    /// whole, or a store's timings, folded in by a conditional write) receives them. Returns how
    /// many tests the merged files hold.
    public func mergeTimings(_ files: [URL]) async throws -> Int {
        var merged = Timings()
        for url in files {
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw TestRunError.unreadableTimings(path: url.path, reason: "no such file")
            }
            merged.merge(try Timings.load(url))
        }
        if case .file(let path) = timings {
            try merged.save(URL(fileURLWithPath: path, relativeTo: workingDirectory).standardizedFileURL)
        } else {
            let folded = merged
            try await folder(package: workingDirectory).timings.fold { $0.merge(folded) }
        }
        return merged.tests.count
    }
}
