import Foundation
import Testing

@testable import GitChanges

@Suite("Text merged and compared as git does (libgit2's xdiff)")
struct TextMergeTests {
    /// A file of `count` numbered lines, `changed` of them edited (every seventh from `offset`).
    private static func text(_ count: Int, changed: Bool = false, offset: Int = 0) -> String {
        (0..<count).map { line in
            changed && line % 7 == offset ? "line \(line): edited by the branch\n" : "line \(line): as it was\n"
        }.joined()
    }

    /// The patch is printed from the two texts after `git_patch_from_buffers` returned: libgit2 keeps
    /// pointers into them. Texts made and dropped around each call, many times over, so memory freed
    /// too early is reused (and AddressSanitizer, in scripts/test.sh's lane, reports the read).
    @Test("a diff holds exactly the two texts' lines, every time, whatever was freed between calls")
    func diffIsTheTexts() throws {
        for round in 0..<50 {
            let old = Self.text(200 + round)
            let new = Self.text(200 + round, changed: true)
            let patch = try TextMerge.diff(from: old, to: new, path: "bitrise.yml")
            // Other allocations of the same sizes between the call and the checks.
            let noise = (0..<8).map { _ in [UInt8](repeating: 0, count: old.utf8.count) }
            #expect(!patch.utf8.contains(0), "no NUL byte in round \(round)")
            #expect(patch.hasPrefix("diff --git a/bitrise.yml b/bitrise.yml\n"), "\(patch.prefix(200))")
            let removed = patch.split(separator: "\n").filter { $0.hasPrefix("-line ") }
            let added = patch.split(separator: "\n").filter { $0.hasPrefix("+line ") }
            let edited = (0..<(200 + round)).filter { $0 % 7 == 0 }
            #expect(removed == edited.map { "-line \($0): as it was"[...] }, "round \(round)")
            #expect(added == edited.map { "+line \($0): edited by the branch"[...] }, "round \(round)")
            #expect(noise.count == 8)
        }
    }

    @Test("the diff git apply takes: applied to the old text it gives the new one")
    func diffApplies() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("textmerge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (old, new) = (Self.text(120), Self.text(120, changed: true, offset: 3) + "a line added at the end ✓\n")
        try Data(old.utf8).write(to: folder.appendingPathComponent("bitrise.yml"))
        try Data(try TextMerge.diff(from: old, to: new, path: "bitrise.yml").utf8).write(
            to: folder.appendingPathComponent("join.patch"))
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "apply", "--unsafe-paths", "--directory=.", "join.patch"]
        git.currentDirectoryURL = folder
        try git.run()
        git.waitUntilExit()
        #expect(git.terminationStatus == 0)
        #expect(try String(contentsOf: folder.appendingPathComponent("bitrise.yml"), encoding: .utf8) == new)
        #expect(try TextMerge.diff(from: old, to: old, path: "bitrise.yml") == "", "equal texts: no diff")
    }

    @Test("three versions merged: clean when the edits are apart, each conflict's marker line named")
    func merge() throws {
        let base = Self.text(40)
        let ours = Self.text(40, changed: true, offset: 1)
        let theirs = Self.text(40, changed: true, offset: 4)
        let clean = try TextMerge.merge(base: base, ours: ours, theirs: theirs, labels: ("ours", "theirs"))
        #expect(clean.conflicts == [])
        #expect(clean.text.contains("line 1: edited") && clean.text.contains("line 4: edited"))
        let clash = try TextMerge.merge(
            base: base, ours: base.replacingOccurrences(of: "line 9: as it was", with: "line 9: ours"),
            theirs: base.replacingOccurrences(of: "line 9: as it was", with: "line 9: theirs"),
            labels: ("yours", "pipeline's"))
        #expect(clash.conflicts == [10], "\(clash.text)")
        #expect(clash.text.contains("<<<<<<< yours\nline 9: ours\n=======\nline 9: theirs\n>>>>>>> pipeline's\n"))
    }
}
