import Foundation

/// A reference store whose records (`RecordLayout`) live beside it, by scope. References pass
/// through untouched; a record key (`<prefix>/.pushes/<commit>/…`, as every archive names it) is
/// written below this job's scope and read from this job's scope first, then every other scope
/// (feature's records, which each job writes in its own), then where an earlier version kept it
/// (below the reference prefix), so a store written by an earlier release is read as it is and
/// `refs migrate` moves it over when the team is ready. Listings of a record folder join every
/// scope's, the first of a key winning.
public struct ScopedRecords: SharedStore {
    /// The reference store.
    public let base: any SharedStore
    public let layout: RecordLayout

    public init(base: any SharedStore, layout: RecordLayout) {
        self.base = base
        self.layout = layout
    }

    public var name: String { base.name }
    public var keepsMetadata: Bool { base.keepsMetadata }

    /// Where a write of `key` goes: this job's scope for a record, the reference store otherwise.
    public func written(_ key: ObjectKey) throws(StoreError) -> (store: any SharedStore, key: ObjectKey) {
        guard let record = layout.record(key) else { return (base, key) }
        return (layout.records, try layout.key(record, in: layout.scope))
    }

    /// A key's place relative to the folder holding the reference prefix: a record's where
    /// `written` puts it (`.pipeline/pr/12/feature/.reviews/…`), a reference's below the prefix's
    /// name (`feature/LoginTests/a.png`): what an address serving that folder adds.
    public func besideReferences(_ key: ObjectKey) throws(StoreError) -> String {
        guard layout.record(key) != nil else {
            let rest = layout.referencePrefix.flatMap { key.relative(to: $0) } ?? key
            return "\(layout.side)/\(rest.rawValue)"
        }
        let place = try written(key)
        let parent = layout.root.rawValue.split(separator: "/").dropLast().joined(separator: "/")
        return parent.isEmpty ? place.key.rawValue : String(place.key.rawValue.dropFirst(parent.count + 1))
    }

    /// Where `record` (a key's part from the reference prefix on) is read from: the first place
    /// that has it (`exists`), or nil. Where a listing of this process found it is taken as it is
    /// when `trustingHint` (a download or a copy of what was just listed costs no extra request).
    func located(
        _ record: String, trustingHint: Bool = false,
        where exists: (any SharedStore, ObjectKey) async throws(StoreError) -> Bool
    ) async throws(StoreError) -> (store: any SharedStore, key: ObjectKey)? {
        let hinted = await RecordHints.shared.scope(of: record, in: layout)
        if trustingHint, let hinted { return (layout.records, try layout.key(record, in: hinted)) }
        var tried: Set<String> = []
        for scope in [hinted, layout.scope].compactMap({ $0 }) where tried.insert(scope).inserted {
            let place = try layout.key(record, in: scope)
            if try await exists(layout.records, place) { return (layout.records, place) }
        }
        if layout.searches {
            for scope in try await layout.scopes() where tried.insert(scope).inserted {
                let place = try layout.key(record, in: scope)
                if try await exists(layout.records, place) { return (layout.records, place) }
            }
        }
        let earlier = try layout.earlierKey(record)
        return try await exists(base, earlier) ? (base, earlier) : nil
    }

    /// Where `key` is read from: a reference in the reference store (no request to find it), a
    /// record where `located` finds it, else where an earlier layout would have kept it.
    private func readPlace(_ key: ObjectKey) async throws(StoreError) -> (store: any SharedStore, key: ObjectKey) {
        guard let record = layout.record(key) else { return (base, key) }
        let place = try await located(record, trustingHint: true) { store, place throws(StoreError) in
            try await store.head(place) != nil
        }
        return place ?? (base, key)
    }

