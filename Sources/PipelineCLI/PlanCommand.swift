import ArgumentParser
import Foundation
import SharedRun
import TestSharding

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Split the test suite across CI machines: the matrix of nodes, each then running 'pipeline test --node I/N'.",
        discussion: """
        Every node computes the same split on its own from the timings file, so the matrix only \
        names the nodes; the expected seconds come from the recorded durations (0 when none are \
        recorded yet). For GitHub Actions: echo "matrix=$(pipeline plan --nodes 4 --format \
        github-matrix)" >> "$GITHUB_OUTPUT", then strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }} \
        and run 'pipeline test --node ${{ matrix.node }}'. With --queue, the batches a shared run's nodes \
        would claim, and where its plan, claims and results would go. See docs/ci.md.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json
        case githubMatrix = "github-matrix"
    }

    @OptionGroup var global: GlobalOptions

    @Option(help: "How many CI machines share the suite.")
    var nodes: Int

    @Option(help: "json (a list of nodes) or github-matrix (one line for $GITHUB_OUTPUT).")
    var format: Format = .json

    @Option(help: ArgumentHelp("The package whose tests are split.", valueName: "path"))
    var packagePath = "."

    @OptionGroup var shared: SharedRunOptions

    func validate() throws {
        guard (1...256).contains(nodes) else { throw ValidationError("--nodes must be between 1 and 256") }
    }

    struct Entry: Encodable {
        let node: String
        let index: Int
        let count: Int
        let tests: Int
        let expectedSeconds: Double
    }

    struct Batches: Encodable {
        let queue: String
        let timings: String
        let batches: [Shard]
    }

    func run() async throws {
        let place = try shared.place(global, package: global.resolve(packagePath))
        let recorded = try await place.timings.load()
        let tests = recorded.tests.keys.sorted().map { TestID($0, framework: .xctest) }
        let planner = ShardPlanner(timings: recorded)
        if let run = try shared.run() {
            let plan = QueuePlan(tests: tests, estimates: planner.estimates(for: tests), nodes: nodes)
            return try Console.json(Batches(queue: try place.queue(run: run, node: .whole).location, timings: place.description,
                                            batches: plan.batches))
        }
        let entries = (1...nodes).map { index in
            let part = planner.plan(tests, shards: 1, node: Node(index: index, count: nodes))
            return Entry(node: "\(index)/\(nodes)", index: index, count: nodes, tests: part.reduce(0) { $0 + $1.tests.count },
                         expectedSeconds: ((part.map(\.expectedSeconds).max() ?? 0) * 100).rounded() / 100)
        }
        switch format {
        case .json:
            try Console.json(entries)
        case .githubMatrix:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let include = entries.map { ["node": $0.node] }
            Console.out(String(decoding: try encoder.encode(["include": include]), as: UTF8.self))
        }
    }
}

/// Test results where the CI system shows them: on GitHub Actions (GITHUB_ACTIONS=true), an
/// annotation per failing test on standard error and a Markdown summary in $GITHUB_STEP_SUMMARY.
enum CIReport {
    static func publish(_ report: TestReport, title: String,
                        environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["GITHUB_ACTIONS"] == "true" else { return }
        GitHubReport.annotations(report, workspace: environment["GITHUB_WORKSPACE"]).forEach(Console.error)
        guard let path = environment["GITHUB_STEP_SUMMARY"], let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(GitHubReport.summary(report, title: title).utf8))
        handle.closeFile()
    }
}
