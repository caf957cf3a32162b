import Foundation

/// `scripts/github-api-stub.py` on 127.0.0.1: GitHub's runs and a commit's pull requests as the
/// JSON files a test writes, to a request bearing `token`. A stand-in: nothing here reaches GitHub.
public final class GitHubAPIStub {
    private let process = Process()
    private let log: URL
    public let root: URL
    public let endpoint: String
    public let token: String
    public let repository = "team/app"

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/github-api-stub.py")

    public init(token: String = "stub-token-\(UUID().uuidString.prefix(8))") throws {
        self.token = token
        root = try Scratch.folder("github-api")
        log = root.appendingPathComponent("requests.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, root.appendingPathComponent("repos").path, token]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        endpoint = "http://127.0.0.1:\(try LoopbackServer.port(of: process, log: log, what: "the GitHub API stub"))"
    }

    /// A workflow run as GitHub's `GET /repos/{repository}/actions/runs/{id}` answers it.
    public func run(
        _ id: Int, event: String, conclusion: String?, head: String, branch: String, pullRequests: [Int] = []
    ) throws {
        let pulls = pullRequests.map { ["number": $0] }
        try write(
            [
                "id": id, "event": event, "status": conclusion == nil ? "in_progress" : "completed",
                "conclusion": conclusion ?? NSNull(), "head_sha": head, "head_branch": branch, "pull_requests": pulls,
            ], to: "actions/runs/\(id)")
    }

    /// The pull requests `GET /repos/{repository}/commits/{commit}/pulls` lists: merged ones, each
    /// at its head; and each one's commits (`GET …/pulls/{number}/commits`: its head alone unless given).
    public func merged(
        _ commit: String, pullRequests: [(number: Int, head: String)], commits: [Int: [String]] = [:]
    ) throws {
        let pulls = pullRequests.map { pull -> [String: Any] in
            ["number": pull.number, "merged_at": "2026-11-28T10:00:00Z", "head": ["sha": pull.head]]
        }
        try write(pulls, to: "commits/\(commit)/pulls")
        for pull in pullRequests {
            try write((commits[pull.number] ?? [pull.head]).map { ["sha": $0] }, to: "pulls/\(pull.number)/commits")
        }
    }

    private func write(_ json: Any, to path: String) throws {
        let file = root.appendingPathComponent("repos/\(repository)/\(path).json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: json).write(to: file)
    }

    /// The variables a GitHub job reading this stub has (its token included).
    public var variables: [String: String] {
        ["GITHUB_API_URL": endpoint, "GITHUB_REPOSITORY": repository, "GITHUB_TOKEN": token]
    }

    /// One line per request: `GET PATH -> STATUS`.
    public var requests: [String] { Array(LoopbackServer.lines(of: log).dropFirst()) }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: root)
    }
}
