import Foundation
import ObjectStorage
import PipelineSpec

/// `pipeline refs check-access`: what this job's credentials can do with the spec's stores, tried
/// before the job relies on it (a pull request's run learns at its first step, not after its
/// tests, that its key cannot write feature). Each store is listed; in each store the job must
/// write, a probe object is written, read back and deleted, twice: below the store's prefix
/// (`.pipeline-access/<uuid>`), and where this job's records go (`pipeline-runs/access-<uuid>` of
/// `.pipeline/<scope>/<store>/`: a key that may write references but not its own records fails
/// here too); each gone again unless the delete is refused, which is said.
public enum AccessCheck {
    public struct Result: Sendable, Encodable, Equatable {
        public var role: String
        public var store: String
        /// How many objects the listing found; nil when it failed.
        public var objects: Int?
        /// Whether the probe was written, read back and deleted; nil when not asked.
        public var writes: Bool?
        /// What failed, in the store's words.
        public var problem: String?

        public var passed: Bool { objects != nil && writes != false && problem == nil }

        public var line: String {
            let read = objects.map { "reads (\($0) object\($0 == 1 ? "" : "s"))" } ?? "cannot read"
            let write = writes.map { $0 ? ", writes" : ", cannot write" } ?? ""
            return "\(role) \(store): \(read)\(write)" + (problem.map { ": \($0)" } ?? "")
        }
    }

    /// Checks feature and develop (those the spec names), writing where `writing` says.
    public static func run(_ stores: ReferenceStores, writing: Set<StoreRole>) async -> [Result] {
        var results: [Result] = []
        for role in [StoreRole.feature, .develop] where stores.settings.address(of: role) != nil {
            var result = Result(role: role.rawValue, store: stores.settings.address(of: role)?.description ?? "")
            do {
                let folder = try stores.sharedFolder(role, creating: writing.contains(role))
                result.objects = try await folder.store.list(under: folder.prefix).count
                if writing.contains(role) {
                    result.writes = false
                    let id = UUID().uuidString.lowercased()
                    for path in [".pipeline-access/\(id)", "\(ObjectKey.runsFolder)/access-\(id)"] {
                        try await probe(folder, try ObjectKey(path).under(folder.prefix))
                    }
                    result.writes = true
                }
            } catch {
                result.problem = "\(error)"
            }
            results.append(result)
        }
        return results
    }

    /// Writes a small object at `key`, reads it back whole, and deletes it.
    private static func probe(_ folder: StoreLocation, _ key: ObjectKey) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-access-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let content = Data("pipeline refs check-access\n".utf8)
        try content.write(to: scratch)
        try await folder.store.upload(scratch, to: key, metadata: [:])
        try await folder.store.download(key, to: scratch)
        guard FileManager.default.contents(atPath: scratch.path) == content else {
            throw StoreError.io(path: folder.describe(key), reason: "read back other content than was written")
        }
        try await folder.store.delete(key)
    }
}
