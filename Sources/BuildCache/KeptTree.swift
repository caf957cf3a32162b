import Foundation
import ObjectStorage

/// A tree kept in the store: its parts under `<parts>/<save>/`, then its record, written last, so a
/// record only ever names parts that are all there. A save killed part-way leaves parts no record
/// names, which nothing restores and `KeptTrees.collect` removes once old.
public struct KeptTree: Sendable, Codable, Equatable {
    public var key: BuildCacheKey
    public var commit: String
    /// The branch it was built for, for retention (`local` outside CI).
    public var branch: String
    /// Seconds since 1970.
    public var savedAt: Double
    /// The folder of this save's parts: `<seconds>-<random>`.
    public var save: String
    public var compression: String
    public var parts: [ArchivePart]
    /// The paths it holds, relative to the package.
    public var members: [String]
    /// The times the build saw of the package's files, by content (a build tree's; not products').
    public var sources: SourceStamps?

    public var bytes: Int64 { parts.reduce(0) { $0 + $1.size } }
}

/// Moving trees between a package and the store: packed, parts transferred four at a time,
/// unpacked into a staging folder.
struct KeptTrees: Sendable {
    let folder: StoreLocation
    let variables: [String: String]
    static let parallelTransfers = 4

    func key(_ text: String) throws(BuildCacheError) -> ObjectKey {
        do { return try ObjectKey(text).under(folder.prefix) } catch { throw .store(error) }
    }

    /// Packs `members` of `package` and keeps them: the parts under `parts/<save>/`, then the
    /// record at `record`.
    func put(
        _ members: [String], of package: URL, excluding excluded: [String], parts: String, save: String,
        record: String, commit: String, branch: String, key: BuildCacheKey, sources: SourceStamps? = nil
    ) async throws(BuildCacheError) -> KeptTree {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("parts")
        try Self.create(folder)
        let compression = BuildArchive.compression(variables)
        let made = try await BuildArchive.pack(
            root: package, members: members, excluded: excluded, into: folder, compression: compression,
            variables: variables)
        let uploads = try made.map { part throws(BuildCacheError) in
            (folder.appendingPathComponent(part.name), try self.key("\(parts)/\(save)/\(part.name)"))
        }
        try await inParallel(uploads) { [store = self.folder.store] file, key throws(StoreError) in
            try await store.upload(file, to: key, metadata: [:])
        }
        let tree = KeptTree(
            key: key, commit: commit, branch: branch, savedAt: Date().timeIntervalSince1970, save: save,
            compression: compression, parts: made,
            members: members, sources: sources)
        let recordFile = scratch.appendingPathComponent("record.json")
        let recordKey = try self.key(record)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(tree).write(to: recordFile)
            try await self.folder.store.upload(recordFile, to: recordKey, metadata: [:])
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .io(path: recordFile.path, reason: "\(error)")
        }
        return tree
    }

    /// Writes small bytes as the object `name`.
    func write(_ data: Data, to name: String) async throws(BuildCacheError) {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("object")
        let key = try self.key(name)
        do {
            try data.write(to: file)
        } catch {
            throw .io(path: file.path, reason: "\(error)")
        }
        do { try await folder.store.upload(file, to: key, metadata: [:]) } catch { throw .store(error) }
    }

    /// The bytes of the small object `name`, nil when there is none.
    func read(_ name: String) async throws(BuildCacheError) -> Data? {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("object")
        let key = try self.key(name)
        do {
            try await folder.store.download(key, to: file)
        } catch .notFound {
            return nil
        } catch {
            throw .store(error)
        }
        return FileManager.default.contents(atPath: file.path)
    }

    /// The keys below `prefix` (the whole folder when nil), relative to the folder.
    func names(under prefix: String?) async throws(BuildCacheError) -> [String] {
        let under = try prefix.map { text throws(BuildCacheError) in try key(text) } ?? folder.prefix
        do {
            return try await folder.store.list(under: under).map { info in
                folder.prefix.flatMap { info.key.relative(to: $0) }?.rawValue ?? info.key.rawValue
            }
        } catch {
            throw .store(error)
        }
    }

    /// The record at `record`, nil when there is none.
    func record(_ record: String) async throws(BuildCacheError) -> KeptTree? {
        guard let data = try await read(record) else { return nil }
        guard let tree = try? JSONDecoder().decode(KeptTree.self, from: data) else {
            throw .unusable("the build cache's record \(record) in \(folder.name) cannot be read")
        }
        return tree
    }

    /// Downloads a record's parts (each checked against its MD5) and unpacks them into `staging`.
    func fetch(_ tree: KeptTree, parts: String, into staging: URL) async throws(BuildCacheError) {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let downloads = try tree.parts.map { part throws(BuildCacheError) in
            (scratch.appendingPathComponent(part.name), try key("\(parts)/\(tree.save)/\(part.name)"))
        }
        try await inParallel(downloads) { [store = folder.store] file, key throws(StoreError) in
            try await store.download(key, to: file)
        }
        for (part, (file, _)) in zip(tree.parts, downloads) {
            let md5: String
            do { md5 = try Digest.hex(ofFile: file, .md5) } catch { throw .store(error) }
            guard md5 == part.md5 else {
                throw .unusable("the build cache's part \(parts)/\(tree.save)/\(part.name) does not match its record")
            }
        }
        await KillPoints.passed("build cache: parts downloaded")
        try await BuildArchive.unpack(
            downloads.map(\.0), into: staging, compression: tree.compression, variables: variables,
            log: scratch.appendingPathComponent("unpack.log"))
        await KillPoints.passed("build cache: unpacked")
    }

    /// Deletes one object (relative to the folder).
    func delete(_ object: String) async throws(BuildCacheError) {
        let key = try self.key(object)
        do { try await folder.store.delete(key) } catch { throw .store(error) }
    }

    /// Deletes every object below `prefix` (relative to the folder).
    func delete(under prefix: String) async throws(BuildCacheError) {
        let below = try key(prefix)
        do {
            for info in try await folder.store.list(under: below) {
                try await folder.store.delete(info.key)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Runs `work` on each item, at most `parallelTransfers` at once; the first error ends them all.
    private func inParallel(
        _ items: [(URL, ObjectKey)], _ work: @escaping @Sendable (URL, ObjectKey) async throws(StoreError) -> Void
    ) async throws(BuildCacheError) {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = items.makeIterator()
                for _ in 0..<Self.parallelTransfers {
                    guard let item = next.next() else { break }
                    group.addTask { try await work(item.0, item.1) }
                }
                while try await group.next() != nil {
                    guard let item = next.next() else { continue }
                    group.addTask { try await work(item.0, item.1) }
                }
            }
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .unusable("\(error)")
        }
    }

    /// A new save's name: `<seconds since 1970>-<random>`, so its age is read from its keys.
    static func newSave() -> String {
        "\(Int(Date().timeIntervalSince1970))-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// When a save was made (seconds since 1970), from its name.
    static func savedAt(_ save: String) -> Double? {
        Double(save.prefix { $0 != "-" })
    }

    static func scratch() throws(BuildCacheError) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-build-cache-\(UUID().uuidString)")
        try create(folder)
        return folder
    }

    static func create(_ folder: URL) throws(BuildCacheError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .io(path: folder.path, reason: "cannot be created: \(error.localizedDescription)")
        }
    }
}
