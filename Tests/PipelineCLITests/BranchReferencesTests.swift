import Foundation
import References
import TestSupport
import Testing

/// Pull requests open side by side that change the same test's references: feature keeps each
/// push under its commit, a merge promotes exactly its own branch's files, and a later merge's
/// references are never overwritten by an earlier one.
@Suite("branches side by side: neither loses its references", .serialized)
struct BranchReferencesTests {
    static let folder = SnapshotRepository.snapshots + "/LoginTests"
    static let login = folder + "/test_login.1.png"
    static let other = folder + "/test_other.1.png"

    /// develop holds LoginTests' two references (login, other) and ProfileTests', kept only in
    /// storage (unless `committed`, when git holds them too).
    private func repository(_ backend: RefsBackend, committed: Bool = false) async throws -> SnapshotRepository {
        let repo = try SnapshotRepository(references: try await backend.references())
        try repo.write(Self.other, "other v1")
        try repo.commitAll("a second reference")
        if !committed { try repo.keepReferencesOutOfGit() }
        #expect(try repo.pipeline("refs", "push", "LoginTests", "ProfileTests").status == 0)
        if committed {
            // References in git are promoted file by file as merges change them: start develop with all of them.
            #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes").status == 0)
        } else {
            let first = try repo.report("refs", "promote", "LoginTests", "ProfileTests")
            #expect((first["copied"] as? [String])?.count == 3, "\(first)")
        }
        return repo
    }

    /// A branch cut from develop that writes `files` (path → content) and pushes `pushes`.
    private func branch(
        _ name: String, in repo: SnapshotRepository, files: [String: String], pushes: [String] = ["LoginTests"]
    ) throws {
        try repo.git("reset", "-q", "--hard")
        try repo.git("checkout", "-q", "develop")
        try repo.git("checkout", "-q", "-b", name)
        if repo.read(".gitignore")?.contains("__Snapshots__") == true {
            // References only in storage: the branch starts from develop's, as a fresh checkout pulls them.
            let pulled = try PipelineBinary.run(["refs", "pull"], in: repo.root, environment: RefsBackend.environment)
            #expect(pulled.status == 0, "\(pulled.stderr)")
        }
        for (path, content) in files { try repo.write(path, content) }
        try repo.commitAll(name)
        if !pushes.isEmpty {
            let pushed = try PipelineBinary.run(
                ["refs", "push"] + pushes, in: repo.root, environment: RefsBackend.environment)
            #expect(pushed.status == 0, "\(pushed.stderr)")
        }
    }

    private func merge(_ name: String, in repo: SnapshotRepository) throws -> String {
        try repo.git("reset", "-q", "--hard")  // what the pulls wrote
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge \(name)", "-X", "theirs", name)
        return try repo.sha()
    }

    /// What develop holds of LoginTests, read back through a pull.
    private func developLogin(_ repo: SnapshotRepository) throws -> (login: String?, other: String?) {
        let pulled = try repo.pipeline("refs", "pull", "LoginTests")
        #expect(pulled.status == 0, "\(pulled.stderr)")
        return (repo.read(Self.login), repo.read(Self.other))
    }

