import Foundation
import ReferenceStore
import TestSharding

/// Test durations kept in the team's store, so every CI machine plans with the same numbers and
/// none has to carry a file between runs. A run folds its durations in by a conditional write on
/// the version it read, retried when another node wrote meanwhile, so no node's update is lost.
public struct StoredTimings: Sendable {
    public let store: any SharedStore
    public let key: ObjectKey

    public init(store: any SharedStore, prefix: ObjectKey?) throws(StoreError) {
        self.store = store
        key = try ObjectKey((prefix.map { $0.rawValue + "/" } ?? "") + "pipeline-timings.json")
    }

    public func load() async throws -> Timings {
        try await read()?.timings ?? Timings()
    }

    /// Applies `update` to the stored timings and writes them back; retried on a concurrent write.
    public func fold(_ update: @Sendable (inout Timings) -> Void) async throws {
        for attempt in 1...20 {
            let current = try await read()
            var timings = current?.timings ?? Timings()
            update(&timings)
            do {
                try await store.put(try timings.encoded(), to: key, condition: current.map { .ifMatch(etag: $0.etag) } ?? .ifAbsent)
                return
            } catch StoreError.conditionalWritesUnsupported {
                // The store cannot check (OpenStack Swift's s3api): the last writer wins.
                try await store.put(try timings.encoded(), to: key, condition: .always)
                return
            } catch StoreError.preconditionFailed where attempt < 20 {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 10...(20 * attempt))))
            }
        }
    }

    private func read() async throws -> (timings: Timings, etag: String)? {
        guard let (data, etag) = try await store.get(key) else { return nil }
        return (try Timings.decode(data, origin: "\(store.name)/\(key.rawValue)"), etag)
    }
}
