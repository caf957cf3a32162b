import Foundation
import PipelineCore

/// `pipeline validate`: which files it checks, and what each holds or lacks.
public enum SpecValidation {
    /// A file to check, with the path messages name it by.
    public struct Target: Sendable {
        public let url: URL
        public let display: String
    }

    /// The files named (relative to `base`), or with none every spec of `pipelines/` and its
    /// quarantine; an empty folder is an error, since nothing would be checked.
    public static func targets(_ named: [String], from base: URL) throws(SpecError) -> [Target] {
        guard named.isEmpty else {
            return named.map {
                Target(url: URL(fileURLWithPath: $0, relativeTo: base).standardizedFileURL, display: $0)
            }
        }
        let catalog = try PipelineCatalog.locate(from: base)
        let targets = (catalog.files() + [QuarantineLoader.file(in: catalog)].compactMap { $0 })
            .map { Target(url: $0, display: catalog.displayPath(of: $0)) }
        guard !targets.isEmpty else {
            throw .noSpecs(folder: catalog.displayPath(of: catalog.folder))
        }
        return targets
    }

    /// Checks one file: a spec, or the quarantine by its name. Returns its line for people
    /// (`ok: pipelines/ci.yml (3 stages)`); every problem at once as the error.
    public static func check(_ target: Target) throws(SpecError) -> String {
        if target.url.lastPathComponent == Quarantine.fileName {
            let quarantine = try QuarantineLoader.load(target.url, displayPath: target.display)
            return "ok: \(target.display) (\(quarantine.entries.count) quarantined)"
        }
        let spec = try SpecLoader.load(target.url, displayPath: target.display)
        return "ok: \(target.display) (\(counted(spec.stages.count, "stage")))"
    }
}
