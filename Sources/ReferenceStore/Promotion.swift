/// A store and the prefix references live under in it: `feature/` or `develop/` of a bucket, or a folder.
public struct StoreLocation: Sendable {
    public let store: any ObjectStore
    public let prefix: ObjectKey?

    public init(store: any ObjectStore, prefix: ObjectKey? = nil) {
        self.store = store
        self.prefix = prefix
    }

    public var name: String { store.name + (prefix.map { " (\($0))" } ?? "") }
}

/// What promoting some tests' references would do: for each test, make the destination hold
/// exactly what the source holds. Keys are relative to the locations' prefixes (`Test/image.png`).
public struct PromotionPlan: Equatable, Sendable {
    /// Objects missing at the destination, or different there.
    public var copies: [ObjectKey] = []
    /// Objects already identical (same MD5): nothing to do.
    public var identical: [ObjectKey] = []
    /// Objects the destination has and the source no longer does: deleted only when pruning.
    public var stale: [ObjectKey] = []
    /// Tests with no reference at the source at all.
    public var testsWithoutReferences: [String] = []
}

public struct PromotionResult: Equatable, Sendable {
    public var copied: [ObjectKey] = []
    public var deleted: [ObjectKey] = []
    public var failures: [String] = []
}

/// Copies the references of changed tests from one location to another (feature → develop),
/// copying only what differs, in parallel, recording the commit each object came from. Safe to
/// re-run after a failure or a kill: what was copied is identical the second time and is skipped.
public struct Promoter: Sendable {
    public let source: StoreLocation
    public let destination: StoreLocation
    /// Requests in flight at once.
    public let parallelism: Int

    public init(from source: StoreLocation, to destination: StoreLocation, parallelism: Int = 16) {
        self.source = source
        self.destination = destination
        self.parallelism = max(1, parallelism)
    }

    /// The metadata key naming the commit an object was promoted from.
    public static let commitMetadata = "pipeline-commit"

    /// Compares both sides of each test's folder. `tests` are folder names (`SnapshotTests`).
    public func plan(tests: [String]) async throws(StoreError) -> PromotionPlan {
        var plan = PromotionPlan()
        for test in Set(tests).sorted() {
            let folder = try ObjectKey(test)
            let wanted = try await objects(at: source, in: folder)
            let present = try await objects(at: destination, in: folder)
            if wanted.isEmpty { plan.testsWithoutReferences.append(test) }
            for (key, etag) in wanted.sorted(by: { $0.key < $1.key }) {
                if present[key] == etag { plan.identical.append(key) } else { plan.copies.append(key) }
            }
            plan.stale += present.keys.filter { wanted[$0] == nil }.sorted()
        }
        return plan
    }

    /// Carries out a plan: copies, then (when `prune`) deletes the stale objects. Failures are
    /// collected, not fatal, so one bad object does not stop the rest; `progress` hears each one done.
    public func execute(_ plan: PromotionPlan, commit: String, prune: Bool,
                        progress: @Sendable (Int, Int) async -> Void = { _, _ in }) async -> PromotionResult {
        enum Work: Sendable { case copy(ObjectKey), delete(ObjectKey) }
        let work = plan.copies.map(Work.copy) + (prune ? plan.stale.map(Work.delete) : [])
        var result = PromotionResult()
        await withTaskGroup(of: (Work, StoreError?).self) { group in
            var next = 0
            func start() {
                guard next < work.count else { return }
                let item = work[next]
                next += 1
                group.addTask { [source, destination] in
                    do throws(StoreError) {
                        switch item {
                        case .copy(let key):
                            try await destination.store.copy(key.under(source.prefix), from: source.store,
                                                             to: key.under(destination.prefix),
                                                             metadata: [Promoter.commitMetadata: commit])
                        case .delete(let key):
                            try await destination.store.delete(key.under(destination.prefix))
                        }
                        return (item, nil)
                    } catch {
                        return (item, error)
                    }
                }
            }
            for _ in 0..<parallelism { start() }
            var done = 0
            while let (item, error) = await group.next() {
                done += 1
                switch (item, error) {
                case (.copy(let key), nil): result.copied.append(key)
                case (.delete(let key), nil): result.deleted.append(key)
                case (_, let error?): result.failures.append(error.description)
                }
                await progress(done, work.count)
                start()
            }
        }
        result.copied.sort()
        result.deleted.sort()
        return result
    }

    /// The objects below `<prefix>/<folder>/`, keyed relative to the prefix, with their ETags.
    private func objects(at location: StoreLocation, in folder: ObjectKey) async throws(StoreError) -> [ObjectKey: String] {
        let root = folder.under(location.prefix)
        var result: [ObjectKey: String] = [:]
        for object in try await location.store.list(under: root) {
            guard let relative = object.key.relative(to: root) else { continue }
            result[relative.under(folder)] = object.etag
        }
        return result
    }
}
