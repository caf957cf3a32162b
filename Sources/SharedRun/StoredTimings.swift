import Foundation
import ObjectStorage
import TestCore

/// Test durations kept in the team's store, so every CI machine plans with the same numbers and
/// none has to carry a file between runs. A run folds its durations in by a conditional write on
/// the version it read, retried when another node wrote meanwhile, so no node's update is lost.
public struct StoredTimings: Sendable {
    public let store: any SharedStore
    public let key: ObjectKey

    public init(store: any SharedStore, key: ObjectKey) {
        self.store = store
        self.key = key
    }

    /// The stored timings; none yet is an empty record.
    public func load() async throws -> Timings {
        try await read()?.timings ?? Timings()
    }

    /// How a fold was written.
    public enum Fold: Sendable, Equatable {
        /// On the version read, so no concurrent update was lost.
        case checked
        /// Over whatever was there: the store cannot check (OpenStack Swift's s3api).
        case lastWriterWins
    }

    /// Applies `update` to the stored timings and writes them back; retried on a concurrent write.
    @discardableResult
    public func fold(_ update: @Sendable (inout Timings) -> Void) async throws -> Fold {
        for attempt in 1...20 {
            let current = try await read()
            var timings = current?.timings ?? Timings()
            update(&timings)
            do {
                try await store.put(
                    try timings.encoded(), to: key, condition: current.map { .ifMatch(etag: $0.etag) } ?? .ifAbsent)
                return .checked
            } catch StoreError.conditionalWritesUnsupported {
                try await store.put(try timings.encoded(), to: key, condition: .always)
                return .lastWriterWins
            } catch StoreError.preconditionFailed where attempt < 20 {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 10...(20 * attempt))))
            }
        }
        throw StoreError.preconditionFailed(store: store.name, key: key.rawValue)
    }

    private func read() async throws -> (timings: Timings, etag: String)? {
        guard let (data, etag) = try await store.get(key) else { return nil }
        return (try Timings.decode(data, origin: StoreLocation(store: store).describe(key)), etag)
    }
}
