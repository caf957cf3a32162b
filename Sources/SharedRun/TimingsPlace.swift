import Foundation
import ObjectStorage
import TestCore

/// Where the nodes of a CI matrix meet: the store (and prefix) holding the timings, with the work
/// queues of shared runs under `pipeline-runs/` beside them.
public struct TimingsPlace: Sendable, CustomStringConvertible {
    public let store: any SharedStore
    /// The folder the queues go under: `<prefix>/pipeline-runs/<run>/`.
    public let prefix: ObjectKey?
    public let timingsKey: ObjectKey
    /// Where the durations a plan reads and the impact map are kept when this folder only writes:
    /// a pull request's job plans from develop's and writes its run (queue, timings, reports) to
    /// feature. Nil: this folder's own.
    public private(set) var baseline: (store: any SharedStore, prefix: ObjectKey?)?

    /// A store's prefix: the timings are `<prefix>/pipeline-timings.json`.
    public init(store: any SharedStore, prefix: ObjectKey?) throws(StoreError) {
        self.store = store
        self.prefix = prefix
        timingsKey = try ObjectKey((prefix.map { $0.rawValue + "/" } ?? "") + "pipeline-timings.json")
    }

    /// A store location opened for reading and writing (every store pipeline opens can share).
    public init(_ location: StoreLocation) throws(StoreError) {
        guard let store = location.store as? any SharedStore else {
            throw .transport(endpoint: location.store.name, reason: "this kind of store cannot keep shared timings")
        }
        try self.init(store: store, prefix: location.prefix)
    }

    /// A timings file on this machine (or a shared disk), updated under a lock; queues go beside it.
    public init(file: URL) throws(StoreError) {
        store = FolderStore(root: file.deletingLastPathComponent())
        prefix = nil
        timingsKey = try ObjectKey(file.lastPathComponent)
    }

    public var timings: StoredTimings { StoredTimings(store: store, key: timingsKey) }

    /// This folder for a run's writes, planning from `baseline`'s timings and impact map.
    public func planning(from baseline: TimingsPlace) -> TimingsPlace {
        var folder = self
        folder.baseline = (baseline.store, baseline.prefix)
        return folder
    }

    /// The timings a plan reads: the baseline's, else this folder's own.
    public var plannedTimings: StoredTimings {
        guard let baseline, let folder = try? TimingsPlace(store: baseline.store, prefix: baseline.prefix) else {
            return timings
        }
        return folder.timings
    }

    public func queue(run: String, node: Node) throws(StoreError) -> WorkQueue {
        try WorkQueue(store: store, prefix: prefix, run: run, node: node)
    }

