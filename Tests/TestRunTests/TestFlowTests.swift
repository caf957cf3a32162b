import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import TestSupport
import Testing

@testable import TestRun

/// The choices the one test flow makes from its request, whichever entry point made it.
@Suite("the one test flow's choices")
struct TestFlowTests {
    /// A repository with a base, a branch head, and a merge of the head into the base (as GitHub's
    /// `refs/pull/N/merge`), checked out at the merge; folder stores named by a spec.
    private func pullRequestCheckout(_ name: String) throws -> (root: URL, base: String, head: String, merge: String) {
        let root = try Scratch.folder(name)
        let base = try Scratch.commits(1, in: root)[0]
        _ = try Scratch.git(root, "checkout", "-q", "-b", "feature")
        try Scratch.write("changed", to: root.appendingPathComponent("view.txt"))
        _ = try Scratch.git(root, "add", "-A")
        _ = try Scratch.git(root, "commit", "-q", "-m", "branch")
        let head = try Scratch.git(root, "rev-parse", "HEAD")
        _ = try Scratch.git(root, "checkout", "-q", base)
        try Scratch.write("other", to: root.appendingPathComponent("base.txt"))
        _ = try Scratch.git(root, "add", "-A")
        _ = try Scratch.git(root, "commit", "-q", "-m", "base moved on")
        _ = try Scratch.git(root, "merge", "-q", "--no-ff", "-m", "Merge feature into base", head)
        let merge = try Scratch.git(root, "rev-parse", "HEAD")
        try Scratch.write(
            """
            name: pr
            description: A pull request's checks.
            references:
              feature: storage/feature
              develop: storage/develop
            stages:
              - test:
                  retries: 1
            """, to: root.appendingPathComponent("pipelines/pr.yml"))
        return (root, base, head, merge)
    }

    private func request(_ root: URL, environment: [String: String], keepsCandidates: Bool = true) async throws
        -> TestRequest
    {
        let shared = RunSharing(workingDirectory: root, variables: environment)
        return TestRequest(
            package: root, shared: shared, cores: 2,
            stores: try await SpecStores.locate(for: shared, environment: nil) { _ in },
            keepsCandidates: keepsCandidates
        ) { _ in }
    }

    @Test("pipeline test finds the spec's stores, and in CI keeps candidates under HEAD")
    func candidatesInCI() async throws {
        let checkout = try pullRequestCheckout("flow-ci")
        defer { try? FileManager.default.removeItem(at: checkout.root) }
        let request = try await request(checkout.root, environment: ["CI": "true"])
        #expect(request.stores?.settings.address(of: .feature) == .folder(path: "storage/feature"))
        let check = TestFlow(request).snapshotCheck()
        // Not a pull request's build: the merge checked out is the commit.
        #expect(check.candidatesCommit == checkout.merge)
        #expect(check.referenceOrigin != nil)
        #expect(check.writesFail)
    }

    @Test("CI=false is not CI: no candidates, and a written reference does not fail")
    func notCI() async throws {
        let checkout = try pullRequestCheckout("flow-not-ci")
        defer { try? FileManager.default.removeItem(at: checkout.root) }
        let check = TestFlow(try await request(checkout.root, environment: ["CI": "false"])).snapshotCheck()
        #expect(check.candidatesCommit == nil)
        #expect(!check.writesFail)
        #expect(check.mode == .missing)
    }

    @Test("on a pull request's synthetic merge commit, candidates are keyed by the branch head the merge brings in")
    func syntheticMerge() async throws {
        let checkout = try pullRequestCheckout("flow-synthetic")
        defer { try? FileManager.default.removeItem(at: checkout.root) }
        let event = checkout.root.appendingPathComponent("event.json")
        try Scratch.write(#"{"pull_request":{"head":{"sha":"\#(checkout.head)"}}}"#, to: event)
        let gitHub = [
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": event.path, "GITHUB_SHA": checkout.merge,
        ]
        #expect(
            TestFlow(try await request(checkout.root, environment: gitHub)).snapshotCheck().candidatesCommit
                == checkout.head)
        // Bitrise keeps no event file: the merge's second parent is the branch.
        let bitrise = ["CI": "true", "BITRISE_IO": "true", "BITRISE_PULL_REQUEST": "7"]
        #expect(
            TestFlow(try await request(checkout.root, environment: bitrise)).snapshotCheck().candidatesCommit
                == checkout.head
        )
        // The same checkout on a push build keeps them under the merge.
        #expect(
            TestFlow(try await request(checkout.root, environment: ["CI": "true", "GITHUB_EVENT_NAME": "push"]))
                .snapshotCheck().candidatesCommit == checkout.merge)
    }

    @Test("no spec: no stores, no candidates; a stage saying candidates: false keeps none")
    func withoutStores() async throws {
        let root = try Scratch.folder("flow-no-spec")
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try Scratch.commits(1, in: root)
        let request = try await request(root, environment: ["CI": "true"])
        #expect(request.stores == nil)
        #expect(TestFlow(request).snapshotCheck().candidatesCommit == nil)
        let checkout = try pullRequestCheckout("flow-off")
        defer { try? FileManager.default.removeItem(at: checkout.root) }
        let off = try await self.request(checkout.root, environment: ["CI": "true"], keepsCandidates: false)
        #expect(off.stores != nil)
        #expect(TestFlow(off).snapshotCheck().candidatesCommit == nil)
    }

    @Test("specs naming different references: pipeline test goes on without stores, unless its timings are in one")
    func ambiguousSpecs() async throws {
        let checkout = try pullRequestCheckout("flow-ambiguous")
        defer { try? FileManager.default.removeItem(at: checkout.root) }
        try Scratch.write(
            """
            name: other
            description: Another store.
            references:
              feature: elsewhere/feature
            stages:
              - test:
                  retries: 1
            """, to: checkout.root.appendingPathComponent("pipelines/other.yml"))
        let written = Written()
        var shared = RunSharing(workingDirectory: checkout.root, variables: ["CI": "1"])
        #expect(try await SpecStores.locate(for: shared, environment: nil) { written.add($0) } == nil)
        #expect(written.text.contains("choose one with --pipeline NAME"))
        shared.timings = .store(.develop)
        await #expect(throws: RequestError.self) {
            try await SpecStores.locate(for: shared, environment: nil) { _ in }
        }
        shared.pipeline = "pr"
        let found = try await SpecStores.locate(for: shared, environment: nil) { _ in }
        #expect(found?.stores.origin == "pipelines/pr.yml")
    }
}

/// Text a request wrote, for a test to read.
final class Written: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []

    func add(_ text: String) { lock.withLock { parts.append(text) } }
    var text: String { lock.withLock { parts.joined() } }
}
