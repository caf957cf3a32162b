import Foundation
import GitChanges
import PipelineCore
import ReadTracing

/// The read tracing of an impact recording: the tracer (or why there is none) and the temporary
/// folder its traces go to, outside the working tree, removed when the run ends (`remove`).
public struct ReadCapture: Sendable {
    let tracer: Result<ReadTracer, ReadTracer.Unavailable>
    let folder: URL

    /// Builds the tracer (or learns why it cannot) for the repository holding `package`.
    public static func prepare(package: URL) async throws -> ReadCapture {
        let root = URL(fileURLWithPath: try CommitHistory(repositoryPath: package.path).workTree)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let variables = ProcessInfo.processInfo.environment
        return ReadCapture(tracer: await ReadTracer.prepare(roots: [root], variables: variables), folder: folder)
    }

    /// The variables tracing a process of `suite`'s; none without a tracer.
    @Sendable public func variables(_ suite: String) -> [String: String] {
        guard case .success(let tracer) = tracer else { return [:] }
        return tracer.variables(
            tracing: folder.appendingPathComponent(SuiteFiles.name(of: suite, "")),
            inherited: ProcessInfo.processInfo.environment)
    }

    /// Removes the traces, whatever became of the run.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Puts the suites' reads into `map` (or why there are none), with what the package's targets
    /// say (`ImpactMap.keepTargets`).
    public func add(to map: inout ImpactMap, package: String, repository: String, arguments: [String]) async throws {
        let scratch = folder.appendingPathComponent("swiftpm")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: package)
        let graph: PackageGraph
        let manifest: PackageGraph.ManifestTargets
        do {
            graph = try await PackageGraph.describe(package: url, scratch: scratch)
            manifest = try await PackageGraph.manifestTargets(package: url, scratch: scratch)
        } catch {
            map.untraced = "the package's targets could not be read to place its reads (\(error))"
            return
        }
        map.keepTargets(of: graph, manifest: manifest, arguments: arguments)
        if case .failure(let why) = tracer {
            map.untraced = why.reason
            return
        }
        let traced = TracedReads.relate(
            ReadTraces.read(folder: folder), suites: Array(map.suites.keys), package: package,
            repository: repository, graph: graph)
        map.reads = traced.reads
        map.unknownReads = traced.unknown
    }
}
