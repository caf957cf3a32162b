import Foundation
import Testing

@testable import ImageDiff

@Suite("line diff of text references, and review entries for any file")
struct TextDiffTests {
    @Test("a changed line shows as removed then added, with the unchanged lines kept")
    func changedLine() {
        let diff = TextDiff(reference: "a\nb\nc", new: "a\nB\nc")
        #expect(diff.lines.map(\.kind) == [.same, .removed, .added, .same])
        #expect(diff.lines.map(\.text) == ["a", "b", "B", "c"])
        #expect(!diff.isEmpty)
        #expect(TextDiff(reference: "same", new: "same").isEmpty)
    }

    @Test("hunks keep three lines of context and leave the rest out")
    func hunks() {
        let old = (1...20).map(String.init).joined(separator: "\n")
        let new = old.replacingOccurrences(of: "\n10\n", with: "\nten\n")
        let hunks = TextDiff(reference: old, new: new).hunks()
        #expect(hunks.count == 1)
        #expect(hunks[0].map(\.text) == ["7", "8", "9", "10", "ten", "11", "12", "13"])
        let two = TextDiff(reference: old, new: new.replacingOccurrences(of: "\n2\n", with: "\ntwo\n")).hunks()
        #expect(two.count == 2)
    }

    @Test("every line of two random texts is kept: the same lines rebuild both sides", arguments: 0..<20)
    func property(seed: Int) {
        var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let old = (0..<next(30)).map { _ in ["a", "b", "c", "d"][next(4)] }
        let new = (0..<next(30)).map { _ in ["a", "b", "c", "e"][next(4)] }
        let diff = TextDiff(reference: old.joined(separator: "\n"), new: new.joined(separator: "\n"))
        #expect(diff.lines.filter { $0.kind != .added }.map(\.text) == (old.isEmpty ? [""] : old))
        #expect(diff.lines.filter { $0.kind != .removed }.map(\.text) == (new.isEmpty ? [""] : new))
    }

    @Test("review entries: text gets a line diff, a corrupt PNG a note naming the file, never an error")
    func entries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = folder.appendingPathComponent("old.txt")
        let new = folder.appendingPathComponent("new.txt")
        try Data("x\ny".utf8).write(to: old)
        try Data("x\nz".utf8).write(to: new)
        let text = ReviewEntry.comparing(
            key: "T/t.1.txt", status: .failed, reference: old, new: new, comparer: ImageComparer())
        #expect(text.textDiff?.lines.map(\.kind) == [.same, .removed, .added])
        #expect(text.note == nil)

        let good = folder.appendingPathComponent("good.png")
        let corrupt = folder.appendingPathComponent("corrupt.png")
        try PNG.write(RGBAImage(width: 4, height: 4, fill: (10, 20, 30, 255)), to: good)
        try Data(try Data(contentsOf: good).prefix(30)).write(to: corrupt)
        let broken = ReviewEntry.comparing(
            key: "T/t.1.png", status: .failed, reference: good, new: corrupt, comparer: ImageComparer())
        #expect(broken.note?.contains("corrupt.png") == true, "\(broken.note ?? "")")
        #expect(broken.comparison == nil)
        let binary = folder.appendingPathComponent("binary.dat")
        try Data([0, 1, 2, 0xFF]).write(to: binary)
        let unknown = ReviewEntry.comparing(
            key: "T/t.1.dat", status: .failed, reference: nil, new: binary, comparer: ImageComparer())
        #expect(unknown.note?.contains("neither a PNG image nor UTF-8 text") == true)
    }
}
