import Foundation
import Testing

@testable import GitChanges

/// A change recognised after a squash or a rebase gave it other commits: line multisets per file,
/// read from real repositories.
@Suite("Change identity: a branch's change found in a squash, a rebase, or not at all")
struct ChangeIdentityTests {
    @Test("lines as multisets: order, line numbers and trailing whitespace do not count; repeats do")
    func multisets() {
        let old = Array("a\nb\nc\n".utf8)
        let change = ChangeIdentity.textChange(old: old, new: Array("c\nb  \na\nd\nd\n\n".utf8))
        #expect(change.removed.isEmpty)
        #expect(change.added.count == 2 && change.added[0] == change.added[1], "d twice, the blank line left out")
        let once = ChangeIdentity(files: ["f": ChangeIdentity.textChange(old: old, new: Array("a\nb\nc\nd\n".utf8))])
        let twice = ChangeIdentity(files: ["f": change])
        #expect(once.isContained(in: twice))
        #expect(!twice.isContained(in: once), "two added lines are not contained in one")
        #expect(!ChangeIdentity().isContained(in: twice), "an empty change proves nothing")
        #expect(!once.isContained(in: ChangeIdentity(files: ["g": change])), "another file")
        #expect(ChangeIdentity.isSubmultiset(["a", "b", "b"], of: ["a", "b", "b", "c"]))
        #expect(!ChangeIdentity.isSubmultiset(["b", "b"], of: ["a", "b", "c"]))
    }

    @Test(
        "a squash contains every commit's branch change, and a rebase replays each commit; another branch matches neither"
    )
    func squashAndRebase() throws {
        let repository = try TestRepository.package()
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.write(["Sources/App/View.swift": "struct View {\n    let colour = 1\n}\n"])
        try repository.commit("view")
        let first = try repository.sha("HEAD")
        try repository.write(["Sources/App/Fix.swift": "let fix = true\n", "icon.png": "\u{0}png"])
        try repository.commit("fix")
        let head = try repository.sha("HEAD")
        try repository.git("checkout", "-q", "develop")
        try repository.write(["README.md": "develop moved on\n"])
        try repository.commit("develop moves on")
        try repository.git("checkout", "-q", "-b", "other")
        try repository.write(["Sources/App/View.swift": "struct View {\n    let colour = 2\n}\n"])
        try repository.commit("other view")
        let other = try repository.sha("HEAD")
        try repository.git("checkout", "-q", "develop")
        try repository.git("merge", "-q", "--squash", "feature")
        try repository.commit("feature (#1)")
        let squash = try repository.sha("HEAD")

        let history = try CommitHistory(repositoryPath: repository.path)
        let fork = try #require(try history.forkPoint(of: head, integration: ["origin/develop", "develop~1"]))
        #expect(try history.isAncestor(fork, of: first) == true && fork != first)
        let merged = try history.changeIdentity(from: "\(squash)~1", to: squash)
        #expect(try history.changeIdentity(from: fork, to: first).isContained(in: merged), "the first commit's")
        #expect(try history.changeIdentity(from: fork, to: head).isContained(in: merged), "the head's")
        #expect(merged.files["icon.png"]?.blob?.count == 40, "a binary file by its content")
        #expect(!(try history.changeIdentity(from: fork, to: other).isContained(in: merged)), "another branch's")
        #expect(try history.commits(from: fork, to: head)?.map(\.sha) == [first, head])
        #expect(try history.firstParents(of: squash, count: 2) == [squash, try history.sha("\(squash)~1")])
        let parent = try history.sha("\(squash)~1")
        #expect(history.firstParents(of: squash, until: parent, limit: 50) == [squash], "what the push brought")
        #expect(history.firstParents(of: squash, until: nil, limit: 2) == [squash, parent], "at most the limit")
        #expect(history.firstParents(of: "no-such-branch", until: nil, limit: 5).isEmpty, "unreadable: none")
        #expect(try history.forkPoint(of: squash, integration: ["develop"]) == nil, "on the branch itself")

        try repository.git("checkout", "-q", "feature")
        try repository.git("rebase", "-q", "develop~1")
        let replayed = try history.firstParents(of: "feature", count: 2)
        for (original, replay) in zip([head, first], replayed) {
            let own = try history.changeIdentity(from: "\(original)~1", to: original)
            #expect(own.isContained(in: try history.changeIdentity(from: "\(replay)~1", to: replay)))
        }
    }
}
