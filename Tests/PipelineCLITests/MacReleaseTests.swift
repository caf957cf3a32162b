import Foundation
import TestSupport
import Testing

/// What a macOS release may load, checked without a Mac: `scripts/lib/macho-deps.py` reads a
/// Mach-O file's load commands as `otool -L` prints them, and `release.sh` refuses a binary or
/// bundled library that loads anything outside the system's libraries and its own `lib/pipeline`.
/// The Mach-O files here are made byte for byte as the linker lays them out (`mach_header_64`,
/// `dylib_command`, `fat_header`/`fat_arch`); `install.sh` puts a release's `lib/pipeline` beside
/// its `bin`.
@Suite("a macOS release loads only the system's libraries and its own: the load commands, read without a Mac")
struct MacReleaseTests {
    static let script = Shell.repository.appendingPathComponent("scripts/lib/macho-deps.py").path

    static func le32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    static func be32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }

    /// A 64-bit executable for `cpu` loading `dylibs` (LC_LOAD_DYLIB; `weak` ones LC_LOAD_WEAK_DYLIB),
    /// with an LC_RPATH the reader passes over.
    static func machO(_ dylibs: [String], weak: [String] = [], cpu: UInt32 = 0x0100_000C) -> Data {
        var commands = Data()
        var count: UInt32 = 0
        for (name, kind) in dylibs.map({ ($0, UInt32(0xC)) }) + weak.map({ ($0, UInt32(0x8000_0018)) }) {
            var bytes = Data(name.utf8) + Data([0])
            while (24 + bytes.count) % 8 != 0 { bytes.append(0) }
            commands +=
                le32(kind) + le32(UInt32(24 + bytes.count)) + le32(24) + le32(2) + le32(0x10000)
                + le32(0x10000) + bytes
            count += 1
        }
        var path = Data("@executable_path/../lib".utf8) + Data([0])
        while (12 + path.count) % 8 != 0 { path.append(0) }
        commands += le32(0x8000_001C) + le32(UInt32(12 + path.count)) + le32(12) + path
        count += 1
        let header =
            le32(0xFEED_FACF) + le32(cpu) + le32(0) + le32(2) + le32(count) + le32(UInt32(commands.count)) + le32(0)
            + le32(0)
        return header + commands
    }

    /// A universal file of `images` (fat_header, one fat_arch each, images at 4 KB boundaries).
    static func fat(_ images: [(cpu: UInt32, data: Data)]) -> Data {
        var data = be32(0xCAFE_BABE) + be32(UInt32(images.count))
        var offset = 4096
        var bodies = Data()
        for image in images {
            data += be32(image.cpu) + be32(0) + be32(UInt32(offset)) + be32(UInt32(image.data.count)) + be32(12)
            bodies += image.data + Data(count: 4096 - image.data.count % 4096)
            offset += image.data.count + (4096 - image.data.count % 4096)
        }
        return data + Data(count: 4096 - data.count) + bodies
    }

    static func run(_ arguments: [String]) throws -> Shell.Result {
        try Shell.run("python3", [script] + arguments)
    }

    @Test("the load commands are read as otool -L prints them: thin and universal files, weak links, each once")
    func reads() throws {
        let folder = try Scratch.folder("macho")
        defer { try? FileManager.default.removeItem(at: folder) }
        let thin = folder.appendingPathComponent("pipeline")
        try Self.machO(
            ["/usr/lib/libSystem.B.dylib", "/opt/homebrew/opt/libgit2/lib/libgit2.1.9.dylib"],
            weak: ["/usr/lib/swift/libswiftCore.dylib"]
        ).write(to: thin)
        let listed = try Self.run([thin.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.stdout.split(separator: "\n") == [
                "/usr/lib/libSystem.B.dylib", "/opt/homebrew/opt/libgit2/lib/libgit2.1.9.dylib",
                "/usr/lib/swift/libswiftCore.dylib",
            ], "\(listed.stdout)")

        let universal = folder.appendingPathComponent("universal")
        try Self.fat([
            (0x0100_000C, Self.machO(["/usr/lib/libSystem.B.dylib", "/usr/lib/libz.1.dylib"])),
            (0x0100_0007, Self.machO(["/usr/lib/libSystem.B.dylib"], cpu: 0x0100_0007)),
        ]).write(to: universal)
        let both = try Self.run([universal.path])
        #expect(both.stdout == "/usr/lib/libSystem.B.dylib\n/usr/lib/libz.1.dylib\n", "\(both.stdout) \(both.stderr)")

        let cut = folder.appendingPathComponent("cut")
        try Self.machO(["/usr/lib/libSystem.B.dylib"]).prefix(40).write(to: cut)
        let short = try Self.run([cut.path])
        #expect(short.status == 1 && short.stderr.contains("does not fit"), "\(short.stderr)")
        let elf = try Self.run([PipelineBinary.url.path])
        #expect(elf.status == 1 && elf.stderr.contains("not a 64-bit Mach-O image"), "\(elf.stderr)")
    }

    @Test("release.sh's check: a Homebrew path is refused; the system's and the bundled lib/pipeline pass")
    func check() throws {
        let folder = try Scratch.folder("macho-check")
        defer { try? FileManager.default.removeItem(at: folder) }
        let libs = folder.appendingPathComponent("lib/pipeline")
        try FileManager.default.createDirectory(at: libs, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("bin-pipeline")
        let libgit2 = libs.appendingPathComponent("libgit2.1.9.dylib")

        // As the linker leaves it: libgit2 from Homebrew.
        try Self.machO(["/usr/lib/libSystem.B.dylib", "/opt/homebrew/opt/libgit2/lib/libgit2.1.9.dylib"])
            .write(to: binary)
        let built = try Self.run(["--check", libs.path, binary.path])
        #expect(built.status == 1)
        #expect(
            built.stderr.contains("/opt/homebrew/opt/libgit2/lib/libgit2.1.9.dylib: outside the system's libraries"),
            "\(built.stderr)")

        // As release.sh leaves it: the binary reaches lib/pipeline, the library its own dependency beside it.
        try Self.machO(["/usr/lib/libSystem.B.dylib", "@executable_path/../lib/pipeline/libgit2.1.9.dylib"])
            .write(to: binary)
        try Self.machO(["/usr/lib/libSystem.B.dylib", "@loader_path/libssh2.1.dylib"]).write(to: libgit2)
        let missing = try Self.run(["--check", libs.path, binary.path, libgit2.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("@loader_path/libssh2.1.dylib: not a library bundled in"), "\(missing.stderr)")
        try Self.machO(["/usr/lib/libSystem.B.dylib", "/usr/lib/libz.1.dylib"])
            .write(to: libs.appendingPathComponent("libssh2.1.dylib"))
        let bundled = try Self.run(
            ["--check", libs.path, binary.path, libgit2.path, libs.appendingPathComponent("libssh2.1.dylib").path])
        #expect(bundled.status == 0, "\(bundled.stderr)")
    }

    @Test("install.sh puts a release's lib/pipeline beside its bin, replacing an older one whole")
    func installsLibraries() throws {
        let folder = try Scratch.folder("macho-install")
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "pipeline-9.9.9-test"
        let root = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("lib/pipeline"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: PipelineBinary.url, to: root.appendingPathComponent("bin/pipeline"))
        try Self.machO(["/usr/lib/libSystem.B.dylib"]).write(
            to: root.appendingPathComponent("lib/pipeline/libgit2.1.9.dylib"))
        let tarball = folder.appendingPathComponent("\(name).tar.gz").path
        #expect(try Shell.run("tar", ["-C", folder.path, "-czf", tarball, name]).status == 0)
        let sum = try Shell.run("sha256sum", [tarball]).stdout.split(separator: " ").first.map(String.init) ?? ""
        let prefix = folder.appendingPathComponent("prefix")
        try Scratch.write("old", to: prefix.appendingPathComponent("lib/pipeline/libold.dylib"))
        let installed = try Shell.run(
            "bash", ["scripts/install.sh", tarball, "--sha256", sum, "--prefix", prefix.path])
        #expect(installed.status == 0, "\(installed.stderr)")
        let libraries = try FileManager.default.contentsOfDirectory(
            atPath: prefix.appendingPathComponent("lib/pipeline").path)
        #expect(libraries == ["libgit2.1.9.dylib"], "the release's libraries, the older set gone")
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/pipeline").path))
    }
}
