import Foundation
import PipelineSpec

extension GlobalOptions {
    /// The spec whose references a command uses, and the folder its paths are relative to: the
    /// pipeline named, else the one pipeline that sets references; none when there is no spec.
    func referenceSource(pipeline: String?) throws -> (spec: PipelineSpec?, origin: String, base: URL) {
        let catalog: PipelineCatalog
        do {
            catalog = try PipelineCatalog.locate(from: workingDirectory)
        } catch {
            if pipeline != nil { throw error }
            return (nil, "there is no pipelines/ folder here", workingDirectory)
        }
        let base = catalog.folder.deletingLastPathComponent()
        if let pipeline {
            let spec = try catalog.load(named: pipeline)
            return (spec, catalog.displayPath(of: try catalog.file(named: pipeline)), base)
        }
        // The pipelines that set references; invalid specs are left to 'pipeline validate'.
        let candidates = catalog.names().compactMap { name -> (String, PipelineSpec)? in
            guard let spec = try? catalog.load(named: name), spec.references != nil else { return nil }
            return (name, spec)
        }
        guard let first = candidates.first else { return (nil, "no valid pipeline in pipelines/ sets references", base) }
        if let other = candidates.first(where: { $0.1.references != first.1.references }) {
            throw CLIFailure(status: .usage, message: "pipelines \(first.0) and \(other.0) name different references; "
                             + "choose one with --pipeline NAME")
        }
        return (first.1, catalog.displayPath(of: try catalog.file(named: first.0)), base)
    }
}
