import CISystem
import Foundation
import Testing

/// GitHub's records as pipeline reads them, over a transport that answers what each test gives
/// (the real libcurl transport and a stand-in server are in VerdictTrustTests): which jobs can ask,
/// the shapes of GitHub's answers, a 404, a refused token, and a pull request's commits a page at a time.
@Suite struct GitHubRecordsTests {
    static let job = ["GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "team/app", "GITHUB_TOKEN": "t0ken"]

    /// Records whose transport answers `answer(url)` and notes each URL asked.
    final class Transport: @unchecked Sendable {
        var asked: [String] = []
        var headers: [(String, String)] = []
        let answer: (String) -> (Int, Any)
        /// A token of its own: answers are kept per token for the process's life.
        let token = "t0ken-\(UUID().uuidString)"

        init(_ answer: @escaping (String) -> (Int, Any)) { self.answer = answer }

        func records(_ variables: [String: String] = GitHubRecordsTests.job) throws -> GitHubRecords {
            try GitHubRecords.reachable(variables.merging(["GITHUB_TOKEN": token]) { $1 }) { url, headers in
                self.asked.append(url)
                self.headers = headers
                let (status, json) = self.answer(url)
                return (status, try JSONSerialization.data(withJSONObject: json))
            }.get()
        }
    }

    @Test("only a GitHub job with its repository and token can ask; the API's address defaults to GitHub's")
    func reachable() async throws {
        let never: WebGet = { _, _ in (500, Data()) }
        func why(_ variables: [String: String]) -> String {
            if case .failure(let error) = GitHubRecords.reachable(variables, fetch: never) { return "\(error)" }
            return "reachable"
        }
        #expect(why(["CI": "true"]) == "only GitHub's runs are asked here; this CI's are not")
        #expect(why(["GITHUB_ACTIONS": "true", "GITHUB_TOKEN": "t"]) == "GITHUB_REPOSITORY is not set")
        #expect(why(["GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "team/app"]).hasPrefix("GITHUB_TOKEN is not set"))
        #expect(why(Self.job) == "reachable")

        let transport = Transport { _ in (404, ["message": "Not Found"]) }
        #expect(try await transport.records().run("5") == nil, "a run GitHub does not know")
        #expect(transport.asked == ["https://api.github.com/repos/team/app/actions/runs/5"])
        #expect(transport.headers.contains { $0 == ("Authorization", "Bearer \(transport.token)") })
        _ = try await transport.records().run("5")
        #expect(transport.asked.count == 1, "an answer is asked for once")
        _ = try await transport.records(Self.job.merging(["GITHUB_API_URL": "http://ghe.local/api/v3/"]) { $1 }).run(
            "6")
        #expect(transport.asked.last == "http://ghe.local/api/v3/repos/team/app/actions/runs/6")
    }

    @Test("a run and a commit's merged pull requests in GitHub's shapes; an open pull request is not merged")
    func shapes() async throws {
        let transport = Transport { url in
            if url.hasSuffix("/actions/runs/502") {
                return (
                    200,
                    [
                        "id": 502, "event": "pull_request", "status": "completed", "conclusion": "success",
                        "head_sha": "abc", "head_branch": "two", "pull_requests": [["number": 2, "url": "…"]],
                    ]
                )
            }
            return (
                200,
                [
                    ["number": 1, "merged_at": "2026-11-28T10:00:00Z", "head": ["sha": "def"]],
                    ["number": 3, "merged_at": NSNull(), "head": ["sha": "fed"]],
                ]
            )
        }
        let records = try transport.records()
        let run = try #require(try await records.run("502"))
        #expect(
            run
                == CIRun(
                    id: "502", event: "pull_request", completed: true, conclusion: "success", head: "abc",
                    branch: "two",
                    pullRequests: [2]))
        let merged = try await records.mergedPullRequests(of: ["m1", "m2"])
        #expect(merged.map(\.number) == [1] && merged.map(\.head) == ["def"], "once, though two commits list it")
        #expect(
            transport.asked.suffix(2)
                == ["/commits/m1/pulls", "/commits/m2/pulls"].map { "https://api.github.com/repos/team/app" + $0 })
    }

    @Test("a refused token or an error is said with the status and GitHub's message, never the token")
    func refused() async throws {
        let transport = Transport { _ in (401, ["message": "Bad credentials"]) }
        await #expect {
            try await transport.records().run("7")
        } throws: { error in
            let text = "\(error)"
            return text.contains("HTTP 401") && text.contains("Bad credentials") && !text.contains(transport.token)
        }
    }

    @Test("a pull request's commits, 100 a page, until a page is short")
    func commitsPaged() async throws {
        let transport = Transport { url in
            let page = Int(url.split(separator: "page=").last ?? "") ?? 0
            let count = page == 1 ? 100 : 5
            return (200, (0..<count).map { ["sha": "p\(page)-\($0)"] })
        }
        let commits = try await transport.records().commits(ofPullRequest: 12)
        #expect(commits.count == 105 && commits.first == "p1-0" && commits.last == "p2-4")
        #expect(transport.asked.count == 2, "\(transport.asked)")
        #expect(transport.asked.first == "https://api.github.com/repos/team/app/pulls/12/commits?per_page=100&page=1")
    }
}
