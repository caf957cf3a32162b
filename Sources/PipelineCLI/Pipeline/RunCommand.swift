import ArgumentParser
import CISystem
import Foundation
import Pipelines

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline's stages in order.",
        discussion: """
            Finds what the compared commits changed, then runs the stages in order: a test stage that \
            fails stops promotion and pushing; a stage with nothing to do is skipped; a storage, build \
            or git error stops the pipeline with its exit code. With --dry-run, print the plan — what \
            would be compared, how the tests would be sharded, which objects would be copied — and \
            build, run, write and upload nothing.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The pipeline's name: pipelines/<name>.yml.", valueName: "name"))
    var name: String

    @Flag(help: "Print the plan without building, running, writing or uploading anything.")
    var dryRun = false

    @Flag(help: "Print the plan as JSON (see docs/json.md).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Run only these stages of the pipeline, in its order (e.g. pull,test): a CI job's part of it.",
            valueName: "stages"),
        transform: { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
    var only: [String]?

    @OptionGroup var changeOptions: ChangeOptions
    @OptionGroup var testPattern: TestPatternOptions
    @OptionGroup var environmentOption: EnvironmentOption

    func run() async throws {
        var query = changeOptions.query
        query.testPattern = testPattern.tests
        let runner = try await PipelineRunner.load(
            named: name, from: global.workingDirectory, changes: query, only: only,
            environmentName: environmentOption.environment, cores: global.availableCores,
            interactive: CIContext().isInteractive
        ) { Console.progress($0) }
        if dryRun {
            let plan = await runner.dryRun()
            json ? try Console.json(plan) : Console.out(plan.render())
            // A plan the run could not carry out ends as the run would (a store that does not exist: 5).
            if let status = plan.exitStatus { throw QuietExit(status: status) }
            return
        }
        let outcome = try await runner.run()
        json ? try Console.json(outcome) : Console.out(outcome.render())
        if !outcome.passed { throw QuietExit(status: .testsFailed) }
    }
}
