import Foundation
import References
import TestSupport
import Testing

/// Every merge style, never silent: after a squash or a rebase merge (the branch's commits not in
/// develop's history), the branch's pushes and accepted renderings are found by what the branch
/// changed, and a merge whose touched tests do not get their references into develop fails,
/// naming each with its fix.
@Suite("merge styles: squash, rebase, new snapshot tests, never a stale develop with exit 0", .serialized)
struct MergeStyleTests {
    static let login = AcceptCommandTests.login
    let accept = AcceptCommandTests()

    /// Develop moves on (another merge), then `branch` is squash-merged onto it and deleted, as
    /// GitHub's squash button does: one new single-parent commit whose change is the branch's.
    private func squash(_ branch: String, in repo: SnapshotRepository) throws -> String {
        try repo.git("reset", "-q", "--hard")
        try repo.git("checkout", "-q", "develop")
        try repo.write("Sources/App/Unrelated.swift", "// another merge\n")
        try repo.commitAll("develop moves on")
        try repo.git("merge", "-q", "--squash", branch)
        try repo.git("commit", "-q", "-m", "\(branch) (#12)")
        try repo.git("branch", "-q", "-D", branch)
        return try repo.sha()
    }

    /// A promotion that must fail with exit 10: its result and the tests it names as not promoted.
    private func notPromoted(_ repo: SnapshotRepository) throws -> (PipelineBinary.Result, [[String: String]]) {
        let result = try repo.pipeline("refs", "promote", "--json")
        #expect(result.status == 10, "\(result.stdout)\(result.stderr)")
        return (result, try #require(try json(result)["notPromoted"] as? [[String: String]]))
    }

    private func json(_ result: PipelineBinary.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    @Test(
        "squash merge: the rendering accepted on the branch's first commit reaches develop; a re-run copies nothing",
        arguments: RefsBackend.available)
    func squashAccepted(backend: RefsBackend) async throws {
        let repo = try await accept.repository(backend)
        try accept.branch("view-s", in: repo)
        let first = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        #expect(try repo.pipeline("refs", "accept", "LoginTests").status == 0)
        // A review fix in another file, whose CI run passes on the accepted references.
        try repo.write("Sources/App/Fix.swift", "// review fix\n")
        try repo.commitAll("review fix")
        _ = try await accept.ciRun(repo, artifacts: [:])

        let merge = try squash("view-s", in: repo)
        let result = try repo.pipeline("refs", "promote", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let promoted = try json(result)
        #expect(promoted["tests"] as? [String] == ["LoginTests"])
        #expect(promoted["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect((promoted["pushCommits"] as? [String: String])?["LoginTests"] == first)
        #expect((promoted["pushMatches"] as? [String: String])?["LoginTests"] == "squash")
        #expect(promoted["commit"] as? String == merge)
        let human = try repo.pipeline("refs", "promote", "--dry-run")
        #expect(
            human.stdout.contains("LoginTests: the push of \(first.prefix(12)), matched by squash"), "\(human.stdout)")
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login ci", "develop holds what CI rendered on the branch")
        let again = try repo.report("refs", "promote")
        #expect((again["copied"] as? [String])?.isEmpty == true)
    }

    @Test(
        "squash merge in a post-merge job on GitHub: a kept branch change GitHub does not list as merged is passed over, named; listed, promoted"
    )
    func squashConfirmedByGitHub() async throws {
        let repo = try await accept.repository(.folder)
        let github = try GitHubAPIStub()
        try accept.branch("view-g", in: repo)
        let head = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        #expect(try repo.pipeline("refs", "accept", "LoginTests").status == 0)
        // A review fix after the accept: the pull request is merged at this later head.
        try repo.write("Sources/App/Fix.swift", "// review fix\n")
        try repo.commitAll("review fix")
        let fixed = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: [:])
        let before = try repo.sha("develop")
        let merge = try squash("view-g", in: repo)
        let event = repo.root.appendingPathComponent(".git/push-event.json")
        try Scratch.write("{\"ref\": \"refs/heads/develop\", \"before\": \"\(before)\"}", to: event)
        let postMerge = RefsBackend.environment.merging(github.variables) { $1 }.merging([
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop",
            "GITHUB_EVENT_PATH": event.path, "GITHUB_RUN_ID": "900",
        ]) { $1 }
        func promote() throws -> (PipelineBinary.Result, [String: Any]) {
            let result = try PipelineBinary.run(["refs", "promote", "--json"], in: repo.root, environment: postMerge)
            return (result, try json(result))
        }

        // GitHub lists another pull request as merged by the squash (a kept change claiming this
        // content under its own head is what it guards against): the branch change is passed over.
        try github.merged(merge, pullRequests: [(7, before)])
        let (_, refusedReport) = try promote()
        #expect(
            (refusedReport["notes"] as? [String])?.contains(
                "passed over the branch change kept for \(head.prefix(12)): it matches this comparison as a squash, "
                    + "but GitHub lists it in no pull request merged here") == true, "\(refusedReport)")
        #expect((refusedReport["copied"] as? [String])?.isEmpty ?? true, "\(refusedReport)")
        #expect(github.requests.contains("GET /repos/team/app/commits/\(merge)/pulls -> 200"), "\(github.requests)")

        // GitHub lists the branch's pull request, merged at its later head, with both commits: the
        // accepted rendering of its first commit is promoted.
        try github.merged(merge, pullRequests: [(12, fixed)], commits: [12: [head, fixed]])
        let (promoted, report) = try promote()
        #expect(promoted.status == 0, "\(promoted.stdout)\(promoted.stderr)")
        #expect(report["copied"] as? [String] == ["LoginTests/test_login.1.png"], "\(report)")
        #expect((report["pushMatches"] as? [String: String])?["LoginTests"] == "squash")
    }

