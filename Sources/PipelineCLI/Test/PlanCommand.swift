import ArgumentParser
import Foundation
import TestCore
import TestRun
import XcodeFlow

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
        case xcodebuild
    }

    @OptionGroup var global: GlobalOptions

    @Option(help: "How many CI machines share the suite.")
    var nodes: Int

    @Option(
        help: """
            json (a list of nodes), github-matrix (one line for $GITHUB_OUTPUT), or xcodebuild (each node's \
            -only-testing arguments, from --tests).
            """)
    var format: Format = .json

    @Option(
        help: ArgumentHelp(
            "xcodebuild: the tests to split, from 'xcodebuild -enumerate-tests -test-enumeration-format json' "
                + "or an xcresult tests JSON.", valueName: "file"))
    var tests: String?

    @Option(help: ArgumentHelp("xcodebuild: keep each test alone, or each class whole.", valueName: "test|class"))
    var by = XcodeSplit.test

    @Option(help: ArgumentHelp("xcodebuild: print only node I's arguments, one per line.", valueName: "I"))
    var node: Int?

    @Flag(help: "xcodebuild: only the tests the last imported run left not passing.")
    var failed = false

    @Option(
        help: ArgumentHelp(
            "xcodebuild: the .xctestrun build-for-testing wrote; each node's own copy (OnlyTestIdentifiers set) is "
                + "written beside it, and --node prints its path.", valueName: "file"))
    var xctestrun: String?

    @Option(help: ArgumentHelp("The package whose tests are split.", valueName: "path"))
    var packagePath = "."

    @OptionGroup var shared: SharedRunOptions

    func validate() throws {
        guard (1...256).contains(nodes) else { throw ValidationError("--nodes must be between 1 and 256") }
        guard (format == .xcodebuild) == (tests != nil) else {
            throw ValidationError("--format xcodebuild takes the tests to split from --tests FILE, and only it does")
        }
        if let node, !(1...nodes).contains(node) { throw ValidationError("--node must be between 1 and --nodes") }
    }

    func run() async throws {
        if let tests { return try await xcodebuild(tests) }
        let plan = try await shared.settings(global).matrix(package: global.resolve(packagePath), nodes: nodes)
        switch (plan, format) {
        case (.batches(let batches), _):
            try Console.json(batches)
        case (.nodes(let entries), .json), (.nodes(let entries), .xcodebuild):
            try Console.json(entries)
        case (.nodes(let entries), .githubMatrix):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let include = entries.map { ["node": $0.node] }
            Console.out(String(decoding: try encoder.encode(["include": include]), as: UTF8.self))
        }
    }

    private func xcodebuild(_ tests: String) async throws {
        let request = TestRequest(
            package: global.resolve(packagePath), shared: shared.settings(global), cores: global.availableCores
        ) { Console.progress($0) }
        let plan = try await XcodeTests(request).xcodePlan(
            testsAt: tests == "-" ? tests : global.resolve(tests).path, nodes: nodes, by: by, failedOnly: failed,
            xctestrun: xctestrun.map(global.resolve))
        guard let node else { return try Console.json(plan) }
        if let path = plan[node - 1].xctestrun { return Console.out(path) }
        plan[node - 1].arguments.forEach(Console.out)
    }
}

extension XcodeSplit: ExpressibleByArgument {}
