/// A store and the prefix references live under in it: `feature/` or `develop/` of a bucket, or a folder.
public struct StoreLocation: Sendable {
    public let store: any ObjectStore
    public let prefix: ObjectKey?

    public init(store: any ObjectStore, prefix: ObjectKey? = nil) {
        self.store = store
        self.prefix = prefix
    }

    public var name: String { store.name + (prefix.map { " (\($0))" } ?? "") }

    /// How messages name where `key` (a key of this store) is written: a record's place beside the
    /// references when the store keeps them so (`ScopedRecords`).
    public func describe(_ key: ObjectKey) -> String {
        guard let scoped = store as? ScopedRecords, let place = try? scoped.written(key) else {
            return "\(store.name)/\(key.rawValue)"
        }
        return "\(place.store.name)/\(place.key.rawValue)"
    }

    /// The folder `path` below this one (`pr/12` below `build-cache`).
    public func below(_ path: String) throws(StoreError) -> StoreLocation {
        StoreLocation(store: store, prefix: try ObjectKey(path).under(prefix))
    }
}

/// What promoting some tests' references would do: for each test, make the destination hold
/// exactly what the source holds. Keys are relative to the locations' prefixes (`Test/image.png`).
public struct SyncWork: Equatable, Sendable {
    /// Objects missing at the destination, or different there.
    public var copies: [ObjectKey] = []
    /// The copies that replace a different object at the destination.
    public var overwrites: [ObjectKey] = []
    /// Objects already identical (same MD5): nothing to do.
    public var identical: [ObjectKey] = []
    /// Objects the destination has and the source no longer does: deleted only when pruning.
    public var stale: [ObjectKey] = []
    /// Tests with no reference at the source at all.
    public var testsWithoutReferences: [String] = []
    /// The source's ETag (MD5) of each object to copy.
    public var sourceETags: [ObjectKey: String] = [:]

    /// Keeps only the objects `keep` accepts (to copy, to overwrite, identical already).
    public mutating func keep(_ keep: (ObjectKey) -> Bool) {
        (copies, overwrites, identical) = (copies.filter(keep), overwrites.filter(keep), identical.filter(keep))
    }
}

public struct PromotionResult: Equatable, Sendable {
    public var copied: [ObjectKey] = []
    public var deleted: [ObjectKey] = []
    public var failures: [String] = []
}

/// Copies the references of changed tests from one location to another (feature → develop),
/// copying only what differs, in parallel, recording the commit each object came from. Safe to
/// re-run after a failure or a kill: what was copied is identical the second time and is skipped.
public struct StoreSync: Sendable {
    public let source: StoreLocation
    public let destination: StoreLocation
    /// Requests in flight at once.
    public let parallelism: Int
    /// The objects of the source's store, already listed under a prefix holding the source's (a
    /// command that listed feature whole once): `plan` reads its source side from them instead
    /// of listing again. Nil: `plan` lists.
    public var listedSource: [ObjectInfo]?

    public init(from source: StoreLocation, to destination: StoreLocation, parallelism: Int = 16) {
        self.source = source
        self.destination = destination
        self.parallelism = max(1, parallelism)
    }

    /// The metadata key naming the commit an object was promoted from.
    public static let commitMetadata = "pipeline-commit"
    /// The metadata key naming where an object was rendered (`RenderEnvironment`); copies carry it.
    public static let renderedOnMetadata = "pipeline-rendered-on"

    /// Compares both sides of each test's folder. `tests` are folder names (`SnapshotTests`);
    /// nil compares everything under both prefixes.
    public func plan(tests: [String]?) async throws(StoreError) -> SyncWork {
        let listed = listedSource.map { Self.relative($0, to: source.prefix, in: nil) }
        guard let tests else {
            let sides = try await Self.concurrently([source, destination], limit: 2) {
                location async throws(StoreError) in
                if location.store.name == source.store.name, location.prefix == source.prefix, let listed {
                    return listed
                }
                return try await Self.objects(at: location, in: nil)
            }
            return Self.compare(wanted: sides[0], present: sides[1], tests: nil)
        }
        let folders = try Set(tests).sorted().map { (test) throws(StoreError) in try ObjectKey(test) }
        let chosen = Set(folders.map(\.rawValue))
        // Each side is listed once when a single request holds it all, else once per test folder.
        let sides = try await Self.concurrently([source, destination], limit: 2) {
            [parallelism] location async throws(StoreError) in
            if location.prefix == source.prefix, location.store.name == source.store.name, let listed {
                return listed.filter { chosen.contains($0.key.firstSegment) }
            }
            if folders.count > 1,
                let whole = try await location.store.listIfSmall(under: location.prefix, atMost: Self.smallListing)
            {
                return Self.relative(whole, to: location.prefix, in: nil).filter {
                    chosen.contains($0.key.firstSegment)
                }
            }
            let parts = try await Self.concurrently(folders, limit: max(1, parallelism / 2)) {
                folder async throws(StoreError) in
                try await Self.objects(at: location, in: folder)
            }
            return parts.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }
        return Self.compare(wanted: sides[0], present: sides[1], tests: folders.map(\.rawValue))
    }

