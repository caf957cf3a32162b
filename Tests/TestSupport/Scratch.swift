import Foundation

/// Throwaway folders and files for tests.
public enum Scratch {
    /// A new folder of its own under the temporary directory (a directory URL); the caller removes it.
    public static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-tests-\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `text` to `url`, creating its folder.
    public static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Runs git in `folder` (as a test author with a fixed name) and returns what it printed.
    @discardableResult
    public static func git(_ folder: URL, _ arguments: String...) throws -> String {
        try git(folder, arguments: arguments)
    }

    /// `git(_:_:)` with the arguments as an array.
    @discardableResult
    public static func git(_ folder: URL, arguments: [String]) throws -> String {
        let git = Process()
        let output = Pipe()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", folder.path, "-c", "user.name=T", "-c", "user.email=t@example.com"] + arguments
        git.standardOutput = output
        try git.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        guard git.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "git \(arguments) failed"])
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A git repository at `folder` with `count` empty commits, one after another; returns them, oldest first.
    public static func commits(_ count: Int, in folder: URL) throws -> [String] {
        try git(folder, "init", "-q")
        return try (1...count).map { index in
            try git(folder, "commit", "-q", "--allow-empty", "-m", "commit \(index)")
            return try git(folder, "rev-parse", "HEAD")
        }
    }
}
