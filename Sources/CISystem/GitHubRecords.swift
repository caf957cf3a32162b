import Foundation

/// What GitHub says of one of its workflow runs (`GET /repos/{repository}/actions/runs/{id}`).
public struct CIRun: Sendable, Equatable {
    public var id: String
    public var event: String
    public var completed: Bool
    public var conclusion: String?
    /// The commit the run was made for: a pull request's head, a merge queue entry's commit, a push's.
    public var head: String
    public var branch: String?
    public var pullRequests: [Int]

    public init(
        id: String, event: String, completed: Bool, conclusion: String?, head: String, branch: String?,
        pullRequests: [Int]
    ) {
        (self.id, self.event, self.completed, self.conclusion) = (id, event, completed, conclusion)
        (self.head, self.branch, self.pullRequests) = (head, branch, pullRequests)
    }
}

/// A pull request GitHub lists as merged by a commit, and the head it had when merged.
public struct MergedPullRequest: Sendable, Equatable {
    public var number: Int
    public var head: String
}

/// A GET of `url` with `headers`: the status and the body (the transport is the caller's:
/// ObjectStorage's `WebRequest.get`, over the stores' libcurl).
public typealias WebGet =
    @Sendable (_ url: String, _ headers: [(String, String)]) async throws -> (
        status: Int, body: Data
    )

/// GitHub's own records of this repository's runs and pull requests, read with the job's token
/// (`GITHUB_TOKEN`, with `actions: read` and `pull-requests: read`) from `GITHUB_API_URL`.
public struct GitHubRecords: Sendable {
    let api: String
    let repository: String
    let token: String
    let fetch: WebGet

    /// The records this job can ask for, or why it cannot: not GitHub, no repository, no token.
    public static func reachable(_ variables: [String: String], fetch: @escaping WebGet) -> Result<
        GitHubRecords, CIRecordsError
    > {
        guard CIContext(variables).gitHub != nil else {
            return .failure(.unconfirmable("only GitHub's runs are asked here; this CI's are not"))
        }
        guard let repository = variables["GITHUB_REPOSITORY"], !repository.isEmpty else {
            return .failure(.unconfirmable("GITHUB_REPOSITORY is not set"))
        }
        guard let token = variables["GITHUB_TOKEN"], !token.isEmpty else {
            return .failure(
                .unconfirmable(
                    "GITHUB_TOKEN is not set in this step (docs/ci.md, \"A post-merge job takes only what the CI confirms\")"
                ))
        }
        let api = variables["GITHUB_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://api.github.com"
        return .success(
            GitHubRecords(
                api: api.hasSuffix("/") ? String(api.dropLast()) : api, repository: repository, token: token,
                fetch: fetch))
    }

    /// The run `id` (digits); nil when GitHub knows no such run of this repository.
    public func run(_ id: String) async throws(CIRecordsError) -> CIRun? {
        guard let json = try await get("/actions/runs/\(id)") as? [String: Any] else { return nil }
        let pulls = (json["pull_requests"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int }
        return CIRun(
            id: id, event: json["event"] as? String ?? "", completed: json["status"] as? String == "completed",
            conclusion: json["conclusion"] as? String, head: json["head_sha"] as? String ?? "",
            branch: json["head_branch"] as? String, pullRequests: pulls)
    }

    /// The pull requests GitHub associates with `commit` and lists as merged, with their heads.
    public func mergedPullRequests(of commit: String) async throws(CIRecordsError) -> [MergedPullRequest] {
        let pulls = try await get("/commits/\(commit)/pulls") as? [[String: Any]] ?? []
        return pulls.compactMap { pull in
            guard let number = pull["number"] as? Int, pull["merged_at"] is String,
                let head = (pull["head"] as? [String: Any])?["sha"] as? String
            else { return nil }
            return MergedPullRequest(number: number, head: head)
        }
    }

    /// The pull requests GitHub lists as merged by any of `commits`.
    public func mergedPullRequests(of commits: [String]) async throws(CIRecordsError) -> [MergedPullRequest] {
        var merged: [MergedPullRequest] = []
        for commit in commits {
            for pull in try await mergedPullRequests(of: commit) where !merged.contains(pull) { merged.append(pull) }
        }
        return merged
    }

    /// The commits of pull request `number` (`GET /repos/{repository}/pulls/{number}/commits`, 100
    /// a page; GitHub lists 250 at most).
    public func commits(ofPullRequest number: Int) async throws(CIRecordsError) -> [String] {
        var commits: [String] = []
        for page in 1...3 {
            let listed = try await get("/pulls/\(number)/commits?per_page=100&page=\(page)") as? [[String: Any]] ?? []
            commits += listed.compactMap { $0["sha"] as? String }
            if listed.count < 100 { break }
        }
        return commits
    }

    /// The answers of this process's requests, 200s and 404s: a job asks about one run and one
    /// push from several places (a tree's verdict, its change's, each promotion step).
    private static let answers = Answers()

    private actor Answers {
        private var kept: [String: (status: Int, body: Data)] = [:]
        func answer(_ key: String) -> (status: Int, body: Data)? { kept[key] }
        func keep(_ answer: (status: Int, body: Data), for key: String) {
            if answer.status == 200 || answer.status == 404 { kept[key] = answer }
        }
    }

    /// The JSON at `path` below the repository's API address; nil for a 404.
    private func get(_ path: String) async throws(CIRecordsError) -> Any? {
        let url = "\(api)/repos/\(repository)\(path)"
        let key = token + " " + url
        let answer: (status: Int, body: Data)
        if let kept = await Self.answers.answer(key) {
            answer = kept
        } else {
            do {
                answer = try await fetch(
                    url,
                    [
                        ("Authorization", "Bearer \(token)"), ("Accept", "application/vnd.github+json"),
                        ("X-GitHub-Api-Version", "2022-11-28"), ("User-Agent", "pipeline"),
                    ])
            } catch {
                throw .unreadable(url: url, reason: "\(error)")
            }
            await Self.answers.keep(answer, for: key)
        }
        if answer.status == 404 { return nil }
        guard answer.status == 200, let json = try? JSONSerialization.jsonObject(with: answer.body) else {
            let message = String(decoding: answer.body.prefix(200), as: UTF8.self)
            throw .unreadable(url: url, reason: "HTTP \(answer.status) \(message)")
        }
        return json
    }
}

/// Why the CI's records could not be read.
public enum CIRecordsError: Error, Sendable, CustomStringConvertible {
    /// Nothing here can ask the CI: the reason.
    case unconfirmable(String)
    /// The CI's API did not answer as expected.
    case unreadable(url: String, reason: String)

    public var description: String {
        switch self {
        case .unconfirmable(let reason): reason
        case .unreadable(let url, let reason): "\(url): \(reason)"
        }
    }
}
