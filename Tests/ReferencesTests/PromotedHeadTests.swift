import Foundation
import GitChanges
import ObjectStorage
import TestSupport
import Testing

@testable import References

/// Develop's record of the last promoted commit: read back, moved only forward, conditional on
/// the stores that can (a folder, moto's S3) and plain where the server answers 501 (OpenStack
/// Swift's s3api), and the catch-up a post-merge comparison makes from it.
@Suite("develop's record of the last promoted commit")
struct PromotedHeadTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case folder, moto, s3api
        var description: String { rawValue }
        static var available: [Kind] {
            let variables = ProcessInfo.processInfo.environment
            return [.folder] + (variables["PIPELINE_TEST_MOTO_ENDPOINT"] == nil ? [] : [.moto])
                + (variables["PIPELINE_TEST_S3_ENDPOINT"] == nil ? [] : [.s3api])
        }

        func develop() async throws -> StoreLocation {
            let variables = ProcessInfo.processInfo.environment
            let bucket = "p-\(UUID().uuidString.prefix(18).lowercased())"
            switch self {
            case .folder:
                return StoreLocation(
                    store: FolderStore(root: try Scratch.folder("promoted")), prefix: try ObjectKey("develop"))
            case .moto, .s3api:
                let store = try S3Store(
                    S3Settings(
                        endpoint: URL(
                            string: variables[
                                self == .moto ? "PIPELINE_TEST_MOTO_ENDPOINT" : "PIPELINE_TEST_S3_ENDPOINT"]!)!,
                        bucket: bucket,
                        credentials: self == .moto
                            ? AWSCredentials(accessKey: "test", secret: "test")
                            : AWSCredentials(accessKey: "test:tester", secret: "testing")))
                try await store.createBucket()
                return StoreLocation(store: store, prefix: try ObjectKey("app/develop"))
            }
        }
    }

    /// A line of three commits on develop: first, second, third.
    static func history() throws -> (CommitHistory, [String]) {
        let root = try Scratch.folder("promoted-history")
        _ = try Scratch.git(root, arguments: ["init", "-q", "-b", "develop"])
        var commits: [String] = []
        for name in ["first", "second", "third"] {
            _ = try Scratch.git(root, arguments: ["commit", "-q", "--allow-empty", "-m", name])
            commits.append(try Scratch.git(root, arguments: ["rev-parse", "HEAD"]))
        }
        return (try CommitHistory(repositoryPath: root.path), commits)
    }

    @Test("written after a promotion, read back, never moved back over a later commit", arguments: Kind.available)
    func forwardOnly(kind: Kind) async throws {
        let develop = try await kind.develop()
        let (history, commits) = try Self.history()
        #expect(await PromotedHead.read(develop: develop).record == nil, "none yet")
        let written = try await PromotedHead.record(commits[1], develop: develop, history: history, run: "41")
        #expect(written.hasPrefix("recorded \(commits[1].prefix(12)) as develop's last promoted commit"), "\(written)")
        // The strict server cannot write conditionally: said, and written plainly.
        #expect(written.contains("unconditionally") == (kind == .s3api), "\(written)")
        let read = await PromotedHead.read(develop: develop)
        #expect(read.record?.commit == commits[1] && read.record?.run == "41" && read.etag != nil)
        // A run of an earlier commit finishing later leaves the record alone.
        let older = try await PromotedHead.record(commits[0], develop: develop, history: history, run: "40")
        #expect(older.contains("names a later promoted commit"), "\(older)")
        #expect(await PromotedHead.read(develop: develop).record?.commit == commits[1])
        _ = try await PromotedHead.record(commits[2], develop: develop, history: history, run: "42")
        #expect(await PromotedHead.read(develop: develop).record?.commit == commits[2])
    }

    @Test("a record that is not one is named, and the comparison goes on as before")
    func unreadable() async throws {
        let develop = try await Kind.folder.develop()
        let store = try #require(develop.store as? FolderStore)
        try Scratch.write("{\"commit\": \"main\"}", to: store.root.appendingPathComponent("develop/.promoted.json"))
        let read = await PromotedHead.read(develop: develop)
        #expect(read.record == nil && read.problem?.contains("is not a promotion record") == true, "\(read)")
        let (history, commits) = try Self.history()
        let query = ChangeQuery()
        let caught = query.catchUp(read, start: commits[1], head: commits[2], history: history)
        #expect(caught.base == nil)
        #expect(caught.note?.hasPrefix("develop's promotion record cannot be read") == true, "\(caught)")
    }

    @Test(
        "the catch-up: from the record when it is an ancestor of the push's start; not past the limit or off the branch"
    )
    func catchUp() async throws {
        let (history, commits) = try Self.history()
        let query = ChangeQuery()
        func read(_ commit: String) -> PromotedHead.Read {
            PromotedHead.Read(record: PromotedHead(commit: commit, at: "", run: nil))
        }
        let caught = query.catchUp(read(commits[0]), start: commits[1], head: commits[2], history: history)
        #expect(caught.base == commits[0])
        #expect(caught.note?.contains("1 commit before \(commits[1].prefix(12)) whose promotion never ran") == true)
        // Nothing to catch up: the record is where the push began, or past it.
        #expect(query.catchUp(read(commits[1]), start: commits[1], head: commits[2], history: history) == (nil, nil))
        #expect(query.catchUp(read(commits[2]), start: commits[1], head: commits[2], history: history) == (nil, nil))
        // A gap longer than the limit: compared as before, with the command that promotes the gap.
        var short = ChangeQuery()
        short.catchUpLimit = 1
        let far = short.catchUp(read(commits[0]), start: commits[2], head: commits[2], history: history)
        #expect(far.base == nil, "\(far)")
        #expect(
            far.note?.hasSuffix(
                "pipeline refs promote --base \(commits[0].prefix(12)) --head \(commits[2].prefix(12))") == true,
            "\(far)")
        // A commit of no branch here: named, compared as before.
        let stranger = String(repeating: "ab", count: 20)
        let lost = query.catchUp(read(stranger), start: commits[1], head: commits[2], history: history)
        #expect(lost.base == nil && lost.note?.contains("is not in this branch's history") == true, "\(lost)")
    }
}