    /// Objects a store lists whole (in two requests of a thousand at most) before a promotion lists
    /// per test instead; develop's and feature's bookkeeping (`.promotions/`, `.push-records/`) sort
    /// first and count too.
    static let smallListing = 2000

    private static func compare(wanted: [ObjectKey: String], present: [ObjectKey: String], tests: [String]?) -> SyncWork
    {
        var plan = SyncWork()
        for (key, etag) in wanted.sorted(by: { $0.key < $1.key }) {
            switch present[key] {
            case etag: plan.identical.append(key)
            case nil: plan.copies.append(key)
            default:
                plan.copies.append(key)
                plan.overwrites.append(key)
            }
            if present[key] != etag { plan.sourceETags[key] = etag }
        }
        plan.stale = present.keys.filter { wanted[$0] == nil }.sorted()
        let withReferences = Set(wanted.keys.map(\.firstSegment))
        plan.testsWithoutReferences = (tests ?? []).filter { !withReferences.contains($0) }
        return plan
    }

    /// Carries out a plan: copies, then (when `prune`) deletes the stale objects. Failures are
    /// collected, not fatal, so one bad object does not stop the rest; `progress` hears each one done.
    public func execute(
        _ plan: SyncWork, commit: String, prune: Bool, metadata: [String: String] = [:],
        progress: @Sendable (Int, Int) async -> Void = { _, _ in }
    ) async -> PromotionResult {
        enum Work: Sendable {
            case copy(ObjectKey)
            case delete(ObjectKey)
        }
        let work = plan.copies.map(Work.copy) + (prune ? plan.stale.map(Work.delete) : [])
        var result = PromotionResult()
        var done = 0
        await Self.bounded(work, limit: parallelism) { [source, destination] (item: Work) async throws(StoreError) in
            switch item {
            case .copy(let key):
                try await destination.store.copy(
                    key.under(source.prefix), from: source.store,
                    to: key.under(destination.prefix),
                    metadata: metadata.merging([StoreSync.commitMetadata: commit]) { $1 })
            case .delete(let key):
                try await destination.store.delete(key.under(destination.prefix))
            }
        } completed: { index, outcome in
            switch (work[index], outcome) {
            case (.copy(let key), .success): result.copied.append(key)
            case (.delete(let key), .success): result.deleted.append(key)
            case (_, .failure(let error)): result.failures.append(error.description)
            }
            done += 1
            await progress(done, work.count)
            return true
        }
        result.copied.sort()
        result.deleted.sort()
        return result
    }

    /// The objects below `<prefix>/<folder>/` (or the whole prefix), keyed relative to the prefix, with their ETags.
    private static func objects(at location: StoreLocation, in folder: ObjectKey?) async throws(StoreError)
        -> [ObjectKey:
        String]
    {
        let root = folder?.under(location.prefix) ?? location.prefix
        return relative(try await location.store.list(under: root), to: root, in: folder)
    }

    /// Listed objects keyed relative to the prefix they were listed under (`root`), then put back under `folder`.
    private static func relative(_ objects: [ObjectInfo], to root: ObjectKey?, in folder: ObjectKey?) -> [ObjectKey:
        String]
    {
        var result: [ObjectKey: String] = [:]
        for object in objects {
            guard let relative = root.map(object.key.relative) ?? object.key else { continue }
            let key = folder.map(relative.under) ?? relative
            if key.isReference { result[key] = object.md5 }
        }
        return result
    }

    /// `work` applied to each item, at most `limit` at a time, results in the items' order; the
    /// first failure stops the rest and is thrown.
    public static func concurrently<Item: Sendable, Output: Sendable>(
        _ items: [Item], limit: Int, _ work: @escaping @Sendable (Item) async throws(StoreError) -> Output
    ) async throws(StoreError) -> [Output] {
        var outputs = [Output?](repeating: nil, count: items.count)
        var failure: StoreError?
        await bounded(items, limit: limit, work) { index, outcome in
            switch outcome {
            case .success(let output):
                outputs[index] = output
                return true
            case .failure(let error):
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        return outputs.compactMap { $0 }
    }

    /// Runs `work` on each item, at most `limit` at a time. `completed` hears each outcome as it
    /// comes, with the item's index, and returns false to start nothing more.
    public static func bounded<Item: Sendable, Output: Sendable>(
        _ items: [Item], limit: Int, _ work: @escaping @Sendable (Item) async throws(StoreError) -> Output,
        completed: (Int, Result<Output, StoreError>) async -> Bool
    ) async {
        await withTaskGroup(of: (Int, Result<Output, StoreError>).self) { group in
            var next = 0
            func start() {
                guard next < items.count else { return }
                let index = next
                let item = items[next]
                next += 1
                group.addTask {
                    do throws(StoreError) { return (index, .success(try await work(item))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<max(1, limit) { start() }
            while let (index, outcome) = await group.next() {
                guard await completed(index, outcome) else {
                    group.cancelAll()
                    return
                }
                start()
            }
        }
    }
}
