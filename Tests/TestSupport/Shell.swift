import Foundation

/// Runs the repository's scripts and other programs as a user's shell would.
public enum Shell {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// The repository's root (where `scripts/` and `action.yml` are).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The path of `program` on PATH, nil when there is none.
    public static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/\(program)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs `command` with `arguments` through `/usr/bin/env`, its output through files so no pipe fills up.
    public static func run(
        _ command: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let scratch = try Scratch.folder("shell")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.currentDirectoryURL = directory ?? repository
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }
}

/// A folder served over HTTP on 127.0.0.1 (Python's `http.server`), as a release server would serve it.
public final class FileServer {
    private let process = Process()
    private let log: URL
    public let address: URL

    public init(folder: URL) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("file-server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path,
        ]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: String?
        for _ in 0..<500 where port == nil {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            port = text.range(of: #"port (\d+)"#, options: .regularExpression).map { String(text[$0].dropFirst(5)) }
            if port == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let port, let address = URL(string: "http://127.0.0.1:\(port)") else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the file server did not start"])
        }
        self.address = address
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}
