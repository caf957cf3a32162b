import ArgumentParser
import GitChanges
import Orchestrator
import PipelineSpec

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Show what a merge changed: test targets, test files and reference folders.",
        discussion: """
        By default compares HEAD with its first parent — what a merge commit brought in. Renames are \
        detected. Tests whose references may need promotion are the changed test files and reference \
        folders, by name. Exit 0 also when nothing changed.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var changeOptions: ChangeOptions
    @OptionGroup var testPattern: TestPatternOption

    @Option(help: ArgumentHelp("Take the comparison and test pattern from this pipeline's spec.", valueName: "name"))
    var pipeline: String?

    @Flag(help: "Print the changes as JSON (see docs/json.md).")
    var json = false

    func run() async throws {
        var settings = ChangeSettings()
        if let pipeline {
            settings = try PipelineCatalog.locate(from: global.workingDirectory).load(named: pipeline).changes
        }
        let detector = ChangeDetector(repositoryPath: global.workingDirectory.path,
                                      testPattern: testPattern.pattern(settings: settings),
                                      detectRenames: !changeOptions.noRenames)
        let changes = try detector.changes(try changeOptions.comparison(settings: settings))
        if json {
            try Console.json(changes)
        } else {
            Console.out(ChangeReport.render(changes).joined(separator: "\n"))
        }
    }
}