    /// Every object below the record folder `record` (a prefix's part from the reference prefix
    /// on), every scope's and the earlier layout's, keyed as in the reference store; where each is.
    func gathered(_ record: String) async throws(StoreError) -> [ObjectInfo] {
        var found: [ObjectKey: ObjectInfo] = [:]
        var places: [String: String] = [:]
        for scope in try await layout.scopes() {
            let folder = try layout.folder(of: scope)
            for object in try await layout.records.list(under: try layout.key(record, in: scope)) {
                guard let rest = object.key.relative(to: folder) else { continue }
                let key = rest.under(layout.referencePrefix)
                guard found[key] == nil else { continue }
                found[key] = ObjectInfo(key: key, size: object.size, etag: object.etag, md5: object.md5)
                places[rest.rawValue] = scope
            }
        }
        for object in try await base.list(under: try layout.earlierKey(record)) where found[object.key] == nil {
            found[object.key] = object
        }
        await RecordHints.shared.learn(places, in: layout)
        return found.values.sorted { $0.key < $1.key }
    }

    public func list(under prefix: ObjectKey?) async throws(StoreError) -> [ObjectInfo] {
        guard let prefix, let record = layout.record(prefix) else { return try await base.list(under: prefix) }
        return try await gathered(record)
    }

    public func listIfSmall(under prefix: ObjectKey?, atMost limit: Int) async throws(StoreError) -> [ObjectInfo]? {
        guard let prefix, let record = layout.record(prefix) else {
            return try await base.listIfSmall(under: prefix, atMost: limit)
        }
        let objects = try await gathered(record)
        return objects.count <= limit ? objects : nil
    }

    public func folders(under prefix: ObjectKey?) async throws(StoreError) -> [String] {
        guard let prefix, layout.record(prefix) != nil else { return try await base.folders(under: prefix) }
        var names: Set<String> = []
        for object in try await list(under: prefix) {
            if let rest = object.key.relative(to: prefix), rest.rawValue.contains("/") {
                names.insert(rest.firstSegment)
            }
        }
        return names.sorted()
    }

    public func head(_ key: ObjectKey) async throws(StoreError) -> ObjectInfo? {
        guard let record = layout.record(key) else { return try await base.head(key) }
        var info: ObjectInfo?
        _ = try await located(record) { store, place throws(StoreError) in
            info = try await store.head(place)
            return info != nil
        }
        return info.map { ObjectInfo(key: key, size: $0.size, etag: $0.etag, md5: $0.md5) }
    }

    public func get(_ key: ObjectKey) async throws(StoreError) -> (data: Data, etag: String)? {
        guard let record = layout.record(key) else { return try await base.get(key) }
        var content: (data: Data, etag: String)?
        _ = try await located(record) { store, place throws(StoreError) in
            content = try await store.get(place)
            return content != nil
        }
        return content
    }

    public func metadata(of key: ObjectKey) async throws(StoreError) -> [String: String] {
        let place = try await readPlace(key)
        return try await place.store.metadata(of: place.key)
    }

    public func download(_ key: ObjectKey, to file: URL) async throws(StoreError) {
        let place = try await readPlace(key)
        try await place.store.download(place.key, to: file)
    }

    public func upload(_ file: URL, to key: ObjectKey, metadata: [String: String]) async throws(StoreError) {
        let place = try written(key)
        try await place.store.upload(file, to: place.key, metadata: metadata)
    }

    @discardableResult
    public func put(_ data: Data, to key: ObjectKey, condition: WriteCondition) async throws(StoreError) -> String {
        let place = try written(key)
        var condition = condition
        // A record read where an earlier layout kept it is replaced by the first write here.
        if case .ifMatch = condition, layout.record(key) != nil, try await place.store.head(place.key) == nil {
            condition = .ifAbsent
        }
        return try await place.store.put(data, to: place.key, condition: condition)
    }

    /// The source's own place when it is a scoped store too, so copies stay server-side.
    private func source(_ key: ObjectKey, of store: any ObjectStore) async throws(StoreError) -> (
        store: any ObjectStore, key: ObjectKey
    ) {
        guard let scoped = store as? ScopedRecords else { return (store, key) }
        let place = try await scoped.readPlace(key)
        return (place.store, place.key)
    }

    public func copyStored(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey, metadata: [String: String]
    ) async throws(StoreError) {
        let from = try await self.source(sourceKey, of: source)
        let place = try written(key)
        if let files = from.store as? FileBacked {
            return try await place.store.upload(try files.existingFile(from.key), to: place.key, metadata: metadata)
        }
        try await place.store.copyStored(from.key, from: from.store, to: place.key, metadata: metadata)
    }

