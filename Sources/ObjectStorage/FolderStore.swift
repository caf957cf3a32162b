import Foundation

/// A store in a local folder: the embedded default, and what tests and demos run on. An object
/// is a file at `<root>/<key>`; its metadata is a JSON file at `<root>/.pipeline-metadata/<key>.json`
/// (the folder's manifest of where each object came from). Hidden files are not objects. Writes go
/// through a temporary file and a rename, and never through a symbolic link out of the root.
public struct FolderStore: ObjectStore, FileBacked {
    public let root: URL
    /// Whether metadata is kept; a checkout's `__Snapshots__` folder keeps none.
    public let keepsMetadata: Bool
    public var name: String { root.path }
    static let metadataFolder = ".pipeline-metadata"

    public init(root: URL, keepsMetadata: Bool = true) {
        self.root = root.standardizedFileURL
        self.keepsMetadata = keepsMetadata
    }

    public func list(under prefix: ObjectKey?) async throws(StoreError) -> [ObjectInfo] {
        let start = prefix.map { root.appendingPathComponent($0.rawValue) } ?? root
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: start.path, isDirectory: &isFolder), isFolder.boolValue else {
            return []
        }
        let files = FileManager.default.enumerator(
            at: start, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
            options: [.skipsHiddenFiles])
        var objects: [ObjectInfo] = []
        while let url = files?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values?.isRegularFile == true else { continue }  // folders, links, devices
            let key = try ObjectKey(String(url.standardizedFileURL.path.dropFirst(root.path.count + 1)))
            objects.append(
                ObjectInfo(key: key, size: Int64(values?.fileSize ?? 0), etag: try Digest.hex(ofFile: url, .md5)))
        }
        return objects.sorted { $0.key < $1.key }
    }

    /// The folders right below `prefix`, hidden ones included (records' scopes start with none,
    /// but a record kind's folder does).
    public func folders(under prefix: ObjectKey?) async throws(StoreError) -> [String] {
        let start = prefix.map { root.appendingPathComponent($0.rawValue) } ?? root
        let names = (try? FileManager.default.contentsOfDirectory(atPath: start.path)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return name != Self.metadataFolder && !name.hasPrefix(".pipeline-")
                && FileManager.default.fileExists(
                    atPath: start.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }.sorted()
    }

    public func head(_ key: ObjectKey) async throws(StoreError) -> ObjectInfo? {
        let url = file(key)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return ObjectInfo(
            key: key, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0, etag: try Digest.hex(ofFile: url, .md5))
    }

    public func metadata(of key: ObjectKey) async throws(StoreError) -> [String: String] {
        guard keepsMetadata, let data = FileManager.default.contents(atPath: metadataFile(key).path) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    public func download(_ key: ObjectKey, to destination: URL) async throws(StoreError) {
        try Self.place(copyOf: try existingFile(key), at: destination)
    }

    public func upload(_ file: URL, to key: ObjectKey, metadata: [String: String]) async throws(StoreError) {
        let target = try writableFile(key)
        // Metadata first: an object that is present always has its own, even after a kill between the two.
        try writeMetadata(metadata, for: key)
        await KillPoints.passed("metadata of \(key)")
        try Self.place(copyOf: file, at: target)
        await KillPoints.passed("upload \(key)")
    }

    public func copyStored(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey,
        metadata: [String: String]
    ) async throws(StoreError) {
        let target = try writableFile(key)
        try writeMetadata(metadata, for: key)
        await KillPoints.passed("metadata of \(key)")
        // The download itself goes through a temporary file beside the target and a rename.
        try await source.download(sourceKey, to: target)
        await KillPoints.passed("copy \(key)")
    }

    public func delete(_ key: ObjectKey) async throws(StoreError) {
        for url in [file(key), metadataFile(key)] where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw .io(path: url.path, reason: error.localizedDescription)
            }
            await KillPoints.passed("delete \(url.lastPathComponent)")
        }
        // Leave no empty folders behind (the root itself stays).
        var folder = file(key).deletingLastPathComponent()
        while folder.path.count > root.path.count,
            (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true
        {
            try? FileManager.default.removeItem(at: folder)
            folder.deleteLastPathComponent()
        }
    }

    func file(_ key: ObjectKey) -> URL { root.appendingPathComponent(key.rawValue) }

    public func existingFile(_ key: ObjectKey) throws(StoreError) -> URL {
        let url = file(key)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .notFound(store: name, key: key.rawValue) }
        return url
    }

    private func metadataFile(_ key: ObjectKey) -> URL {
        root.appendingPathComponent(Self.metadataFolder).appendingPathComponent(key.rawValue + ".json")
    }

    private func writeMetadata(_ metadata: [String: String], for key: ObjectKey) throws(StoreError) {
        guard keepsMetadata else { return }
        let url = metadataFile(key)
        try createFolder(url.deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(metadata).write(to: url, options: .atomic)
        } catch {
            throw .io(path: url.path, reason: error.localizedDescription)
        }
    }

    /// The object's file, its folder created, after checking the folder really lies inside the
    /// root (a symbolic link inside the store could otherwise lead a write elsewhere).
    private func writableFile(_ key: ObjectKey) throws(StoreError) -> URL {
        let url = file(key)
        try createFolder(url.deletingLastPathComponent())
        return url
    }

    func createFolder(_ folder: URL) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .io(path: folder.path, reason: error.localizedDescription)
        }
        let realRoot = root.resolvingSymlinksInPath().path
        let realFolder = folder.resolvingSymlinksInPath().path
        guard realFolder == realRoot || realFolder.hasPrefix(realRoot + "/") else {
            throw .io(
                path: folder.path, reason: "leads outside \(root.path) through a symbolic link; refusing to write there"
            )
        }
    }

    /// Copies `source` over `destination` through a temporary file beside it, so a reader never
    /// sees half a file and a killed copy leaves the old one.
    static func place(copyOf source: URL, at destination: URL) throws(StoreError) {
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(
            ".pipeline-tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .io(path: destination.path, reason: error.localizedDescription)
        }
        // rename(2) replaces the old file in one step; FileManager's replace can lose it on Linux.
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .io(path: destination.path, reason: reason)
        }
    }
}