    /// A CI run's folder: `<prefix>/pipeline-runs/<run>`.
    static func runFolder(prefix: ObjectKey?, run: String) throws(StoreError) -> ObjectKey {
        guard !run.isEmpty, run.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw .unsafeKey(run, reason: "a run id is letters, digits, '-', '_' and '.'")
        }
        return try ObjectKey((prefix.map { $0.rawValue + "/" } ?? "") + "\(ObjectKey.runsFolder)/\(run)")
    }

    /// Where a node's last report in a CI run is kept, for `--failed` when the job is re-run on
    /// another machine: `<prefix>/pipeline-runs/<run>/last-run/node-<i>-of-<n>.json`.
    public func lastRunKey(run: String, node: Node) throws(StoreError) -> ObjectKey {
        try ObjectKey(
            Self.runFolder(prefix: prefix, run: run).rawValue + "/last-run/\(node.label).json")
    }

    /// Keeps a copy of a node's report in the CI run's folder (the latest attempt wins).
    public func saveLastRun(_ report: TestReport, run: String, node: Node) async throws {
        _ = try await store.put(try report.encoded(), to: lastRunKey(run: run, node: node), condition: .always)
    }

    /// The node's last report in the CI run, or nil when it left none there.
    public func lastRun(run: String, node: Node) async throws -> TestReport? {
        let key = try lastRunKey(run: run, node: node)
        guard let (data, _) = try await store.get(key) else { return nil }
        return try TestReport.decode(data, origin: StoreLocation(store: store).describe(key))
    }

    /// Where a node's merged coverage profile in a shared run is kept, for `pipeline report
    /// --coverage`: `<prefix>/pipeline-runs/<run>/coverage/node-<i>-of-<n>.profdata`.
    public func coverageKey(run: String, node: Node) throws(StoreError) -> ObjectKey {
        try ObjectKey(
            Self.runFolder(prefix: prefix, run: run).rawValue + "/coverage/\(node.label).profdata"
        )
    }

    /// Keeps a node's merged coverage profile in the run's folder (a re-run's replaces it).
    public func saveCoverage(_ profile: URL, run: String, node: Node) async throws {
        try await store.upload(profile, to: coverageKey(run: run, node: node), metadata: [:])
    }

    /// The coverage profiles the run's nodes kept, downloaded into `folder`, and the nodes that kept
    /// none: of `expected` when given (the nodes that ran a queue's batches), else of the node count
    /// the profiles' names give.
    public func coverageProfiles(run: String, expected: Set<String>?, into folder: URL) async throws -> (
        files: [URL], missing: [String]
    ) {
        let root = try ObjectKey(Self.runFolder(prefix: prefix, run: run).rawValue + "/coverage")
        var found: [Node: ObjectKey] = [:]
        for object in try await store.list(under: root) {
            let name = object.key.rawValue.split(separator: "/").last.map(String.init) ?? ""
            let parts = name.dropFirst("node-".count).dropLast(".profdata".count).split(separator: "-")
            guard name.hasPrefix("node-"), name.hasSuffix(".profdata"), parts.count == 3, parts[1] == "of",
                let index = Int(parts[0]), let count = Int(parts[2]), (1...count).contains(index)
            else { continue }
            found[Node(index: index, count: count)] = object.key
        }
        let count = found.keys.map(\.count).max() ?? 0
        let wanted =
            expected ?? Set(count == 0 ? [] : (1...count).map { Node(index: $0, count: count).description })
        var files: [URL] = []
        for (node, key) in found.sorted(by: { $0.key.index < $1.key.index }) where wanted.contains(node.description) {
            let file = folder.appendingPathComponent("\(node.label).profdata")
            try await store.download(key, to: file)
            files.append(file)
        }
        let present = Set(found.keys.map(\.description))
        return (files, wanted.subtracting(present).sorted())
    }

    /// The impact map kept beside the timings (`pipeline-impact.json`).
    public var impactKey: ObjectKey {
        get throws(StoreError) {
            let folder = timingsKey.rawValue.split(separator: "/").dropLast().joined(separator: "/")
            return try ObjectKey((folder.isEmpty ? "" : folder + "/") + Self.impactFile)
        }
    }

    /// The impact map's file beside the timings.
    public static let impactFile = "pipeline-impact.json"

    /// Keeps an impact map's bytes beside the timings (the last recording wins).
    public func saveImpact(_ data: Data) async throws {
        _ = try await store.put(data, to: impactKey, condition: .always)
    }

    /// The impact map's bytes kept beside the timings, with where they were read; nil when none
    /// was recorded there. Reading them is TestImpact's.
    public func impact() async throws -> (data: Data, name: String)? {
        if let baseline { return try await TimingsPlace(store: baseline.store, prefix: baseline.prefix).impact() }
        let key = try impactKey
        guard let (data, _) = try await store.get(key) else { return nil }
        return (data, StoreLocation(store: store).describe(key))
    }

    /// Where the timings are, for messages and the dry run.
    public var description: String {
        guard let baseline, let folder = try? TimingsPlace(store: baseline.store, prefix: baseline.prefix) else {
            return StoreLocation(store: store).describe(timingsKey)
        }
        return StoreLocation(store: store).describe(timingsKey) + " (planned from \(folder))"
    }
}
