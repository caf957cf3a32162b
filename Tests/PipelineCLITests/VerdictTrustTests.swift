import Foundation
import TestSupport
import Testing

/// A post-merge job takes a pull request's verdict only when GitHub's own record confirms it
/// (issue 67's scenario): pull request 1 changes a source file so the suite fails, and its check
/// never ran; pull request 2's job runs the tests on the tree the squash of 1 will make, with an
/// input outside the package that makes them pass, and keeps that verdict (as its own, or labelled
/// as pull request 1's). After the squash of 1, the post-merge run passes over both records, runs
/// the tests and fails. A record GitHub confirms (a passing run of the merged pull request, on the
/// head it was merged at) stands. GitHub here is `scripts/github-api-stub.py` on 127.0.0.1
/// answering the two endpoints pipeline reads, with a token check; nothing reaches GitHub.
@Suite("a post-merge run takes a pull request's verdict only when GitHub confirms it", .serialized)
struct VerdictTrustTests {
    let root: URL
    let package: URL
    let store: URL
    let github: GitHubAPIStub

    init() throws {
        root = try Scratch.folder("verdict-trust")
        package = root.appendingPathComponent("pkg")
        store = root.appendingPathComponent("verdicts")
        github = try GitHubAPIStub()
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Pkg",
                targets: [.target(name: "Pkg"), .testTarget(name: "PkgTests", dependencies: ["Pkg"])]
            )
            """,
            "Sources/Pkg/Pkg.swift": "public func twice(_ value: Int) -> Int { value * 2 }\n",
            // The input outside the package: what a pull request's job can set for its own run.
            "Tests/PkgTests/TwiceTests.swift": """
            import Foundation
            import Pkg
            import XCTest

