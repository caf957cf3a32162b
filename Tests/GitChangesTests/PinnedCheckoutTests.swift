import Foundation
import GitChanges
import Testing

/// A dependency checked out as SwiftPM does it (a mirror clone, and a checkout that borrows its
/// objects) is its pinned revision's tree exactly, or says what differs; objects that are not what
/// their id names, and a folder that is no repository of its own, cannot be checked.
@Suite struct PinnedCheckoutTests {
    /// The dependency's repository (with a submodule-free tree of a few files), its mirror clone
    /// and checkout below a package's `.build`, itself inside the package's repository.
    struct Dependency {
        let origin: TestRepository
        let package: TestRepository
        let checkout: URL
        let mirror: URL
        let revision: String

        init() throws {
            origin = try TestRepository()
            try origin.write([
                "Package.swift": "// swift-tools-version:5.9", "Sources/Lib/Lib.swift": "public let x = 1",
                "Sources/Lib/Nested/Deep.swift": "let deep = 2",
            ])
            try origin.git("commit", "-q", "-m", "lib")
            revision = try origin.git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
            package = try TestRepository()
            mirror = package.root.appendingPathComponent(".build/repositories/lib-1234")
            checkout = package.root.appendingPathComponent(".build/checkouts/lib")
            try FileManager.default.createDirectory(
                at: mirror.deletingLastPathComponent(), withIntermediateDirectories: true)
            try package.git("clone", "-q", "--mirror", origin.path, mirror.path)
            try package.git("clone", "-q", "--shared", mirror.path, checkout.path)
        }

        func differences() throws -> [String] {
            try PinnedCheckout(folder: checkout, revision: revision).differences()
        }
    }

    @Test func aCheckoutOfThePinIsExactlyIt() throws {
        let dependency = try Dependency()
        #expect(try dependency.differences() == [])
    }

    @Test func whatDiffersIsSaid() throws {
        let dependency = try Dependency()
        let lib = dependency.checkout.appendingPathComponent("Sources/Lib/Lib.swift")
        try Data("public let x = 2".utf8).write(to: lib)
        try Data("evil".utf8).write(to: dependency.checkout.appendingPathComponent("Sources/Lib/Nested/Added.swift"))
        // Ignored files count: SwiftPM compiles whatever a target's folder holds.
        try Data("Sources/Lib/Hidden.swift\n".utf8).write(
            to: dependency.checkout.appendingPathComponent(".git/info/exclude"))
        try Data("evil".utf8).write(to: dependency.checkout.appendingPathComponent("Sources/Lib/Hidden.swift"))
        try FileManager.default.removeItem(
            at: dependency.checkout.appendingPathComponent("Sources/Lib/Nested/Deep.swift"))
        let short = dependency.revision.prefix(12)
        // The index agrees with the change: it is not what is read.
        _ = try TestRepository.run(["git", "add", "-A"], in: dependency.checkout)
        let found = try dependency.differences()
        #expect(
            Set(found) == [
                "Sources/Lib/Lib.swift differs from \(short)", "Sources/Lib/Nested/Added.swift is not in \(short)",
                "Sources/Lib/Hidden.swift is not in \(short)", "Sources/Lib/Nested/Deep.swift is missing",
            ], "\(found)")
        #expect(
            try PinnedCheckout(folder: dependency.checkout, revision: dependency.revision).differences(limit: 2).count
                == 2)
    }

    @Test func objectsThatAreNotTheirIdsCannotBeChecked() throws {
        let dependency = try Dependency()
        // The commit's object replaced by another object's bytes, under the commit's id.
        let objects = dependency.mirror.appendingPathComponent("objects")
        let name = String(dependency.revision.dropFirst(2))
        let commitFile = objects.appendingPathComponent(String(dependency.revision.prefix(2))).appendingPathComponent(
            name)
        #expect(FileManager.default.fileExists(atPath: commitFile.path), "the origin's objects are loose")
        let blob = try TestRepository.run(
            ["git", "--git-dir", dependency.mirror.path, "hash-object", "-w", "--stdin"], in: dependency.mirror
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let blobFile = objects.appendingPathComponent(String(blob.prefix(2))).appendingPathComponent(
            String(blob.dropFirst(2)))
        try FileManager.default.removeItem(at: commitFile)
        try FileManager.default.copyItem(at: blobFile, to: commitFile)
        #expect(throws: GitError.self) { try dependency.differences() }
        // A folder without its own repository is not checked against the package's around it.
        try FileManager.default.removeItem(at: dependency.checkout.appendingPathComponent(".git"))
        #expect(throws: GitError.notARepository(path: dependency.checkout.resolvingSymlinksInPath().path)) {
            try dependency.differences()
        }
    }
}
