import CISystem
import Foundation
import GitChanges
import TestSupport
import Testing

@testable import References

/// What a merge queue's check keeps (CI's candidates) is keyed by the pull request's branch head,
/// never by the queue's commit, which no branch has: so the accept command it prints works on
/// the branch. Played on a real repository whose branches are fetched as `origin/*`, as the
/// checkout of a `merge_group` run with `fetch-depth: 0` has them.
@Suite("the merge queue's entry: candidates keyed by its pull request's branch head")
struct MergeQueueKeyTests {
    /// develop, two branches cut from it (`brand` changes a view, `welcome` adds a test), the
    /// branches as a checkout fetches them, and the queue's two entries: `brand` squashed onto
    /// develop, then `welcome` squashed onto that. Returns the folder, the heads and the entries.
    private func queue() throws -> (root: URL, brand: String, welcome: String, entries: [String]) {
        let root = try Scratch.folder("merge-queue")
        func git(_ arguments: String...) throws -> String {
            try Scratch.git(root, arguments: arguments)
        }
        try Scratch.write("let primary = 1\n", to: root.appendingPathComponent("Sources/App/View.swift"))
        try Scratch.write("// login\n", to: root.appendingPathComponent("Tests/AppTests/LoginTests.swift"))
        _ = try git("init", "-q", "-b", "develop")
        _ = try git("add", "-A")
        _ = try git("commit", "-q", "-m", "app")
        _ = try git("checkout", "-q", "-b", "brand")
        try Scratch.write("let primary = 2\n", to: root.appendingPathComponent("Sources/App/View.swift"))
        _ = try git("commit", "-q", "-am", "brand")
        _ = try git("checkout", "-q", "-b", "welcome", "develop")
        try Scratch.write("// welcome\n", to: root.appendingPathComponent("Tests/AppTests/WelcomeTests.swift"))
        _ = try git("add", "-A")
        _ = try git("commit", "-q", "-m", "welcome")
        for branch in ["develop", "brand", "welcome"] {
            _ = try git("update-ref", "refs/remotes/origin/\(branch)", branch)
        }
        var entries: [String] = []
        for branch in ["brand", "welcome"] {
            _ = try git("checkout", "-q", "--detach", entries.last ?? "develop")
            _ = try git("merge", "-q", "--squash", branch)
            _ = try git("commit", "-q", "-m", "\(branch) (#\(entries.count + 1))")
            entries.append(try git("rev-parse", "HEAD"))
            _ = try git(
                "update-ref", "refs/remotes/origin/gh-readonly-queue/develop/pr-\(entries.count)-\(entries.last!)",
                "HEAD")
        }
        return (root, try git("rev-parse", "brand"), try git("rev-parse", "welcome"), entries)
    }

    private func context(pullRequest: Int, entry: String, in root: URL) throws -> CIContext {
        let event = root.appendingPathComponent("event.json")
        try Scratch.write(
            #"{"merge_group": {"head_sha": "\#(entry)", "head_ref": "refs/heads/gh-readonly-queue/develop/pr-\#(pullRequest)-\#(entry)"}}"#,
            to: event)
        return CIContext([
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "merge_group", "GITHUB_EVENT_PATH": event.path,
            "GITHUB_SHA": entry,
        ])
    }

    @Test("each stacked entry's candidates go under its own branch's head, saying which pull request")
    func stackedEntries() throws {
        let (root, brand, welcome, entries) = try queue()
        defer { try? FileManager.default.removeItem(at: root) }
        let history = try CommitHistory(repositoryPath: root.path)
        for (index, head) in [brand, welcome].enumerated() {
            let ci = try context(pullRequest: index + 1, entry: entries[index], in: root)
            #expect(ci.mergeQueueEntry?.pullRequest == index + 1 && ci.mergeQueueEntry?.base == "develop")
            let key = BranchCommit.key(for: entries[index], history: history, ci: ci)
            #expect(key.commit == head, "entry \(index + 1)")
            #expect(key.why?.contains("pull request #\(index + 1)") == true, "\(key.why ?? "")")
        }
        // Outside a merge queue, the commit checked out is the key.
        let push = BranchCommit.key(for: entries[1], history: history, ci: CIContext(["CI": "true"]))
        #expect(push.commit == entries[1] && push.why == nil)
    }

    @Test("an entry no fetched branch matches keeps its own commit as the key")
    func unmatched() throws {
        let (root, _, _, entries) = try queue()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try Scratch.git(root, "update-ref", "-d", "refs/remotes/origin/welcome")
        let history = try CommitHistory(repositoryPath: root.path)
        let key = BranchCommit.key(
            for: entries[1], history: history, ci: try context(pullRequest: 2, entry: entries[1], in: root))
        #expect(key.commit == entries[1] && key.why == nil)
    }
}