    @Test("squash merge of a branch whose CI renderings nobody accepted: exit 8, naming the branch's commit")
    func squashNeverAccepted() async throws {
        let repo = try await accept.repository(.folder)
        try accept.branch("view-u", in: repo)
        let head = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        _ = try squash("view-u", in: repo)
        let result = try repo.pipeline("refs", "promote", "--json")
        #expect(result.status == 8, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("pipeline refs accept LoginTests --commit \(head)"), "\(result.stderr)")
        #expect(try json(result)["neverAccepted"] as? [String] == ["LoginTests"])
    }

    @Test("squash merge: a failure on the branch's first commit that a later commit fixed is no unaccepted rendering")
    func squashFixedLater() async throws {
        let repo = try await accept.repository(.folder)
        try accept.branch("view-f", in: repo)
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login broken"])
        try repo.write("Sources/App/Fix.swift", "// the view as it was meant\n")
        try repo.commitAll("the fix")
        _ = try await accept.ciRun(repo, artifacts: [:])
        _ = try squash("view-f", in: repo)
        let result = try repo.pipeline("refs", "promote", "--json")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect((try json(result)["neverAccepted"] as? [String])?.isEmpty ?? true)
    }

    @Test(
        "rebase merge onto a develop that moved on: the push of the branch's head is found",
        arguments: RefsBackend.available)
    func rebase(backend: RefsBackend) async throws {
        let repo = try await accept.repository(backend)
        try accept.branch("view-r", in: repo)
        try repo.write("Sources/App/Second.swift", "// second commit\n")
        try repo.commitAll("second")
        let head = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login rebased"])
        #expect(try repo.pipeline("refs", "accept", "LoginTests").status == 0)

        try repo.git("checkout", "-q", "develop")
        try repo.write("Sources/App/Unrelated.swift", "// another merge\n")
        try repo.commitAll("develop moves on")
        try repo.git("checkout", "-q", "view-r")
        try repo.git("rebase", "-q", "develop")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--ff-only", "view-r")
        #expect(try repo.sha() != head, "the rebase gave the branch's commits new ids")

        let promoted = try repo.report("refs", "promote")
        #expect(promoted["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect((promoted["pushMatches"] as? [String: String])?["LoginTests"] == "rebase")
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login rebased")
    }

    @Test("a new snapshot test whose CI rendering was accepted, merged with a merge commit: promoted")
    func newTestAcceptedMergeCommit() async throws {
        let repo = try await accept.repository(.folder)
        try repo.git("checkout", "-q", "-b", "farewell")
        try repo.write(
            "Tests/AppTests/FarewellTests.swift", "import SnapshotTesting\n// assertSnapshot(of: \"bye\", as: .lines)\n"
        )
        try repo.commitAll("a new snapshot test")
        let lines = try await accept.ciRun(repo, artifacts: ["FarewellTests/test_bye.1.txt": "bye from CI"])
        #expect(lines.contains { $0.contains("pipeline refs accept FarewellTests") }, "\(lines)")
        #expect(try repo.pipeline("refs", "accept", "FarewellTests").status == 0)
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge farewell", "farewell")
        let promoted = try repo.report("refs", "promote")
        #expect(promoted["copied"] as? [String] == ["FarewellTests/test_bye.1.txt"])
        #expect((promoted["pushMatches"] as? [String: String])?["FarewellTests"] == "ancestry")
    }

    @Test("a new snapshot test merged with no references: exit 10 naming it and the fix; after the fix, exit 0")
    func newTestWithoutReferences() async throws {
        let repo = try await accept.repository(.folder)
        let farewell = "Tests/AppTests/FarewellTests.swift"
        try repo.git("checkout", "-q", "-b", "farewell")
        try repo.write(
            farewell,
            "import SnapshotTesting\nimport XCTest\n\nfinal class FarewellTests: XCTestCase {\n"
                + "    func test_bye() { assertSnapshot(of: \"bye\", as: .lines) }\n}\n")
        try repo.commitAll("a new snapshot test")
        _ = try squash("farewell", in: repo)

        let (result, stale) = try notPromoted(repo)
        #expect(stale.map { $0["test"] } == ["FarewellTests"])
        #expect(stale.first?["fix"]?.contains("pipeline refs record FarewellTests --push") == true)
        #expect(
            result.stderr.contains("develop is stale") && result.stderr.contains("FarewellTests"), "\(result.stderr)")
        let human = try repo.pipeline("refs", "promote")
        #expect(human.status == 10)
        // The pipeline's promote stage tells the same truth, with or without --only.
        for arguments in [["run", "post-merge"], ["run", "post-merge", "--only", "promote"]] {
            let stage = try PipelineBinary.run(arguments, in: repo.root, environment: RefsBackend.environment)
            #expect(stage.status == 10, "\(arguments): \(stage.stdout)\(stage.stderr)")
            #expect((stage.stdout + stage.stderr).contains("FarewellTests"), "\(stage.stdout)")
        }
        #expect(human.stdout.contains("not promoted, so develop would be stale"), "\(human.stdout)")

