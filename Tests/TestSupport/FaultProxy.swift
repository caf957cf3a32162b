import Foundation

/// `scripts/fault-proxy.py` between the S3 store and the test server, injecting the faults it is told.
public final class FaultProxy {
    private let process = Process()
    private let log: URL
    public let endpoint: URL

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/fault-proxy.py")

    public init(
        upstream: URL, faults: [String], evilKey: String? = nil, kmsETags: Bool = false, readOnly: String? = nil,
        tls: (certificate: URL, key: URL)? = nil, policies: [String: [String]] = [:]
    ) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("fault-proxy-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.script.path, upstream.absoluteString, faults.joined(separator: ",")]
        if let evilKey { arguments += ["--evil-key", evilKey] }
        if kmsETags { arguments.append("--kms-etags") }
        if let readOnly { arguments += ["--read-only", readOnly] }
        if let tls { arguments += ["--tls", tls.certificate.path, tls.key.path] }
        for (key, prefixes) in policies.sorted(by: { $0.key < $1.key }) {
            arguments += ["--policy", key + "=" + prefixes.joined(separator: ",")]
        }
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let port = try LoopbackServer.port(of: process, log: log, what: "the fault proxy")
        endpoint = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")!
    }

    private static func lines(of log: URL) -> [String] { LoopbackServer.lines(of: log) }

    /// One line per request: `METHOD PATH -> OUTCOME`.
    public var requests: [String] { Array(Self.lines(of: log).dropFirst()) }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}

/// A loopback server a test starts (a script printing `port N` as its first line, then a line per request).
enum LoopbackServer {
    /// The port the started `process` printed first in `log`; it is killed, and this throws, when
    /// none comes within 5 s.
    static func port(of process: Process, log: URL, what: String) throws -> Int {
        for _ in 0..<500 {
            if let port = lines(of: log).first.flatMap({ $0.hasPrefix("port ") ? Int($0.dropFirst(5)) : nil }) {
                return port
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(process.processIdentifier, SIGKILL)
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what) did not start"])
    }

    static func lines(of log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
