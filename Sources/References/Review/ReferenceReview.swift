import Foundation
import ImageDiff
import ObjectStorage
import PipelineCore

/// Compares the references of two locations (feature against develop, or two folders) for review:
/// what is new, removed and changed, each changed image compared and overlaid.
public struct ReferenceReview: Sendable {
    public let comparer: ImageComparer
    public let parallelism: Int

    public init(tolerance: Int = 0, parallelism: Int = 8) {
        comparer = ImageComparer(tolerance: tolerance)
        self.parallelism = parallelism
    }

    /// The one review page of references: `new` against `reference` for `tests` (all when nil,
    /// none when empty), after `failures` (a run's failed snapshots), written to `output`. It is
    /// `refs report`'s page and a pipeline's review stage's.
    public func page(
        tests: [String]?, reference: StoreLocation, new: StoreLocation, failures: [ReviewEntry] = [], title: String,
        subtitle: String, output: URL
    ) async throws -> ReviewOutcome {
        let compared = tests == [] ? [] : try await entries(tests: tests, reference: reference, new: new)
        do {
            try ReviewPage.write(to: output, title: title, subtitle: subtitle, entries: failures + compared)
        } catch {
            throw RequestError("\(output.path): cannot write the page (\(error.localizedDescription))")
        }
        return ReviewOutcome(page: output, entries: compared)
    }

    /// The entries for `tests` (all when nil): `new` is what is proposed, `reference` what it replaces.
    public func entries(tests: [String]?, reference: StoreLocation, new: StoreLocation) async throws -> [ReviewEntry] {
        let plan = try await StoreSync(from: new, to: reference, parallelism: parallelism).plan(tests: tests)
        let overwrites = Set(plan.overwrites)
        let work =
            plan.copies.map { ($0, overwrites.contains($0) ? ReviewEntry.Status.changed : .new) }
            + plan.stale.map { ($0, ReviewEntry.Status.removed) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let comparer = self.comparer
        return try await StoreSync.concurrently(work, limit: parallelism) {
            (key, status) async throws(StoreError) -> ReviewEntry in
            let folder = scratch.appendingPathComponent(UUID().uuidString)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            func fetch(_ location: StoreLocation, _ name: String) async throws(StoreError) -> URL {
                let file = folder.appendingPathComponent(name)
                try await location.store.download(key.under(location.prefix), to: file)
                return file
            }
            let referenceFile = status == .new ? nil : try await fetch(reference, "reference-" + key.lastSegment)
            let newFile = status == .removed ? nil : try await fetch(new, "new-" + key.lastSegment)
            var entry = ReviewEntry.comparing(
                key: key.rawValue, status: status, reference: referenceFile, new: newFile, comparer: comparer)
            if status == .changed, let was = await RenderEnvironment.of(key, in: reference),
                let now = await RenderEnvironment.of(key, in: new), !was.rendersLike(now)
            {
                entry.rendering = "reference rendered on \(was); new on \(now)"
            }
            return entry
        }
    }

}
