import Foundation

/// A real git repository in a temporary folder, built with the git CLI, removed when the test ends.
final class TestRepository {
    let root: URL

    init(bare: Bool = false) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("gitchanges-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try git(bare ? ["init", "-q", "--bare", "-b", "develop"] : ["init", "-q", "-b", "develop"])
    }

    /// Wraps an existing folder (a clone), removed when the test ends.
    init(existing: URL) {
        root = existing
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    var path: String { root.path }

    /// Runs git in the repository with a fixed identity and clock, and returns its standard output.
    @discardableResult
    func git(_ arguments: [String]) throws -> String {
        try Self.run(["git", "-c", "protocol.file.allow=always", "-c", "core.quotePath=false"] + arguments, in: root)
    }

    @discardableResult
    func git(_ arguments: String...) throws -> String {
        try git(arguments)
    }

    static func run(_ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in [
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
            "GIT_CONFIG_NOSYSTEM": "1", "HOME": directory.path,
        ] {
            environment[key] = value
        }
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("git-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOf: output, encoding: .utf8)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return text
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes files (creating folders) and stages everything.
    func write(_ files: [String: String]) throws {
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try git("add", "-A")
    }

    func remove(_ paths: String...) throws {
        try git(["rm", "-q", "-r", "-f"] + paths)
    }

    func commit(_ message: String) throws {
        try git("commit", "-q", "--allow-empty", "-m", message)
    }

    func sha(_ revision: String) throws -> String {
        try git("rev-parse", revision).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What `git diff --no-renames --name-only` lists between two revisions, NUL-separated so any path survives.
    func gitDiffNames(_ revisions: String...) throws -> Set<String> {
        let output = try git(["diff", "--no-renames", "--name-only", "-z"] + revisions)
        return Set(output.split(separator: "\0").map(String.init))
    }

    /// A package with two test targets, each with a test file and reference images, on `develop`.
    static func package() throws -> TestRepository {
        let repository = try TestRepository()
        try repository.write([
            "Package.swift": "// swift-tools-version:6.0\n",
            "Sources/App/View.swift": "struct View {}\n",
            "Tests/AppTests/SampleVCTests.swift": "final class SampleVCTests {}\n",
            "Tests/AppTests/Helpers.swift": "// helpers\n",
            "Tests/AppTests/__Snapshots__/SampleVCTests/test_a.1.png": "png a1",
            "Tests/AppTests/__Snapshots__/SampleVCTests/test_b.1.png": "png b1",
            "Tests/ProfileTests/ProfileViewTests.swift": "final class ProfileViewTests {}\n",
            "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_avatar.1.png": "png avatar",
        ])
        try repository.commit("initial package")
        return repository
    }
}
