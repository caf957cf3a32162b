import ArgumentParser
import Foundation
import GitChanges
import Orchestrator
import PipelineSpec

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

    @OptionGroup var changeOptions: ChangeOptions
    @OptionGroup var testPattern: TestPatternOption

    func run() async throws {
        let catalog = try PipelineCatalog.locate(from: global.workingDirectory)
        let file = try catalog.file(named: name)
        let origin = catalog.displayPath(of: file)
        let spec = try SpecLoader.load(file, displayPath: origin)
        let detector = ChangeDetector(repositoryPath: global.workingDirectory.path,
                                      testPattern: testPattern.pattern(settings: spec.changes),
                                      detectRenames: !changeOptions.noRenames)
        let changeSet = try detector.changes(try changeOptions.comparison(settings: spec.changes))
        let interactive = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
        let runner = PipelineRunner(spec: spec, base: catalog.folder.deletingLastPathComponent(), origin: origin,
                                    changes: changeSet, quarantine: try QuarantineLoader.file(in: catalog).map {
                                        try QuarantineLoader.load($0, displayPath: catalog.displayPath(of: $0))
                                    },
                                    cores: global.availableCores, interactive: interactive) { text in
            FileHandle.standardError.write(Data(text.utf8))
        }
        if dryRun {
            let plan = await runner.detail(PipelinePlan(spec: spec, file: origin, availableCores: global.availableCores,
                                                        dryRun: true, changeSet: changeSet))
            return json ? try Console.json(plan) : Console.out(plan.render())
        }
        Interrupts.install()
        Console.error(ChangeReport.render(changeSet).joined(separator: "\n"))
        let outcome = try await runner.run()
        for stage in outcome.stages {
            if let report = stage.test { CIReport.publish(report, title: "pipeline run \(name): \(stage.kind)") }
        }
        if json {
            try Console.json(outcome)
        } else {
            Console.out(outcome.render())
        }
        if !outcome.passed { throw QuietExit(status: .testsFailed) }
    }
}