    @Test(
        "two branches change one test: each merge promotes its own files; the other branch's push survives",
        arguments: RefsBackend.available)
    func sameTest(backend: RefsBackend) async throws {
        let repo = try await repository(backend)
        // a changes both references and the test file; b changes one reference and pushes after a.
        try branch(
            "feature-a", in: repo,
            files: ["Tests/AppTests/LoginTests.swift": "// login a\n", Self.login: "login a", Self.other: "other a"])
        try branch(
            "feature-b", in: repo, files: ["Tests/AppTests/LoginTests.swift": "// login b\n", Self.login: "login b"])
        let featureB = try repo.sha()

        let mergeA = try merge("feature-a", in: repo)
        let promotedA = try repo.report("refs", "promote")
        #expect(promotedA["tests"] as? [String] == ["LoginTests"])
        #expect(promotedA["copied"] as? [String] == ["LoginTests/test_login.1.png", "LoginTests/test_other.1.png"])
        #expect(try developLogin(repo) == ("login a", "other a"), "develop holds a's references, not b's")

        // b's references survive in feature, under b's commit.
        let review = try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", featureB)
        #expect(review.status == 0, "\(review.stderr)")
        #expect(repo.read(Self.login) == "login b")
        #expect(repo.read(Self.other) == "other v1", "b's push as b made it")

        let mergeB = try merge("feature-b", in: repo)
        let promotedB = try repo.report("refs", "promote")
        #expect(promotedB["copied"] as? [String] == ["LoginTests/test_login.1.png"], "b changed one file")
        #expect(try developLogin(repo) == ("login b", "other a"), "b's change, and a's where b changed nothing")

        // a's job, late: it overwrites nothing b's later merge promoted.
        let late = try repo.report("refs", "promote", "--base", "\(mergeA)^1", "--head", mergeA)
        #expect(
            (late["copied"] as? [String]) == ["LoginTests/test_other.1.png"]
                || (late["copied"] as? [String])?.isEmpty == true)
        let kept = (late["notOverwritten"] as? [[String: String]]) ?? []
        #expect(kept.map { $0["key"] } == ["LoginTests/test_login.1.png"])
        #expect(kept.first?["commit"] == mergeB)
        #expect(try developLogin(repo) == ("login b", "other a"))
    }

    @Test(
        "a view change pushed by two branches (test files untouched): the first merge promotes its own push",
        arguments: RefsBackend.available)
    func viewOnly(backend: RefsBackend) async throws {
        let repo = try await repository(backend)
        try branch("view-c", in: repo, files: ["Sources/App/View.swift": "// c\n", Self.login: "login c"])
        try branch("view-d", in: repo, files: ["Sources/App/View.swift": "// d\n", Self.login: "login d"])
        _ = try merge("view-c", in: repo)
        let result = try repo.pipeline("refs", "promote", "--json")
        #expect(result.stderr.contains("promote: 1/1 objects"), "progress as objects are done: \(result.stderr)")
        let promoted = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(promoted["tests"] as? [String] == ["LoginTests"])
        #expect(promoted["pushed"] as? [String] == ["LoginTests"])
        #expect(try developLogin(repo).login == "login c")
    }

    @Test("a changed test with no push from the merge's commits is named, and nothing is promoted for it")
    func notPushed() async throws {
        let repo = try await repository(.folder)
        try branch(
            "no-push", in: repo, files: ["Tests/AppTests/LoginTests.swift": "// changed\n", Self.login: "login n"],
            pushes: [])
        _ = try merge("no-push", in: repo)
        let result = try repo.pipeline("refs", "promote")
        #expect(result.status == 0)
        #expect(
            result.stdout.contains("LoginTests: changed by this merge, but no references were pushed from its commits"),
            "\(result.stdout)")
        #expect(try developLogin(repo).login == "login v1")
    }

    @Test(
        "references committed in git: a merge promotes what it changed in git, from the merge commit itself, whatever feature holds",
        arguments: RefsBackend.available)
    func committed(backend: RefsBackend) async throws {
        let repo = try await repository(backend, committed: true)
        try branch("feature-a", in: repo, files: [Self.login: "login a"], pushes: [])
        try branch("feature-b", in: repo, files: [Self.login: "login b"])
        let featureB = try repo.sha()

        let mergeA = try merge("feature-a", in: repo)
        let preview = try repo.report("refs", "promote", "--dry-run")
        #expect(preview["committed"] as? [String] == ["LoginTests"])
        #expect(preview["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        if backend == .folder {
            let kept = RecordFiles.find(
                "\(PushArchive.pushesFolder)/\(mergeA)", of: repo.root.appendingPathComponent("store/feature"))
            #expect(kept == nil, "a dry run writes nothing")
        }
        let promotedA = try repo.report("refs", "promote")
        #expect(promotedA["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect((promotedA["pushCommits"] as? [String: String])?["LoginTests"] == mergeA, "from the merge commit")
        #expect(try developLogin(repo) == ("login a", "other v1"), "git's, not feature's latest copy (b's)")
        let review = try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", featureB)
        #expect(review.status == 0, "\(review.stderr)")
        #expect(repo.read(Self.login) == "login b", "b's push survives in feature")

        // b merges (git resolves to b's image); then c removes a reference in git.
        _ = try merge("feature-b", in: repo)
        #expect(try repo.report("refs", "promote")["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect(try developLogin(repo) == ("login b", "other v1"))
        try repo.git("reset", "-q", "--hard")
        try repo.git("checkout", "-q", "-b", "feature-c")
        try repo.git("rm", "-q", Self.other)
        try repo.commitAll("c")
        _ = try merge("feature-c", in: repo)
        let promotedC = try repo.report("refs", "promote", "--prune")
        #expect((promotedC["copied"] as? [String])?.isEmpty == true)
        #expect(promotedC["deleted"] as? [String] == ["LoginTests/test_other.1.png"])
        #expect(try developLogin(repo) == ("login b", nil))

        // A merge that changes the test file only: its references committed in git did not change.
        try branch("feature-d", in: repo, files: ["Tests/AppTests/LoginTests.swift": "// d\n"], pushes: [])
        _ = try merge("feature-d", in: repo)
        let promotedD = try repo.report("refs", "promote")
        #expect((promotedD["copied"] as? [String])?.isEmpty == true)
        #expect(
            (promotedD["skipped"] as? [String: String])?["LoginTests"]
                == "its references are committed in git, and this merge did not change them")
    }
}

