import Foundation
import TestSupport
import Testing

@testable import BuildCache

/// Packing a build folder while the tests write into it: folders that gain entries (pipeline's
/// outputs, a test's scratch files) do not fail the save; a file whose content changes does, naming
/// it. The writes happen at tar's own checkpoints (`TAR_OPTIONS`, GNU tar's
/// `--checkpoint-action=exec`), so they fall while tar reads, however loaded the machine is. macOS's
/// bsdtar neither has checkpoints nor fails on a change, so there is nothing to prove there.
@Suite("A build archived while the tests run", .enabled(if: GNUTar.installed, "GNU tar only"))
struct BuildArchiveTests {

    /// A package whose `.build` holds 1,000 small files, and `extra` written below it.
    static func package(_ extra: [String: Data] = [:]) throws -> URL {
        let root = try Scratch.folder("build-archive")
        let objects = root.appendingPathComponent("pkg/.build/debug/objects")
        try FileManager.default.createDirectory(at: objects, withIntermediateDirectories: true)
        for index in 0..<1000 {
            try Data("object \(index)\n".utf8).write(to: objects.appendingPathComponent("o\(index).o"))
        }
        for (path, data) in extra { try data.write(to: root.appendingPathComponent("pkg/\(path)")) }
        return root.appendingPathComponent("pkg")
    }

    /// The process's variables with tar told to run `script` every `records` records it writes.
    static func variables(running script: String, every records: Int, in package: URL) throws -> [String: String] {
        let file = package.deletingLastPathComponent().appendingPathComponent("checkpoint.sh")
        try Data("#!/bin/sh\n\(script)\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        return ProcessInfo.processInfo.environment.merging([
            "TAR_OPTIONS": "--checkpoint=\(records) --checkpoint-action=exec=\(file.path)"
        ]) { $1 }
    }

    @Test(
        "folders gaining entries while tar reads them (kept or left out) do not fail the save; what was built is kept")
    func foldersGrow() async throws {
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let parts = package.deletingLastPathComponent().appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let build = package.appendingPathComponent(".build").path
        let variables = try Self.variables(
            running: "mkdir -p '\(build)/pipeline/run'$$ && touch '\(build)/debug/scratch'$$", every: 20, in: package)
        let made = try await BuildArchive.pack(
            root: package, members: [".build"], excluded: [".build/pipeline"], into: parts, compression: "gzip",
            variables: variables)
        #expect(!made.isEmpty)
        // tar did see the folders change (else this test proves nothing).
        let log = try String(contentsOf: parts.appendingPathComponent("../pack.log"), encoding: .utf8)
        #expect(log.contains(".build: file changed as we read it"), "\(log)")
        let restored = package.deletingLastPathComponent().appendingPathComponent("restored")
        try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
        try await BuildArchive.unpack(
            made.map { parts.appendingPathComponent($0.name) }, into: restored, compression: "gzip",
            variables: ProcessInfo.processInfo.environment, log: restored.appendingPathComponent("../unpack.log"))
        let objects = try FileManager.default.contentsOfDirectory(
            atPath: restored.appendingPathComponent(".build/debug/objects").path)
        #expect(objects.count == 1000)
        #expect(!FileManager.default.fileExists(atPath: restored.appendingPathComponent(".build/pipeline").path))
    }

    @Test("a file whose content changes while tar reads it fails the save, naming the file")
    func fileChanges() async throws {
        let package = try Self.package([".build/debug/test.log": Data(repeating: 65, count: 4 << 20)])
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let parts = package.deletingLastPathComponent().appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let log = package.appendingPathComponent(".build/debug/test.log").path
        let variables = try Self.variables(running: "echo line >> '\(log)'", every: 20, in: package)
        let outcome: Result<[ArchivePart], BuildCacheError> = await {
            do {
                return .success(
                    try await BuildArchive.pack(
                        root: package, members: [".build"], excluded: [], into: parts, compression: "gzip",
                        variables: variables))
            } catch let error as BuildCacheError {
                return .failure(error)
            } catch {
                Issue.record("unexpected \(error)")
                return .success([])
            }
        }()
        guard case .failure(.archive(let command, let output)) = outcome else {
            Issue.record("the save stood: \(outcome)")
            return
        }
        #expect(command == "archiving \(package.path)")
        #expect(output.contains(".build/debug/test.log: file changed as we read it"), "\(output)")
    }
}

/// Whether the tar on PATH is GNU tar.
enum GNUTar {
    static let installed: Bool = {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tar", "--version"]
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return false }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).contains("GNU tar")
    }()
}
