import Foundation
import TestSupport
import Testing

@testable import BuildCache

/// Packing a build folder while the tests write into it: folders that gain entries (pipeline's
/// outputs, a test's scratch files) do not fail the save; a file whose content changes does, naming it.
@Suite("A build archived while the tests run")
struct BuildArchiveTests {
    /// A package whose `.build` holds enough files that tar takes a while to read them.
    static func package() throws -> URL {
        let root = try Scratch.folder("build-archive")
        let objects = root.appendingPathComponent("pkg/.build/debug/objects")
        try FileManager.default.createDirectory(at: objects, withIntermediateDirectories: true)
        for index in 0..<4000 {
            try Data("object \(index)\n".utf8).write(to: objects.appendingPathComponent("o\(index).o"))
        }
        return root.appendingPathComponent("pkg")
    }

    /// Calls `write` with 0, 1, 2… (the first 20 before `body` starts, the rest while it runs)
    /// until `body` returns.
    static func whileWriting<T>(
        writing write: @escaping @Sendable (Int) throws -> Void, during body: () async throws -> T
    ) async throws -> T {
        for index in 0..<20 { try write(index) }
        let writer = Task.detached {
            var index = 20
            while !Task.isCancelled {
                try write(index)
                index += 1
                // Never holding a thread of the shared pool: the pack's own waiting needs one.
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { writer.cancel() }
        let result = try await body()
        writer.cancel()
        _ = await writer.result
        return result
    }

    @Test(
        "folders gaining entries while tar reads them (kept or left out) do not fail the save; what was built is kept")
    func foldersGrow() async throws {
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let parts = package.deletingLastPathComponent().appendingPathComponent("parts/a")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let build = package.appendingPathComponent(".build")
        let made = try await Self.whileWriting(
            writing: { index in
                try FileManager.default.createDirectory(
                    at: build.appendingPathComponent("pipeline/run\(index)"), withIntermediateDirectories: true)
                try Data().write(to: build.appendingPathComponent("debug/scratch\(index)"))
            },
            during: {
                try await BuildArchive.pack(
                    root: package, members: [".build"], excluded: [".build/pipeline"], into: parts,
                    compression: "gzip", variables: ProcessInfo.processInfo.environment)
            })
        #expect(!made.isEmpty)
        // tar did see the folders change (else this test proves nothing).
        let log = try String(contentsOf: parts.appendingPathComponent("../pack.log"), encoding: .utf8)
        #expect(log.contains(": file changed as we read it"), "\(log)")
        let restored = package.deletingLastPathComponent().appendingPathComponent("restored")
        try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
        try await BuildArchive.unpack(
            made.map { parts.appendingPathComponent($0.name) }, into: restored, compression: "gzip",
            variables: ProcessInfo.processInfo.environment, log: restored.appendingPathComponent("../unpack.log"))
        let objects = try FileManager.default.contentsOfDirectory(
            atPath: restored.appendingPathComponent(".build/debug/objects").path)
        #expect(objects.count == 4000)
        #expect(!FileManager.default.fileExists(atPath: restored.appendingPathComponent(".build/pipeline").path))
    }

    @Test("a file whose content changes while tar reads it fails the save, naming the file")
    func fileChanges() async throws {
        let package = try Self.package()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let log = package.appendingPathComponent(".build/debug/test.log")
        try Data(repeating: 65, count: 32 << 20).write(to: log)
        let parts = package.deletingLastPathComponent().appendingPathComponent("parts/b")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let outcome: Result<[ArchivePart], BuildCacheError> = await {
            do {
                return .success(
                    try await Self.whileWriting(
                        writing: { _ in
                            let handle = try FileHandle(forWritingTo: log)
                            defer { try? handle.close() }
                            try handle.seekToEnd()
                            try handle.write(contentsOf: Data("line\n".utf8))
                        },
                        during: {
                            try await BuildArchive.pack(
                                root: package, members: [".build"], excluded: [], into: parts, compression: "gzip",
                                variables: ProcessInfo.processInfo.environment)
                        }))
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
