import Foundation
import PipelineCore
import PipelineSpec

/// `pipeline list`: every pipeline of `pipelines/` with its plan, or its problems when it does not
/// validate. Its JSON form is documented in docs/json.md.
public struct PipelineList: Sendable {
    public struct Entry: Sendable, Encodable {
        public let name: String
        public let file: String
        public let plan: DryRun?
        public let problems: [String]
    }

    public let entries: [Entry]
    /// The `pipelines/` folder, as shown to people.
    public let folder: String

    /// The pipelines found from `directory`, planned for a machine with `cores` cores.
    public init(from directory: URL, cores: Int) throws {
        let catalog = try PipelineCatalog.locate(from: directory)
        folder = catalog.displayPath(of: catalog.folder)
        entries = catalog.files().map { url in
            let file = catalog.displayPath(of: url)
            let name = url.deletingPathExtension().lastPathComponent
            do throws(SpecError) {
                let spec = try SpecLoader.load(url, displayPath: file)
                return Entry(
                    name: name, file: file,
                    plan: DryRun(spec: spec, file: file, availableCores: cores, dryRun: false),
                    problems: [])
            } catch {
                return Entry(name: name, file: file, plan: nil, problems: error.lines)
            }
        }
    }

    /// The pipelines that do not validate.
    public var invalid: [Entry] { entries.filter { !$0.problems.isEmpty } }

    /// The list for people: each pipeline with its description and numbered stages.
    public func render() -> [String] {
        var lines = entries.isEmpty ? ["No pipelines in \(folder)/ yet."] : ["Pipelines in \(folder)/:"]
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let padding = String(repeating: " ", count: width - entry.name.count)
            let indent = String(repeating: " ", count: width + 4)
            lines.append("")
            guard let plan = entry.plan else {
                let count = entry.problems.count
                lines.append("  \(entry.name)\(padding)  (invalid: \(counted(count, "problem")))")
                continue
            }
            lines.append("  \(entry.name)\(padding)  \(plan.description)")
            for (index, stage) in plan.stages.enumerated() {
                lines.append("\(indent)\(index + 1). \(stage.kind.rawValue): \(stage.summary)")
            }
            lines.append("\(indent)run: pipeline run \(entry.name)   (add --dry-run to see the plan)")
        }
        return lines
    }
}
