import Foundation
import Testing

@testable import GitChanges

@Suite("Change detection on real repositories")
struct ChangeDetectorTests {
    private func changes(
        _ repository: TestRepository, _ comparison: Comparison = .merge(head: "HEAD"),
        pattern: String = "*Tests"
    ) throws(GitError) -> ChangeSet {
        try ChangeDetector(repositoryPath: repository.path, testPattern: pattern).changes(comparison)
    }

    /// A feature branch that edits a test and its references, merged into develop with a merge commit.
    private func mergedFeature() throws -> TestRepository {
        let repository = try TestRepository.package()
        try repository.git("checkout", "-q", "-b", "feature/avatar")
        try repository.write([
            "Tests/ProfileTests/ProfileViewTests.swift": "final class ProfileViewTests { func testNew() {} }\n",
            "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_avatar.1.png": "png avatar v2",
            "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_new.1.png": "png new",
            "Sources/App/Avatar.swift": "struct Avatar {}\n",
        ])
        try repository.commit("avatar")
        try repository.git("checkout", "-q", "develop")
        try repository.write(["README.md": "develop moved on\n"])
        try repository.commit("docs on develop")
        try repository.git("merge", "-q", "--no-ff", "-m", "Merge feature/avatar", "feature/avatar")
        return repository
    }

