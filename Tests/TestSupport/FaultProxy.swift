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
        var port: String?
        for _ in 0..<500 where port == nil {
            port = Self.lines(of: log).first.flatMap { $0.hasPrefix("port ") ? String($0.dropFirst(5)) : nil }
            if port == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let port, let endpoint = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)") else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the fault proxy did not start"])
        }
        self.endpoint = endpoint
    }

    private static func lines(of log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// One line per request: `METHOD PATH -> OUTCOME`.
    public var requests: [String] { Array(Self.lines(of: log).dropFirst()) }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}
