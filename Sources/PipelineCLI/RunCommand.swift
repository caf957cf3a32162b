import ArgumentParser
import GitChanges
import Orchestrator
import PipelineSpec

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline's stages in order.",
        discussion: "With --dry-run, print the plan — what would be compared, tested and promoted — and change nothing."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The pipeline's name: pipelines/<name>.yml.", valueName: "name"))
    var name: String

    @Flag(help: "Print the plan without building, running, writing or uploading anything.")
    var dryRun = false

    @Flag(help: "Print the plan as JSON (see docs/json.md).")
    var json = false

    @OptionGroup var changeOptions: ChangeOptions
    @OptionGroup var testPattern: TestPatternOption

    func run() async throws {
        let catalog = try PipelineCatalog.locate(from: global.workingDirectory)
        let file = try catalog.file(named: name)
        let spec = try SpecLoader.load(file, displayPath: catalog.displayPath(of: file))
        guard dryRun else {
            throw CLIFailure(status: .usage, message:
                "running stages is not in this build yet; 'pipeline run \(name) --dry-run' shows the plan")
        }
        let detector = ChangeDetector(repositoryPath: global.workingDirectory.path,
                                      testPattern: testPattern.pattern(settings: spec.changes),
                                      detectRenames: !changeOptions.noRenames)
        let changeSet = try detector.changes(try changeOptions.comparison(settings: spec.changes))
        let plan = PipelinePlan(spec: spec, file: catalog.displayPath(of: file),
                                availableCores: global.availableCores, dryRun: true, changeSet: changeSet)
        if json {
            try Console.json(plan)
        } else {
            Console.out(plan.render())
        }
    }
}