    @Test(
        "a folder's files at a commit, read from the object database: nested ones too; none for a missing folder or a file"
    )
    func filesAtCommit() throws {
        let repository = try mergedFeature()
        try repository.write(["Tests/ProfileTests/__Snapshots__/ProfileViewTests/nested/deep.txt": "deep"])
        try repository.commit("nested")
        let history = try CommitHistory(repositoryPath: repository.path)
        let folder = "Tests/ProfileTests/__Snapshots__/ProfileViewTests"
        let head = try history.files(in: folder, at: "HEAD")
        #expect(
            head.mapValues { String(decoding: $0, as: UTF8.self) } == [
                "test_avatar.1.png": "png avatar v2", "test_new.1.png": "png new", "nested/deep.txt": "deep",
            ])
        #expect(try history.files(in: folder, at: "HEAD~1").keys.sorted() == ["test_avatar.1.png", "test_new.1.png"])
        #expect(try history.files(in: "Tests/NoSuchFolder", at: "HEAD").isEmpty)
        #expect(try history.files(in: "Sources/App/Avatar.swift", at: "HEAD").isEmpty, "a file is not a folder")
        #expect(throws: GitError.self) { try history.files(in: folder, at: "no-such-branch") }
    }

    @Test("a merge commit against its first parent: exactly the branch's changes, classified")
    func mergeCommit() throws {
        let repository = try mergedFeature()
        let result = try changes(repository)
        #expect(result.head == (try repository.sha("HEAD")))
        #expect(result.base == (try repository.sha("HEAD^1")))
        #expect(result.headIsMerge)
        #expect(
            result.files == [
                ChangedFile(path: "Sources/App/Avatar.swift", status: .added),
                ChangedFile(path: "Tests/ProfileTests/ProfileViewTests.swift", status: .modified),
                ChangedFile(
                    path: "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_avatar.1.png", status: .modified),
                ChangedFile(path: "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_new.1.png", status: .added),
            ])
        #expect(
            result.testTargets == [
                ChangedFolder(
                    name: "ProfileTests", path: "Tests/ProfileTests", status: .modified, oldPath: nil, files: 3)
            ])
        #expect(
            result.testFiles == [
                ChangedTestFile(
                    name: "ProfileViewTests", path: "Tests/ProfileTests/ProfileViewTests.swift",
                    status: .modified, oldPath: nil, oldName: nil)
            ])
        #expect(
            result.referenceFolders == [
                ChangedFolder(
                    name: "ProfileViewTests", path: "Tests/ProfileTests/__Snapshots__/ProfileViewTests",
                    status: .modified, oldPath: nil, files: 2)
            ])
        #expect(result.promotable == ["ProfileViewTests"])
        #expect(result.other == [ChangedFile(path: "Sources/App/Avatar.swift", status: .added)])
        #expect(Set(result.files.map(\.path)) == (try repository.gitDiffNames("HEAD^1", "HEAD")))
    }

    @Test("a fast-forward merge is compared as a range, and HEAD alone against its parent")
    func fastForward() throws {
        let repository = try TestRepository.package()
        let before = try repository.sha("HEAD")
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.write(["Tests/AppTests/__Snapshots__/SampleVCTests/test_a.1.png": "png a2"])
        try repository.commit("one")
        try repository.write(["Tests/AppTests/SampleVCTests.swift": "final class SampleVCTests { }\n"])
        try repository.commit("two")
        try repository.git("checkout", "-q", "develop")
        try repository.git("merge", "-q", "--ff-only", "feature")
        let range = try changes(repository, .range(base: before, head: "HEAD"))
        #expect(!range.headIsMerge)
        #expect(range.promotable == ["SampleVCTests"])
        #expect(range.files.count == 2)
        let last = try changes(repository)
        #expect(last.files == [ChangedFile(path: "Tests/AppTests/SampleVCTests.swift", status: .modified)])
    }

    @Test("an octopus merge against its first parent includes every merged branch")
    func octopus() throws {
        let repository = try TestRepository.package()
        for (branch, path) in [
            ("a", "Tests/AppTests/__Snapshots__/SampleVCTests/test_a.1.png"),
            ("b", "Tests/ProfileTests/__Snapshots__/ProfileViewTests/test_avatar.1.png"),
        ] {
            try repository.git("checkout", "-q", "-b", branch, "develop")
            try repository.write([path: "changed on \(branch)"])
            try repository.commit(branch)
        }
        try repository.git("checkout", "-q", "develop")
        try repository.git("merge", "-q", "--no-ff", "-m", "octopus", "a", "b")
        #expect(try repository.git("rev-list", "--parents", "-n1", "HEAD").split(separator: " ").count == 4)
        let result = try changes(repository)
        #expect(result.headIsMerge)
        #expect(result.promotable == ["ProfileViewTests", "SampleVCTests"])
        #expect(result.referenceFolders.map(\.status) == [.modified, .modified])
    }

    @Test("a test file renamed across test targets keeps its old path")
    func renameAcrossTargets() throws {
        let repository = try TestRepository.package()
        try repository.git("mv", "Tests/AppTests/SampleVCTests.swift", "Tests/ProfileTests/SampleVCTests.swift")
        try repository.commit("move")
        let result = try changes(repository)
        #expect(
            result.files == [
                ChangedFile(
                    path: "Tests/ProfileTests/SampleVCTests.swift", status: .renamed,
                    oldPath: "Tests/AppTests/SampleVCTests.swift")
            ])
        #expect(result.testFiles.first?.oldName == "SampleVCTests")
        #expect(result.testTargets.map(\.path) == ["Tests/AppTests", "Tests/ProfileTests"])
        #expect(result.testTargets.map(\.status) == [.modified, .modified])
        #expect(
            try repository.gitDiffNames("HEAD^", "HEAD")
                == ["Tests/AppTests/SampleVCTests.swift", "Tests/ProfileTests/SampleVCTests.swift"])
    }

    @Test(
        "renames are paired like git diff -M: identical content (empty files too), edited content, but not new content")
    func renamesLikeGit() throws {
        let repository = try TestRepository.package()
        let body = (1...40).map { "line \($0) of a test file that is long enough to compare" }.joined(separator: "\n")
        try repository.write([
            "Docs/guide.md": body, "Docs/notes.md": body + "\nnotes", "Docs/keep": "",
            "Docs/rewritten.txt": (1...40).map { "an old text \($0)" }.joined(separator: "\n"),
        ])
        try repository.commit("docs")
        try repository.remove("Docs/guide.md", "Docs/notes.md", "Docs/keep", "Docs/rewritten.txt")
        try repository.write([
            "Guide/guide.md": body,  // identical content
            "Guide/notes.md": body + "\nnotes, edited\nand more",  // a rename with an edit
            "Guide/keep": "",  // identical, and empty
            "Guide/new.txt": (1...40).map { "entirely new \($0)" }.joined(separator: "\n"),
        ])
        try repository.commit("move docs")
        let result = try changes(repository)
        let listed = result.files.map {
            [$0.status.letter, $0.oldPath, $0.path].compactMap { $0 }.joined(separator: "\t")
        }
        let git = try repository.git("diff", "-M", "--name-status", "HEAD^", "HEAD").split(separator: "\n")
            .map { String($0.replacing(#/^R\d+/#, with: "R")) }
        #expect(listed == git)
        #expect(
            listed == [
                "D\tDocs/rewritten.txt", "R\tDocs/guide.md\tGuide/guide.md", "R\tDocs/keep\tGuide/keep",
                "A\tGuide/new.txt", "R\tDocs/notes.md\tGuide/notes.md",
            ])
    }

    @Test("a whole test target renamed is one renamed folder")
    func targetRenamed() throws {
        let repository = try TestRepository.package()
        try repository.git("mv", "Tests/ProfileTests", "Tests/AccountTests")
        try repository.commit("rename target")
        let result = try changes(repository)
        #expect(
            result.testTargets == [
                ChangedFolder(
                    name: "AccountTests", path: "Tests/AccountTests", status: .renamed,
                    oldPath: "Tests/ProfileTests", files: 2)
            ])
        #expect(result.referenceFolders.map(\.status) == [.renamed])
    }

    @Test("deleting a whole test target marks the target and its references deleted")
    func targetDeleted() throws {
        let repository = try TestRepository.package()
        try repository.remove("Tests/AppTests")
        try repository.commit("drop AppTests")
        let result = try changes(repository)
        #expect(
            result.testTargets == [
                ChangedFolder(
                    name: "AppTests", path: "Tests/AppTests", status: .deleted,
                    oldPath: nil, files: 4)
            ])
        #expect(result.referenceFolders.map(\.status) == [.deleted])
        #expect(result.testFiles.map(\.status) == [.deleted])
        #expect(result.promotable == ["SampleVCTests"])
    }

    @Test("reference changes without source changes are promotable")
    func snapshotsOnly() throws {
        let repository = try TestRepository.package()
        try repository.write(["Tests/AppTests/__Snapshots__/SampleVCTests/test_b.1.png": "re-recorded"])
        try repository.commit("re-record")
        let result = try changes(repository)
        #expect(result.testFiles.isEmpty)
        #expect(result.promotable == ["SampleVCTests"])
        #expect(result.testTargets.map(\.name) == ["AppTests"])
        #expect(result.other.isEmpty)
    }

    @Test("non-ASCII and space-containing paths come back as written")
    func unicodePaths() throws {
        let repository = try TestRepository.package()
        let japanese = "Tests/AppTests/__Snapshots__/SampleVCTests/test_初期起動時.1.png"
        let spaced = "Tests/My App Tests/__Snapshots__/Menu Tests/test one.1.png"
        try repository.write([japanese: "画像", spaced: "x", "Tests/My App Tests/Menu Tests.swift": "x"])
        try repository.commit("unicode")
        let result = try changes(repository)
        #expect(Set(result.files.map(\.path)) == [japanese, spaced, "Tests/My App Tests/Menu Tests.swift"])
        #expect(Set(result.files.map(\.path)) == (try repository.gitDiffNames("HEAD^", "HEAD")))
        #expect(result.promotable == ["Menu Tests", "SampleVCTests"])
        #expect(result.testTargets.map(\.path) == ["Tests/AppTests", "Tests/My App Tests"])
    }

    @Test("a submodule is a changed gitlink, not descended into")
    func submodule() throws {
        let library = try TestRepository()
        try library.write(["Tests/LibTests/LibTests.swift": "x"])
        try library.commit("library")
        let repository = try TestRepository.package()
        try repository.git("submodule", "add", "-q", library.path, "Vendor/Lib")
        try repository.commit("add submodule")
        let result = try changes(repository)
        #expect(result.files.contains(ChangedFile(path: "Vendor/Lib", status: .added, submodule: true)))
        #expect(!result.files.contains { $0.path.hasPrefix("Vendor/Lib/") })
        #expect(result.testTargets.isEmpty)
    }

    @Test("a detached HEAD is compared like any commit")
    func detachedHead() throws {
        let repository = try mergedFeature()
        try repository.git("checkout", "-q", "--detach", "HEAD")
        #expect(try changes(repository).promotable == ["ProfileViewTests"])
    }

    @Test("a bare repository is read too")
    func bare() throws {
        let source = try mergedFeature()
        let bare = TestRepository(
            existing: FileManager.default.temporaryDirectory.appendingPathComponent("bare-\(UUID())"))
        _ = try TestRepository.run(["git", "clone", "-q", "--bare", source.path, bare.path], in: source.root)
        #expect(try changes(bare).promotable == ["ProfileViewTests"])
    }

    @Test("the root commit is compared with the empty tree")
    func rootCommit() throws {
        let repository = try TestRepository.package()
        let result = try changes(repository)
        #expect(result.base == nil)
        #expect(result.files.count == 8)
        #expect(result.files.allSatisfy { $0.status == .added })
        #expect(result.testTargets.map(\.status) == [.added, .added])
    }

    @Test("merge-base: what the feature branch added since it branched, ignoring develop's own changes")
    func mergeBase() throws {
        let repository = try TestRepository.package()
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.write(["Tests/AppTests/SampleVCTests.swift": "feature change"])
        try repository.commit("feature")
        try repository.git("checkout", "-q", "develop")
        try repository.write(["Tests/ProfileTests/ProfileViewTests.swift": "develop change"])
        try repository.commit("develop")
        let result = try changes(repository, .mergeBase(base: "develop", head: "feature"))
        #expect(
            result.base
                == (try repository.git("merge-base", "develop", "feature")
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(result.promotable == ["SampleVCTests"])
        #expect(Set(result.files.map(\.path)) == (try repository.gitDiffNames("develop...feature")))
        #expect(Set(result.files.map(\.path)) == ["Tests/AppTests/SampleVCTests.swift"])
    }

    @Test("an empty merge has no changes and is not an error")
    func emptyMerge() throws {
        let repository = try TestRepository.package()
        try repository.git("checkout", "-q", "-b", "noop")
        try repository.commit("nothing")
        try repository.git("checkout", "-q", "develop")
        try repository.commit("also nothing")
        try repository.git("merge", "-q", "--no-ff", "-m", "merge noop", "noop")
        let result = try changes(repository)
        #expect(result.isEmpty)
        #expect(result.headIsMerge)
    }

    @Test("revisions as people write them: tags, short SHAs, HEAD~n, branch names")
    func revisions() throws {
        let repository = try mergedFeature()
        try repository.git("tag", "v1", "HEAD^1")
        let short = String(try repository.sha("HEAD^1").prefix(7))
        for base in ["v1", short, "HEAD~1", "HEAD^1"] {
            #expect(try changes(repository, .range(base: base, head: "HEAD")).promotable == ["ProfileViewTests"])
        }
        #expect(try changes(repository, .range(base: "develop~1", head: "feature/avatar")).files.count > 0)
    }

    @Test(
        "a shallow clone fetches the history it lacks from origin; one that cannot says so and how to fix it, never 'object not found'"
    )
    func shallow() throws {
        let source = try mergedFeature()
        let fetching = TestRepository(
            existing: FileManager.default.temporaryDirectory.appendingPathComponent("shallow-\(UUID())"))
        _ = try TestRepository.run(
            ["git", "clone", "-q", "--depth", "1", "file://" + source.path, fetching.path], in: source.root)
        #expect(try changes(fetching).files.count > 0, "the merge's parent fetched from origin")
        #expect(!FileManager.default.fileExists(atPath: fetching.path + "/.git/shallow"), "no longer shallow")

        let clone = TestRepository(
            existing: FileManager.default.temporaryDirectory.appendingPathComponent("shallow-\(UUID())"))
        _ = try TestRepository.run(
            ["git", "clone", "-q", "--depth", "1", "file://" + source.path, clone.path], in: source.root)
        _ = try TestRepository.run(
            ["git", "-C", clone.path, "remote", "set-url", "origin", "file:///nonexistent/repository"], in: source.root)
        #expect(throws: GitError.self) { try changes(clone) }
        do {
            _ = try changes(clone)
        } catch {
            guard case .shallowClone = error else {
                Issue.record("expected a shallow-clone error, got \(error)")
                return
            }
            #expect(error.description.hasPrefix("shallow clone: parent 1 of commit "))
            #expect(error.description.contains("git fetch --deepen=1"))
            #expect(error.description.contains("fetching it from origin failed"))
            #expect(!error.description.contains("object not found"))
        }
        do {
            _ = try changes(clone, .mergeBase(base: "HEAD", head: "origin/develop~1"))
            Issue.record("a revision beyond the shallow boundary resolved")
        } catch {
            #expect(error.description.contains("origin/develop~1"))
        }
    }

    @Test(
        "a repository owned by another user says so and how to trust it",
        .enabled(if: getuid() == 0, "changing a folder's owner needs root"))
    func ownedByAnotherUser() throws {
        let repository = try TestRepository.package()
        _ = try TestRepository.run(["chown", "-R", "nobody", repository.path], in: repository.root)
        #expect(throws: GitError.notOwned(path: repository.path)) { try changes(repository) }
        #expect(GitError.notOwned(path: "/r").description.contains("git config --global --add safe.directory /r"))
    }

    @Test("not a repository, unknown revisions and empty repositories are named plainly")
    func badInput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-repo-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: GitError.notARepository(path: folder.path)) {
            try ChangeDetector(repositoryPath: folder.path).changes(.merge(head: "HEAD"))
        }
        let repository = try TestRepository.package()
        do {
            _ = try changes(repository, .range(base: "no-such-branch", head: "HEAD"))
            Issue.record("an unknown revision resolved")
        } catch {
            #expect(error.description.hasPrefix("unknown revision 'no-such-branch'"))
            #expect(!error.description.contains("git fetch"), "a local name gets no fetch hint")
        }
        // GitHub's pull-request checkout fetches the merge only: no origin/develop.
        do {
            _ = try changes(repository, .mergeBase(base: "origin/develop", head: "HEAD"))
            Issue.record("origin/develop resolved in a repository with no remote")
        } catch {
            #expect(
                error.description.hasSuffix(
                    "; this checkout has not fetched it: 'git fetch origin develop:refs/remotes/origin/develop' "
                        + "(in GitHub Actions, 'fetch-depth: 0' on actions/checkout fetches every branch)"),
                "\(error.description)")
        }
        let empty = try TestRepository()
        #expect(throws: GitError.noCommits(path: empty.path)) { try changes(empty) }
    }
}