    public func copyAsIs(_ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey)
        async throws(StoreError)
    {
        let from = try await self.source(sourceKey, of: source)
        let place = try written(key)
        try await place.store.copyAsIs(from.key, from: from.store, to: place.key)
    }

    /// Deletes a record wherever this job's reads find it (its own scope, the place a listing
    /// found it, the earlier layout); a reference in the reference store.
    public func delete(_ key: ObjectKey) async throws(StoreError) {
        guard let record = layout.record(key) else { return try await base.delete(key) }
        var scopes = [layout.scope]
        if let hinted = await RecordHints.shared.scope(of: record, in: layout), hinted != layout.scope {
            scopes.append(hinted)
        }
        for scope in scopes { try await layout.records.delete(try layout.key(record, in: scope)) }
        try await base.delete(try layout.earlierKey(record))
    }
}

/// What `ScopedRecords.migrate` moved (or, in a dry run, would move).
public struct RecordMigration: Sendable, Equatable {
    public var moved = 0
    public var bytes: Int64 = 0
    /// Where they went: `<store> (.pipeline/migrated/feature)`.
    public var destination = ""

    public init() {}
}

extension ScopedRecords {
    /// The records an earlier layout kept below the reference prefix: each kind's folder there,
    /// and in each environment's set.
    func earlierRecords() async throws(StoreError) -> [ObjectInfo] {
        var found: [ObjectInfo] = []
        let top = layout.referencePrefix
        for name in try await base.folders(under: top) {
            let folder = try ObjectKey(name).under(top)
            if RecordLayout.kinds.contains(name) {
                found += try await base.list(under: folder)
            } else if !name.hasPrefix(".") {
                for inner in try await base.folders(under: folder) where RecordLayout.kinds.contains(inner) {
                    found += try await base.list(under: try ObjectKey(inner).under(folder))
                }
            }
        }
        for file in RecordLayout.kinds where file.hasSuffix(".json") {
            if let object = try await base.head(try ObjectKey(file).under(top)) { found.append(object) }
        }
        return found.filter { layout.record($0.key) != nil }
    }

    /// Moves every record an earlier layout kept below the reference prefix into this layout:
    /// develop's into its scope, feature's into `migrated` (who wrote them is not known). Each is
    /// copied, its MD5 checked there, and only then deleted, so a migration stopped anywhere loses
    /// nothing and the next one finishes it; one already copied is not copied again.
    public func migrate(
        dryRun: Bool, progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws(StoreError) -> RecordMigration {
        let scope = layout.searches ? RecordLayout.migratedScope : RecordLayout.developScope
        var result = RecordMigration()
        result.destination = "\(layout.records.name) (\(try layout.folder(of: scope)))"
        let objects = try await earlierRecords()
        for (index, object) in objects.enumerated() {
            guard let record = layout.record(object.key) else { continue }
            result.moved += 1
            result.bytes += object.size
            progress(index + 1, objects.count)
            if dryRun { continue }
            let target = try layout.key(record, in: scope)
            if try await layout.records.head(target)?.md5 != object.md5 {
                try await layout.records.copyAsIs(object.key, from: base, to: target)
                let copied = try await layout.records.head(target)?.md5 ?? "none"
                guard copied == object.md5 else {
                    throw .checksumMismatch(
                        store: layout.records.name, key: target.rawValue, expected: object.md5, actual: copied)
                }
            }
            try await base.delete(object.key)
        }
        return result
    }
}

/// Which scope a listing found each record in, so reading it next costs one request.
actor RecordHints {
    static let shared = RecordHints()
    private var scopes: [String: String] = [:]

    private static func name(_ record: String, _ layout: RecordLayout) -> String {
        "\(layout.records.name)\u{0}\(layout.root)\u{0}\(layout.side)\u{0}\(record)"
    }

    func scope(of record: String, in layout: RecordLayout) -> String? {
        scopes[Self.name(record, layout)]
    }

    func learn(_ places: [String: String], in layout: RecordLayout) {
        for (record, scope) in places { scopes[Self.name(record, layout)] = scope }
    }
}