@Suite("pipeline refs prune: feature's kept pushes")
struct PruneTests {
    @Test("pushes a promotion took in are removed, an open branch's is kept until it is old; latest copies stay")
    func prune() async throws {
        let repo = try SnapshotRepository(references: try await RefsBackend.folder.references())
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        let initial = try repo.sha()
        #expect(try repo.pipeline("refs", "promote", "LoginTests").status == 0)
        try repo.git("checkout", "-q", "-b", "open-branch")
        try repo.write(BranchReferencesTests.login, "login open")
        try repo.commitAll("open")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        let open = try repo.sha()
        let feature = repo.root.appendingPathComponent("store/feature")
        func pushed(_ path: String) -> Bool { RecordFiles.find(".pushes/" + path, of: feature) != nil }
        #expect(pushed(initial))

        let merged = try PipelineBinary.run(
            ["refs", "prune", "--json"], in: repo.root, environment: RefsBackend.environment)
        #expect(merged.status == 0, "\(merged.stderr)")
        let removed = try #require(
            try JSONSerialization.jsonObject(with: Data(merged.stdout.utf8)) as? [[String: String]])
        #expect(removed.map { $0["commit"] } == [initial])
        #expect(removed.first?["reason"]?.hasPrefix("merged and promoted by") == true)
        #expect(!pushed("\(initial)/LoginTests"))
        #expect(pushed("\(open)/LoginTests"))

        let young = try repo.pipeline("refs", "prune", "--older-than", "30d")
        #expect(young.stdout.contains("removed 0 kept push(es)"), "\(young.stdout)")
        let old = try repo.pipeline("refs", "prune", "--older-than", "0s")
        #expect(old.stdout.contains("LoginTests \(open.prefix(12)): pushed"), "\(old.stdout)")
        #expect(!pushed("\(open)/LoginTests"))
        #expect(repo.read(BranchReferencesTests.login) == "login open")
        #expect(
            FileManager.default.fileExists(
                atPath: repo.root.appendingPathComponent("store/feature/LoginTests/test_login.1.png").path),
            "the latest copy stays")
    }
}
