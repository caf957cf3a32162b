import PipelineCore

/// Why a pipeline could not be found or read.
public enum SpecError: Error, Sendable, CustomStringConvertible {
    /// The spec has problems; every one is listed.
    case invalid([Diagnostic])
    /// No `pipelines/` folder was found from `start` up to the repository root.
    case noPipelinesFolder(start: String)
    /// No pipeline has this name; `available` are the ones that do exist.
    case unknownPipeline(name: String, folder: String, available: [String])
    /// The file could not be read at all.
    case unreadable(file: String, reason: String)
    /// `pipeline validate` found no spec to check in the folder.
    case noSpecs(folder: String)

    /// One line per problem: each diagnostic of an invalid spec, or the one message.
    public var lines: [String] {
        if case .invalid(let diagnostics) = self { return diagnostics.map(\.description) }
        return [description]
    }

    public var description: String {
        switch self {
        case .invalid(let diagnostics):
            return diagnostics.map(\.description).joined(separator: "\n")
        case .noPipelinesFolder(let start):
            return "no pipelines/ folder in \(start) or its parents up to the repository root; "
                + "create pipelines/<name>.yml, or run 'pipeline init' to write the specs and CI files"
        case .unknownPipeline(let name, let folder, let available):
            let known = available.isEmpty ? "it holds no pipelines" : "available: " + available.joined(separator: ", ")
            return "no pipeline named '\(name)' in \(folder)/; \(known)"
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .noSpecs(let folder):
            return "\(folder)/ holds no .yml files; nothing to validate"
        }
    }
}

extension SpecError: ExitCoded {
    public var exitStatus: ExitStatus {
        if case .unknownPipeline = self { .usage } else { .spec }
    }
}