            final class TwiceTests: XCTestCase {
                func testTwice() {
                    let expected = ProcessInfo.processInfo.environment["EXPECTED_TWICE"].flatMap { Int($0) } ?? 4
                    XCTAssertEqual(twice(2), expected)
                }
            }
            """,
            ".gitignore": ".build/\n",
        ]
        for (path, text) in files { try Scratch.write(text, to: package.appendingPathComponent(path)) }
        try Git.run(["init", "-q", "-b", "develop"], in: package)
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "the package"], in: package)
    }

    func sha(_ revision: String) throws -> String {
        try Git.run(["rev-parse", revision], in: package)
    }

    /// `pipeline test --reuse-verdicts` as a GitHub job with `variables` would run it.
    func test(as variables: [String: String], _ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(
            ["test", "--reuse-verdicts", store.path] + arguments, in: package,
            environment: ["CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": package.path].merging(variables) {
                $1
            })
    }

    /// A pull request's job: `pull_request` on `refs/pull/N/merge`, run `run`.
    func pullRequest(_ number: Int, run: Int, extra: [String: String] = [:]) -> [String: String] {
        [
            "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/\(number)/merge",
            "GITHUB_BASE_REF": "develop", "GITHUB_RUN_ID": "\(run)",
        ].merging(extra) { $1 }
    }

    /// The post-merge job of the push from `before` to the checkout's head, with GitHub's API or without.
    func postMerge(before: String, api: Bool = true) throws -> [String: String] {
        let event = root.appendingPathComponent("push-\(UUID().uuidString).json")
        try Scratch.write("{\"ref\": \"refs/heads/develop\", \"before\": \"\(before)\"}", to: event)
        let job = [
            "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop", "GITHUB_RUN_ID": "900",
            "GITHUB_EVENT_PATH": event.path,
        ]
        return api
            ? job.merging(github.variables) { $1 }
            : job.merging(["GITHUB_TOKEN": "", "GITHUB_REPOSITORY": github.repository]) { $1 }
    }

    @Test(
        "the issue's scenario: another pull request's verdict, and one planted under pull request 1's label, are passed over; the tests run and fail"
    )
    func plantedVerdictsRefused() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let base = try sha("HEAD")
        // Pull request 1: a change the suite fails; its check never ran.
        try Git.run(["checkout", "-q", "-b", "one"], in: package)
        try Scratch.write(
            "public func twice(_ value: Int) -> Int { value * 3 }\n",
            to: package.appendingPathComponent("Sources/Pkg/Pkg.swift"))
        try Git.run(["commit", "-q", "-am", "triple"], in: package)
        let oneHead = try sha("HEAD")
        // The squash of 1 onto develop: the tree pull request 2's job runs on.
        try Git.run(["checkout", "-q", "develop"], in: package)
        try Git.run(["merge", "-q", "--squash", "one"], in: package)
        try Git.run(["commit", "-q", "-m", "triple (#1)"], in: package)
        let squash = try sha("HEAD")

        // Pull request 2's job (run 502) passes on that tree with its own input, and keeps the
        // verdict as its own; then again labelled as pull request 1's.
        let own = try test(as: pullRequest(2, run: 502, extra: ["EXPECTED_TWICE": "6"]))
        #expect(own.status == 0 && own.stderr.contains("kept this run's verdict"), "\(own.stderr)")
        let planted = try test(as: pullRequest(1, run: 502, extra: ["EXPECTED_TWICE": "6"]), "--no-reuse")
        #expect(planted.status == 0, "\(planted.stderr)")
        let records = try FileManager.default.subpathsOfDirectory(atPath: store.path).filter { $0.hasSuffix(".json") }
        #expect(
            records.contains { $0.hasSuffix("/pr-1.json") } && records.contains { $0.hasSuffix("/pr-2.json") },
            "\(records)")

        // GitHub's record: run 502 is pull request 2's, and it passed; the squash merged pull request 1.
        try github.run(502, event: "pull_request", conclusion: "success", head: base, branch: "two", pullRequests: [2])
        try github.merged(squash, pullRequests: [(1, oneHead)])

        let merged = try test(as: try postMerge(before: base))
        #expect(merged.status == 1, "the squash's suite fails: \(merged.stderr)")
        #expect(!merged.stderr.contains("verified already"), "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "passed over the record of run 502 (pr/2, commit \(squash.prefix(12))): pull request 2 is not one this push merged (it merged #1)"
            ), "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "passed over the record of run 502 (pr/1, commit \(squash.prefix(12))): it is labelled pr/1, but run 502 is pull request 2's"
            ), "\(merged.stderr)")
        #expect(
            merged.stderr.contains("no record of this tree that the CI confirms; the tests run"), "\(merged.stderr)")
        #expect(merged.stderr.contains("Running 1 test"), "\(merged.stderr)")
        #expect(merged.stderr.components(separatedBy: "passed over the record").count == 3, "each said once")
        #expect(github.requests.contains("GET /repos/team/app/actions/runs/502 -> 200"), "\(github.requests)")

        // Without the token the CI cannot be asked: the records are passed over, saying why.
        let unasked = try test(as: try postMerge(before: base, api: false))
        #expect(unasked.status == 1, "\(unasked.stderr)")
        #expect(unasked.stderr.contains("the CI cannot confirm it: GITHUB_TOKEN is not set"), "\(unasked.stderr)")

        // A developer's machine takes what its store holds, as before.
        let local = try PipelineBinary.run(
            ["test", "--reuse-verdicts", store.path], in: package, environment: ["CI": "false", "GITHUB_ACTIONS": ""])
        #expect(local.stderr.contains("verified already"), "\(local.stderr)")
    }

    @Test(
        "a passing run of the merged pull request on the head it was merged at stands; a failed, unknown or outdated run, or a wrong token, does not"
    )
    func confirmedVerdictStands() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let base = try sha("HEAD")
        try Git.run(["checkout", "-q", "-b", "three"], in: package)
        try Scratch.write(
            "public func twice(_ value: Int) -> Int { value + value }\n",
            to: package.appendingPathComponent("Sources/Pkg/Pkg.swift"))
        try Git.run(["commit", "-q", "-am", "by addition"], in: package)
        let threeHead = try sha("HEAD")
        try Git.run(["checkout", "-q", "develop"], in: package)
        try Git.run(["merge", "-q", "--squash", "three"], in: package)
        try Git.run(["commit", "-q", "-m", "by addition (#3)"], in: package)
        let squash = try sha("HEAD")
        // Pull request 3's check (run 503) on the tree its squash makes.
        let check = try test(as: pullRequest(3, run: 503))
        #expect(check.status == 0 && check.stderr.contains("kept this run's verdict"), "\(check.stderr)")
        try github.merged(squash, pullRequests: [(3, threeHead)])

        // GitHub knows no run 503: passed over.
        let unknown = try test(as: try postMerge(before: base))
        #expect(unknown.stderr.contains("GitHub knows no run 503 of this repository"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Running 1 test"), "\(unknown.stderr)")

        // The run failed: passed over.
        try github.run(
            503, event: "pull_request", conclusion: "failure", head: threeHead, branch: "three", pullRequests: [3])
        let failed = try test(as: try postMerge(before: base))
        #expect(failed.stderr.contains("GitHub says run 503 ended failure"), "\(failed.stderr)")

        // The run passed, on a head older than the one merged: passed over.
        try github.run(
            503, event: "pull_request", conclusion: "success", head: base, branch: "three", pullRequests: [3])
        let outdated = try test(as: try postMerge(before: base))
        #expect(
            outdated.stderr.contains(
                "run 503 checked \(base.prefix(12)), but pull request 3 was merged at \(threeHead.prefix(12))"),
            "\(outdated.stderr)")

        // A token GitHub refuses: said, and the tests run.
        let refused = try test(as: try postMerge(before: base).merging(["GITHUB_TOKEN": "wrong"]) { $1 })
        #expect(refused.status == 0 && refused.stderr.contains("HTTP 401"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Running 1 test"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong"), "the token is never printed: \(refused.stderr)")

        // Confirmed: nothing runs.
        try github.run(
            503, event: "pull_request", conclusion: "success", head: threeHead, branch: "three", pullRequests: [3])
        let confirmed = try test(as: try postMerge(before: base))
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stderr.contains("verified already: 1 test passed in run 503"), "\(confirmed.stderr)")
        #expect(!confirmed.stderr.contains("Running 1 test"), "\(confirmed.stderr)")
    }
}
