import ArgumentParser
import Pipelines

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
    @OptionGroup var testPattern: TestPatternOptions

    @Option(help: ArgumentHelp("Take the comparison and test pattern from this pipeline's spec.", valueName: "name"))
    var pipeline: String?

    @Flag(help: "Print the changes as JSON (see docs/json.md).")
    var json = false

    func run() async throws {
        var query = changeOptions.query
        query.testPattern = testPattern.tests
        let changes = try query.changes(in: global.workingDirectory, pipeline: pipeline)
        json ? try Console.json(changes) : Console.out(ChangeReport.render(changes).joined(separator: "\n"))
    }
}
