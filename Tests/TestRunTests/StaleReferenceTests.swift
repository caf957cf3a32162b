import Foundation
import ImageDiff
import ObjectStorage
import PipelineSpec
import References
import TestSupport
import Testing

@testable import SnapshotReview

/// A failed snapshot whose reference develop holds in another version: outside CI, the note
/// names the pull that brings it.
@Suite struct StaleReferenceTests {
    @Test func developMovedSinceThePullOutsideCIOnly() throws {
        let package = try Scratch.folder("stale")
        defer { try? FileManager.default.removeItem(at: package) }
        try Scratch.write("// test\n", to: package.appendingPathComponent("Tests/AppTests/BadgeTests.swift"))
        let reference = package.appendingPathComponent("Tests/AppTests/__Snapshots__/BadgeTests/test_badge.1.png")
        try Scratch.write("old badge", to: reference)
        let local = LocalReferences.scan(package) { $0.hasSuffix("Tests") }
        let entry = ReviewEntry(key: "BadgeTests/test_badge.1.png", status: .failed)
        let here = try Digest.hex(ofFile: reference, .md5)
        func origin(_ md5: String, _ store: StoreRole = .develop) -> ReferenceOrigin {
            ReferenceOrigin(set: nil, own: nil, renderedOn: nil, store: store, md5: md5)
        }

        let locally = SnapshotCheck(package: package, local: local, variables: [:])
        #expect(
            locally.staleNote(entry, origin: origin("0123")) == "develop holds another version of this reference "
                + "(it moved since your last pull): 'pipeline refs pull BadgeTests' takes it, then run the test again")
        #expect(locally.staleNote(entry, origin: origin(here)) == nil, "the checkout holds develop's version")
        #expect(locally.staleNote(entry, origin: origin("0123", .feature)) == nil, "only develop's version counts")
        let onCI = SnapshotCheck(package: package, local: local, variables: ["CI": "true"])
        #expect(onCI.staleNote(entry, origin: origin("0123")) == nil, "CI pulled before testing")
    }
}
