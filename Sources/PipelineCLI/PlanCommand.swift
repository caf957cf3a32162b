import ArgumentParser
import Foundation
import Pipelines

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract:
            "Split the test suite across CI machines: the matrix of nodes, each then running 'pipeline test --node I/N'.",
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

    func run() async throws {
        let plan = try await shared.settings(global).matrix(package: global.resolve(packagePath), nodes: nodes)
        switch (plan, format) {
        case (.batches(let batches), _):
            try Console.json(batches)
        case (.nodes(let entries), .json):
            try Console.json(entries)
        case (.nodes(let entries), .githubMatrix):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let include = entries.map { ["node": $0.node] }
            Console.out(String(decoding: try encoder.encode(["include": include]), as: UTF8.self))
        }
    }
}
