import Foundation

/// What a listing or a head request says of an object.
public struct ObjectInfo: Hashable, Sendable {
    /// Relative to the store's root.
    public let key: ObjectKey
    public let size: Int64
    /// The store's tag of this version of the object, for conditional writes (`If-Match`): the
    /// content's MD5 on a folder store and for most S3 objects, but not for an S3 object uploaded
    /// in parts or encrypted with SSE-KMS/SSE-C.
    public let etag: String
    /// The MD5 of the content, lowercase hex: what comparisons of content use, whatever the tag.
    public let md5: String

    public init(key: ObjectKey, size: Int64, etag: String, md5: String? = nil) {
        (self.key, self.size, self.etag, self.md5) = (key, size, etag, md5 ?? etag)
    }
}

/// When a write may go ahead: the building block of coordination through a store alone.
public enum WriteCondition: Sendable, Equatable {
    case always
    /// Only when no object has the key (S3 `If-None-Match: *`; a folder's exclusive create).
    case ifAbsent
    /// Only when the object still has this ETag (S3 `If-Match`; a folder's compare under a lock).
    case ifMatch(etag: String)
}

/// A place objects are kept: a folder, or an S3 bucket (with a prefix). Keys are relative to it.
/// Implementations are safe to call from many tasks at once.
public protocol ObjectStore: Sendable {
    /// How messages name the store: a folder path, or `s3://bucket/prefix` (never a credential).
    var name: String { get }

    /// Every object below `prefix` (all of them when nil), in key order.
    func list(under prefix: ObjectKey?) async throws(StoreError) -> [ObjectInfo]

    /// The same, when one cheap request can give it all (at most `limit` objects); nil otherwise.
    /// Lets a promotion of many tests list a small prefix once instead of once per test.
    func listIfSmall(under prefix: ObjectKey?, atMost limit: Int) async throws(StoreError) -> [ObjectInfo]?

    /// The names of the folders right below `prefix` (the top when nil) that hold objects, sorted:
    /// one cheap request where the store has one (S3's delimiter), not a listing of everything.
    func folders(under prefix: ObjectKey?) async throws(StoreError) -> [String]

    /// The object's size and ETag, or nil when there is none.
    func head(_ key: ObjectKey) async throws(StoreError) -> ObjectInfo?

    /// The metadata recorded with the object (`pipeline-commit`, …); empty when none.
    func metadata(of key: ObjectKey) async throws(StoreError) -> [String: String]

    /// Whether objects written here keep their metadata (a checkout's reference folders do not).
    var keepsMetadata: Bool { get }

    /// Writes the object's content to `file` (replacing it whole), checking its MD5.
    func download(_ key: ObjectKey, to file: URL) async throws(StoreError)

    /// Stores `file` as the object, with metadata.
    func upload(_ file: URL, to key: ObjectKey, metadata: [String: String]) async throws(StoreError)

    /// Copies an object of `source`, a store not backed by files, to `key` here, with new metadata;
    /// server-side where both ends allow it. `copy` is the way in.
    func copyStored(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey,
        metadata: [String: String]) async throws(StoreError)

    /// Copies an object of `source` to `key` here with the source's own metadata (the commit of
    /// its push, where it was rendered, its content's MD5): on S3 one server-side request, with
    /// no read of the source's metadata first.
    func copyAsIs(_ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey) async throws(StoreError)

    func delete(_ key: ObjectKey) async throws(StoreError)
}

/// A shared store that can make a write conditional: the team's folder or S3 bucket (not a
/// checkout). CI machines coordinate through it alone.
public protocol SharedStore: ObjectStore {
    /// A small object's content and ETag, or nil when there is none.
    func get(_ key: ObjectKey) async throws(StoreError) -> (data: Data, etag: String)?

    /// Writes a small object when `condition` holds and returns its new ETag. Throws
    /// `preconditionFailed` when it does not hold, `conditionalWritesUnsupported` when the store
    /// cannot tell.
    @discardableResult
    func put(_ data: Data, to key: ObjectKey, condition: WriteCondition) async throws(StoreError) -> String
}

/// A store whose objects are files on this machine, which other stores can read directly.
public protocol FileBacked {
    /// The object's file; `notFound` when there is none.
    func existingFile(_ key: ObjectKey) throws(StoreError) -> URL
}

extension ObjectStore {
    public var keepsMetadata: Bool { true }

    public func copyAsIs(_ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey)
        async throws(StoreError)
    {
        try await copy(sourceKey, from: source, to: key, metadata: try await source.metadata(of: sourceKey))
    }

    /// Copies an object of `source` (this store or another) to `key` here, with new metadata: an
    /// upload of its file when the source is a folder, otherwise the store's own copy. Where the
    /// object was rendered (`pipeline-rendered-on`) goes with it, unless `metadata` says otherwise.
    public func copy(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey, metadata: [String: String]
    ) async throws(StoreError) {
        var metadata = metadata
        if keepsMetadata, metadata[StoreSync.renderedOnMetadata] == nil,
            let rendered = try await source.metadata(of: sourceKey)[StoreSync.renderedOnMetadata]
        {
            metadata[StoreSync.renderedOnMetadata] = rendered
        }
        if let files = source as? FileBacked {
            return try await upload(try files.existingFile(sourceKey), to: key, metadata: metadata)
        }
        try await copyStored(sourceKey, from: source, to: key, metadata: metadata)
    }

    /// From a whole listing, for stores without a cheaper way.
    public func folders(under prefix: ObjectKey?) async throws(StoreError) -> [String] {
        var names: Set<String> = []
        for object in try await list(under: prefix) {
            let rest = prefix.flatMap { object.key.relative(to: $0) } ?? object.key
            if rest.rawValue.contains("/") { names.insert(rest.firstSegment) }
        }
        return names.sorted()
    }

    /// Stores without a cheap whole listing list per test (a folder store hashes every file it lists).
    public func listIfSmall(under prefix: ObjectKey?, atMost limit: Int) async throws(StoreError) -> [ObjectInfo]? {
        nil
    }

    /// A copy between stores that cannot copy directly: download to a temporary file, upload it.
    func copyThroughTemporaryFile(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey,
        metadata: [String: String]
    ) async throws(StoreError) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await source.download(sourceKey, to: scratch)
        try await upload(scratch, to: key, metadata: metadata)
    }
}