        // The fix: references recorded on the merged commit and pushed, then promote again.
        try repo.write("\(repo.snapshots)/FarewellTests/test_bye.1.txt", "bye")
        #expect(try repo.pipeline("refs", "push", "FarewellTests").status == 0)
        let fixed = try repo.report("refs", "promote")
        #expect(fixed["copied"] as? [String] == ["FarewellTests/test_bye.1.txt"])
        #expect((fixed["notPromoted"] as? [Any])?.isEmpty ?? true)
    }

    @Test(
        "a squash whose branch cannot be told (no change of it kept): exit 10 with --branch-head as the fix, which works"
    )
    func unknownBranch() async throws {
        let repo = try await accept.repository(.folder)
        try repo.git("checkout", "-q", "-b", "old-push")
        try repo.write("Tests/AppTests/LoginTests.swift", "// login changed\n")
        try repo.write(Self.login, "login pushed")
        try repo.commitAll("login changed")
        let head = try repo.sha()
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        // As a push by an older pipeline, or from a clone with no integration branch: no branch change kept.
        let feature = repo.root.appendingPathComponent("store/feature")
        let change = try #require(RecordFiles.find(".changes/\(head).json", of: feature))
        try FileManager.default.removeItem(at: change.deletingLastPathComponent())
        _ = try squash("old-push", in: repo)

        let (_, stale) = try notPromoted(repo)
        #expect(stale.map { $0["test"] } == ["LoginTests"])
        #expect(stale.first?["fix"]?.contains("--branch-head") == true)

        let named = try repo.report("refs", "promote", "--branch-head", head)
        #expect(named["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect((named["pushMatches"] as? [String: String])?["LoginTests"] == "named")
    }

    @Test(
        "a CI that names no branch head keeps candidates under its synthetic merge: accept maps it to the branch's parent, or refuses (exit 8) a commit the branch does not hold"
    )
    func syntheticMergeAccept() async throws {
        let repo = try await accept.repository(.folder)
        try accept.branch("view-m", in: repo)
        let branchHead = try repo.sha()
        try repo.git("checkout", "-q", "--detach", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "Merge view-m into develop (the CI's checkout)", "view-m")
        let synthetic = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login synthetic"])
        try repo.git("checkout", "-q", "develop")
        try repo.git("checkout", "-q", "-b", "elsewhere")
        try repo.write("Sources/App/Else.swift", "// elsewhere\n")
        try repo.commitAll("another branch")
        let elsewhere = try repo.sha()
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login elsewhere"])
        try repo.git("checkout", "-q", "view-m")

        let refused = try repo.pipeline("refs", "accept", "LoginTests", "--commit", elsewhere)
        #expect(refused.status == 8, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(String(elsewhere.prefix(12)))
                && refused.stderr.contains(String(branchHead.prefix(12))),
            "\(refused.stderr)")
        func recorded(_ commit: String) -> Bool {
            RecordFiles.find(
                "\(PushArchive.recordsFolder)/LoginTests/\(commit).json",
                of: repo.root.appendingPathComponent("store/feature")) != nil
        }
        #expect(!recorded(elsewhere))

        let mapped = try repo.pipeline("refs", "accept", "LoginTests", "--commit", synthetic)
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(mapped.stdout.contains("pushed as the branch's commit \(branchHead.prefix(12))"), "\(mapped.stdout)")
        #expect(recorded(branchHead))
        #expect(!recorded(synthetic))

        // The real merge brings in the branch head, and with it the accepted rendering.
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge view-m", "view-m")
        let promoted = try repo.report("refs", "promote")
        #expect(promoted["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login synthetic")
    }

    @Test(
        "a mistyped folder store is an error naming its path for every read; the first push creates feature, saying so")
    func mistypedStore() async throws {
        let repo = try await accept.repository(.folder)
        let typo = ["--develop", "store/devlop"]
        for command in [["refs", "pull"], ["refs", "promote"], ["refs", "orphans"], ["refs", "report", "--all"]] {
            let result = try PipelineBinary.run(command + typo, in: repo.root, environment: RefsBackend.environment)
            #expect(result.status == 5, "\(command): \(result.stdout)\(result.stderr)")
            #expect(
                result.stderr.contains("the develop store \(repo.root.path)/store/devlop does not exist"),
                "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent("store/devlop").path))

        let pushed = try repo.pipeline("refs", "push", "LoginTests", "--feature", "store/new-feature")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(
            pushed.stdout.contains("created the feature store at \(repo.root.path)/store/new-feature"),
            "\(pushed.stdout)")
    }
}
