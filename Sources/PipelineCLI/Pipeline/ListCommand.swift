import ArgumentParser
import Pipelines

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the pipelines in pipelines/ with their stages, and the reference commands.",
        discussion: "A pipeline that does not validate is listed with its problem count; the exit code is then 3."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the list as JSON (see docs/json.md).")
    var json = false

    func run() async throws {
        let list = try PipelineList(from: global.workingDirectory, cores: global.availableCores)
        if json {
            try Console.json(list.entries)
        } else {
            Console.out((list.render() + [""] + RefsGuide.render()).joined(separator: "\n"))
        }
        if !list.invalid.isEmpty {
            throw CLIFailure(
                status: .spec,
                message: "\(list.invalid.count) of \(list.entries.count) pipelines have problems; "
                    + "run 'pipeline validate' to see them")
        }
    }
}
