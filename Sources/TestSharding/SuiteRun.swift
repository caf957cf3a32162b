import ChildProcesses
import Foundation
import PipelineCore
import TestCore

/// A package's suite, from the build to the report: it builds the test product, lists and selects
/// the tests and plans the shards from the durations it is given (`prepare`), then hands the
/// shards to a `ShardScheduler` (`run`). Where the durations are kept, and when they are updated,
/// is the caller's business.
public struct SuiteRun: Sendable {
    public let settings: BuildSettings
    public let options: TestRunOptions

    public init(settings: BuildSettings, options: TestRunOptions) {
        self.settings = settings
        self.options = options
    }

    /// The timings file of a package with no other: `<package>/.build/pipeline/timings.json`.
    public static func defaultTimings(of package: URL) -> URL {
        workFolder(of: package).appendingPathComponent("timings.json")
    }

    /// Where runs keep their logs and, by default, their timings: `<package>/.build/pipeline`.
    public static func workFolder(of package: URL) -> URL {
        package.appendingPathComponent(".build/pipeline")
    }

    /// Each test process's log: `<package>/.build/pipeline/logs/shard-<n>-<k>.log`; a node of a
    /// split run (several may run in one checkout) keeps its own in `logs/node-<i>-of-<n>/`.
    public var logs: URL {
        let folder = Self.workFolder(of: settings.packagePath).appendingPathComponent("logs")
        let node = options.node
        return node.count > 1 ? folder.appendingPathComponent(node.label) : folder
    }

    /// What a run needs: the product, the selected tests and this node's shards.
    public struct Prepared: Sendable {
        public let product: TestProduct
        public let tests: [TestID]
        /// Every test the product has, selected or not.
        public let discovered: [TestID]
        public let timings: Timings
        public let shards: [Shard]
        /// Expected seconds per selected test.
        public let estimates: [TestID: Double]

        public var plannedTests: Int { shards.reduce(0) { $0 + $1.tests.count } }

        /// The same product and timings, planned for `tests` alone (a batch of a shared queue, or the
        /// tests a change can reach), of which `node` takes its part.
        public func only(_ tests: [TestID], shards count: Int, node: Node = .whole) -> Prepared {
            let selected = Set(tests)
            let estimates = self.estimates.filter { selected.contains($0.key) }
            let shards = ShardPlanner(timings: timings).plan(tests, estimates: estimates, shards: count, node: node)
            return Prepared(
                product: product, tests: tests, discovered: discovered, timings: timings, shards: shards,
                estimates: estimates)
        }
        public var expectedSeconds: Double { shards.map(\.expectedSeconds).max() ?? 0 }

        /// The line that opens a run: how many tests in how many shards, on which node, expected when;
        /// `note` follows it.
        public func announcement(node: Node, note: String? = nil) -> String {
            "Running \(counted(plannedTests, "test")) in \(counted(shards.count, "shard"))"
                + (node.count > 1 ? " (node \(node))" : "") + ", expected \(String(format: "%.1f", expectedSeconds)) s"
                + (note.map { "; \($0)" } ?? "") + (product.buildNote.map { "\n\($0)" } ?? "")
        }
    }

    public func prepare(timings: Timings) async throws(TestRunError) -> Prepared {
        try? FileManager.default.removeItem(at: logs)
        do {
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: logs.path, reason: error.localizedDescription)
        }
        var product = try await TestProduct.build(settings, scratch: logs)
        let all = try await product.discover(scratch: logs, timeout: options.limits.timeout)
        guard !all.isEmpty else { throw .noTests(package: settings.packagePath.path) }
        let tests = try options.select(all)
        let planner = ShardPlanner(timings: timings)
        let estimates = planner.estimates(for: tests)
        // Re-running what a node left failing (`only`) runs all of it on that node: no second split.
        let shards = planner.plan(
            tests, estimates: estimates, shards: options.shards, node: options.only == nil ? options.node : .whole)
        return Prepared(
            product: product, tests: tests, discovered: all, timings: timings, shards: shards, estimates: estimates)
    }

    /// Runs the plan; `part` names a subfolder of the logs for one part of a run (a queue's batch).
    public func run(
        _ prepared: Prepared, progress: RunProgress, statusInterval: Duration,
        part: String? = nil
    ) async throws(TestRunError) -> TestReport {
        let unknown = Set(prepared.tests.filter { prepared.timings[$0] == nil })
        return try await running(prepared, part: part) { runner in
            await runner.run(
                prepared.shards, estimates: prepared.estimates, unknown: unknown,
                progress: progress, statusInterval: statusInterval)
        }
    }

    /// A flake hunt over the selected tests: `times` runs, each in fresh processes.
    public func hunt(
        _ prepared: Prepared, times: Int, untilFailure: Bool, progress: RunProgress,
        statusInterval: Duration
    ) async throws(TestRunError) -> RepeatReport {
        try await running(prepared) { runner in
            await runner.repeatedly(
                prepared.tests, times: times, untilFailure: untilFailure, progress: progress,
                statusInterval: statusInterval)
        }
    }

    /// Runs `work` with a runner logging into the (part's) log folder; an interrupt ends it with `.interrupted`.
    private func running<Result>(
        _ prepared: Prepared, part: String? = nil,
        _ work: (ShardScheduler) async -> Result
    ) async throws(TestRunError) -> Result {
        let logs = part.map { self.logs.appendingPathComponent($0) } ?? self.logs
        do {
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: logs.path, reason: error.localizedDescription)
        }
        var options = options
        if let history = options.limits.history {
            options.limits.expected = history.limits(prepared.timings, ceiling: options.limits.timeout)
        }
        let result = await work(ShardScheduler(product: prepared.product, options: options, logs: logs))
        if await ProcessGroups.shared.isStopping {
            await ProcessGroups.shared.terminateAll()
            throw .interrupted
        }
        return result
    }
}
