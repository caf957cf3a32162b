import Foundation
import Testing

@testable import ObjectStorage

/// Promotion between two prefixes of one store, as in a bucket with feature/ and develop/: on the
/// folder store, and on the S3 store when the test server runs.
@Suite("Promotion: develop ends up holding exactly what feature holds, for the changed tests")
struct PromotionTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    private func locations(_ kind: StoreKind) async throws -> (feature: StoreLocation, develop: StoreLocation) {
        let store = try await kind.make(scratch)
        return (
            StoreLocation(store: store, prefix: try ObjectKey("feature")),
            StoreLocation(store: store, prefix: try ObjectKey("develop"))
        )
    }

    private func put(_ location: StoreLocation, _ key: String, _ text: String) async throws {
        try await location.store.upload(
            try scratch.file("f", text), to: try ObjectKey(key).under(location.prefix), metadata: [:])
    }

    private func keys(_ location: StoreLocation) async throws -> [String: String] {
        var result: [String: String] = [:]
        for object in try await location.store.list(under: location.prefix) {
            let relative = object.key.relative(to: location.prefix!)!
            let file = scratch.url.appendingPathComponent("read-\(UUID().uuidString)")
            try await location.store.download(object.key, to: file)
            result[relative.rawValue] = try String(contentsOf: file, encoding: .utf8)
        }
        return result
    }

    @Test(
        "copies what differs, skips what is identical, lists stale files and deletes them only when pruning",
        arguments: StoreKind.available)
    func promote(kind: StoreKind) async throws {
        let (feature, develop) = try await locations(kind)
        try await put(feature, "SnapshotTests/new.png", "new")
        try await put(feature, "SnapshotTests/same.png", "same")
        try await put(feature, "SnapshotTests/changed.png", "v2")
        try await put(feature, awkwardKeys[0], "日本")
        try await put(feature, "Untouched/a.png", "feature only, test not changed")
        try await put(develop, "SnapshotTests/same.png", "same")
        try await put(develop, "SnapshotTests/changed.png", "v1")
        try await put(develop, "SnapshotTests/gone.png", "removed on feature")
        try await put(develop, "Other/keep.png", "other test")

        let sync = StoreSync(from: feature, to: develop, parallelism: 3)
        let plan = try await sync.plan(tests: ["SnapshotTests", "NoReferences"])
        #expect(plan.overwrites.map(\.rawValue) == ["SnapshotTests/changed.png"])
        #expect(
            plan.copies.map(\.rawValue)
                == ["SnapshotTests/changed.png", "SnapshotTests/new.png", awkwardKeys[0]].sorted())
        #expect(plan.identical.map(\.rawValue) == ["SnapshotTests/same.png"])
        #expect(plan.stale.map(\.rawValue) == ["SnapshotTests/gone.png"])
        #expect(plan.testsWithoutReferences == ["NoReferences"])

        let result = await sync.execute(plan, commit: "0123abcd", prune: false)
        #expect(result.failures.isEmpty)
        #expect(result.copied == plan.copies)
        #expect(result.deleted.isEmpty)
        let after = try await keys(develop)
        #expect(after["SnapshotTests/changed.png"] == "v2")
        #expect(after[awkwardKeys[0]] == "日本")
        #expect(after["SnapshotTests/gone.png"] == "removed on feature", "nothing is deleted unless asked")
        #expect(after["Other/keep.png"] == "other test")
        #expect(after["Untouched/a.png"] == nil, "only the named tests are promoted")
        let metadata = try await develop.store.metadata(
            of: try ObjectKey("SnapshotTests/new.png").under(develop.prefix))
        #expect(metadata[StoreSync.commitMetadata] == "0123abcd")

        // Re-running finds nothing to copy; pruning then deletes the stale file only.
        let again = try await sync.plan(tests: ["SnapshotTests"])
        #expect(again.copies.isEmpty)
        #expect(again.identical.count == 4)
        let pruned = await sync.execute(again, commit: "0123abcd", prune: true)
        #expect(pruned.deleted.map(\.rawValue) == ["SnapshotTests/gone.png"])
        #expect(try await keys(develop)["SnapshotTests/gone.png"] == nil)
    }

    @Test(
        "a promotion stopped half-way finishes on the next run without copying anything twice",
        arguments: StoreKind.available)
    func resume(kind: StoreKind) async throws {
        let (feature, develop) = try await locations(kind)
        for index in 0..<20 { try await put(feature, "Big/image\(index).png", "content \(index)") }
        let sync = StoreSync(from: feature, to: develop, parallelism: 4)
        var plan = try await sync.plan(tests: ["Big"])
        #expect(plan.copies.count == 20)
        // The first run is cut short after 7 objects (as a kill would leave it).
        plan.copies = Array(plan.copies.prefix(7))
        let first = await sync.execute(plan, commit: "c1", prune: false)
        #expect(first.copied.count == 7)
        let second = try await sync.plan(tests: ["Big"])
        #expect(second.identical.count == 7)
        #expect(second.copies.count == 13)
        #expect(Set(second.copies).isDisjoint(with: first.copied))
        let finished = await sync.execute(second, commit: "c1", prune: false)
        #expect(finished.copied.count == 13)
        #expect(try await sync.plan(tests: ["Big"]).copies.isEmpty)
    }

    @Test("a failed copy is reported by name and the others still happen", arguments: StoreKind.available)
    func failures(kind: StoreKind) async throws {
        let (feature, develop) = try await locations(kind)
        try await put(feature, "T/a.png", "a")
        try await put(feature, "T/b.png", "b")
        let sync = StoreSync(from: feature, to: develop)
        let plan = try await sync.plan(tests: ["T"])
        // b disappears from feature between planning and copying.
        try await feature.store.delete(try ObjectKey("T/b.png").under(feature.prefix))
        let result = await sync.execute(plan, commit: "c", prune: false)
        #expect(result.copied.map(\.rawValue) == ["T/a.png"])
        #expect(result.failures.count == 1)
        #expect(result.failures.first?.contains("no object 'feature/T/b.png'") == true, "\(result.failures)")
    }
}
