import ArgumentParser
import Orchestrator
import PipelineSpec

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the pipelines in pipelines/ with their stages, and the reference commands.",
        discussion: "A pipeline that does not validate is listed with its problem count; the exit code is then 3."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the list as JSON (see docs/json.md).")
    var json = false

    struct Entry: Encodable {
        let name: String
        let file: String
        let plan: PipelinePlan?
        let problems: [String]
    }

    func run() async throws {
        let catalog = try PipelineCatalog.locate(from: global.workingDirectory)
        let entries = catalog.files().map { url in
            let file = catalog.displayPath(of: url)
            let name = url.deletingPathExtension().lastPathComponent
            do throws(SpecError) {
                let spec = try SpecLoader.load(url, displayPath: file)
                let plan = PipelinePlan(spec: spec, file: file, availableCores: global.availableCores, dryRun: false)
                return Entry(name: name, file: file, plan: plan, problems: [])
            } catch {
                return Entry(name: name, file: file, plan: nil, problems: error.lines)
            }
        }
        if json {
            try Console.json(entries)
        } else {
            Console.out(render(entries, folder: catalog.displayPath(of: catalog.folder)).joined(separator: "\n"))
        }
        let invalid = entries.filter { !$0.problems.isEmpty }
        if !invalid.isEmpty {
            throw CLIFailure(status: .spec, message: "\(invalid.count) of \(entries.count) pipelines have problems; "
                + "run 'pipeline validate' to see them")
        }
    }

    private func render(_ entries: [Entry], folder: String) -> [String] {
        var lines = entries.isEmpty ? ["No pipelines in \(folder)/ yet."] : ["Pipelines in \(folder)/:"]
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let padding = String(repeating: " ", count: width - entry.name.count)
            let indent = String(repeating: " ", count: width + 4)
            lines.append("")
            guard let plan = entry.plan else {
                let count = entry.problems.count
                lines.append("  \(entry.name)\(padding)  (invalid: \(count) problem\(count == 1 ? "" : "s"))")
                continue
            }
            lines.append("  \(entry.name)\(padding)  \(plan.description)")
            for (index, stage) in plan.stages.enumerated() {
                lines.append("\(indent)\(index + 1). \(stage.kind): \(stage.summary)")
            }
            lines.append("\(indent)run: pipeline run \(entry.name)   (add --dry-run to see the plan)")
        }
        return lines + [""] + RefsGuide.render()
    }
}
