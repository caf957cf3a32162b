import Foundation

/// One test run from start to end, as `pipeline test` and a pipeline's test stage do it: build,
/// list, select and plan (`prepare`), then run, record the durations and report (`run`).
public struct TestSession: Sendable {
    public let settings: BuildSettings
    public let options: TestRunOptions
    /// The recorded durations: read to plan, updated after the run unless `record` is off.
    public let timingsFile: URL
    public let record: Bool

    public init(settings: BuildSettings, options: TestRunOptions, timingsFile: URL? = nil, record: Bool = true) {
        self.settings = settings
        self.options = options
        self.timingsFile = timingsFile ?? Self.workFolder(of: settings.packagePath).appendingPathComponent("timings.json")
        self.record = record
    }

    /// Where runs keep their logs and, by default, their timings: `<package>/.build/pipeline`.
    public static func workFolder(of package: URL) -> URL {
        package.appendingPathComponent(".build/pipeline")
    }

    /// Each test process's log: `<package>/.build/pipeline/logs/shard-<n>-<k>.log`.
    public var logs: URL { Self.workFolder(of: settings.packagePath).appendingPathComponent("logs") }

    /// What a run needs: the product, the selected tests and this node's shards.
    public struct Prepared: Sendable {
        public let product: TestProduct
        public let tests: [TestID]
        public let timings: Timings
        public let shards: [Shard]
        /// Expected seconds per selected test.
        public let estimates: [TestID: Double]

        public var plannedTests: Int { shards.reduce(0) { $0 + $1.tests.count } }

        /// The same product and timings, planned for `tests` alone (a batch of a shared queue).
        public func only(_ tests: [TestID], shards count: Int) -> Prepared {
            let selected = Set(tests)
            let estimates = self.estimates.filter { selected.contains($0.key) }
            let shards = ShardPlanner(timings: timings).plan(tests, estimates: estimates, shards: count)
            return Prepared(product: product, tests: tests, timings: timings, shards: shards, estimates: estimates)
        }
        public var expectedSeconds: Double { shards.map(\.expectedSeconds).max() ?? 0 }
    }

    public func prepare() async throws(TestRunError) -> Prepared {
        try? FileManager.default.removeItem(at: logs)
        do {
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: logs.path, reason: error.localizedDescription)
        }
        let product = try await TestProduct.build(settings, scratch: logs)
        let all = try await product.discover(scratch: logs)
        guard !all.isEmpty else { throw .noTests(package: settings.packagePath.path) }
        let tests = try options.select(all)
        let timings = try Timings.load(timingsFile)
        let planner = ShardPlanner(timings: timings)
        let estimates = planner.estimates(for: tests)
        let shards = planner.plan(tests, estimates: estimates, shards: options.shards, node: options.node)
        return Prepared(product: product, tests: tests, timings: timings, shards: shards, estimates: estimates)
    }

    /// Runs the plan and folds the measured durations into the timings file. An interrupted run
    /// records nothing.
    public func run(_ prepared: Prepared, progress: RunProgress, statusInterval: Duration) async throws(TestRunError) -> TestReport {
        let runner = TestRunner(product: prepared.product, options: options, logs: logs)
        let known = prepared.tests.filter { prepared.timings[$0] != nil }.count
        let report = await runner.run(prepared.shards, estimates: prepared.estimates,
                                      knownShare: Double(known) / Double(max(1, prepared.tests.count)),
                                      progress: progress, statusInterval: statusInterval)
        if await ProcessGroups.shared.isStopping {
            await ProcessGroups.shared.terminateAll()
            throw .interrupted
        }
        if record {
            var timings = prepared.timings
            for test in report.tests where [.passed, .failed, .flaky].contains(test.status) {
                timings.record(TestID(test.name, framework: test.framework), seconds: test.seconds)
            }
            timings.recordOverhead(seconds: report.summary.overheadPerTest)
            try timings.save(timingsFile)
        }
        return report
    }

    /// Writes the report as one JUnit XML file, whole or not at all.
    public func writeJUnit(_ report: TestReport, to url: URL) throws(TestRunError) {
        do {
            try Data(JUnitReport.xml(report, flakyFails: options.flakyFails).utf8).write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}
