import Foundation

/// The pipelines of a repository: the `*.yml` files of its `pipelines/` folder.
public struct PipelineCatalog: Sendable {
    /// The `pipelines/` folder.
    public let folder: URL
    /// The folder messages are relative to (the working directory).
    public let workingDirectory: URL

    public init(folder: URL, workingDirectory: URL) {
        self.folder = folder.standardizedFileURL
        self.workingDirectory = workingDirectory.standardizedFileURL
    }

    /// Finds `pipelines/` in `directory` or the nearest parent, stopping at the repository root.
    public static func locate(from directory: URL) throws(SpecError) -> PipelineCatalog {
        let fileManager = FileManager.default
        var current = directory.standardizedFileURL
        while true {
            var isDirectory: ObjCBool = false
            let candidate = current.appendingPathComponent("pipelines")
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return PipelineCatalog(folder: candidate, workingDirectory: directory)
            }
            let parent = current.deletingLastPathComponent()
            if fileManager.fileExists(atPath: current.appendingPathComponent(".git").path)
                || parent.path == current.path
            {
                throw .noPipelinesFolder(start: directory.path)
            }
            current = parent
        }
    }

    /// The spec files, sorted by name (the quarantine file is not a pipeline).
    public func files() -> [URL] {
        let contents = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return
            contents
            .filter { ["yml", "yaml"].contains($0.pathExtension) && $0.lastPathComponent != Quarantine.fileName }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The pipeline names, from the file names.
    public func names() -> [String] {
        files().map { $0.deletingPathExtension().lastPathComponent }
    }

    /// The file of the pipeline called `name`.
    public func file(named name: String) throws(SpecError) -> URL {
        guard let url = files().first(where: { $0.deletingPathExtension().lastPathComponent == name }) else {
            throw .unknownPipeline(name: name, folder: displayPath(of: folder), available: names())
        }
        return url
    }

    /// Loads and validates the pipeline called `name`.
    public func load(named name: String) throws(SpecError) -> PipelineSpec {
        let url = try file(named: name)
        return try SpecLoader.load(url, displayPath: displayPath(of: url))
    }

    /// `url` relative to the working directory when it lies below it, else absolute.
    public func displayPath(of url: URL) -> String {
        let base = workingDirectory.path.hasSuffix("/") ? workingDirectory.path : workingDirectory.path + "/"
        let path = url.standardizedFileURL.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }
}
