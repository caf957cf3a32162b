import Foundation
import ObjectStorage
import TestSupport
import Testing

/// An earlier release's store (records below `feature/` and `develop/`) shared with this release
/// through a loop, then moved by `refs migrate`. The earlier release is this binary with
/// `PIPELINE_RECORDS=earlier`: its records' keys, reads and writes are the earlier layout's.
@Suite("records laid out by trust: an earlier release's store shared, then moved, nothing lost", .serialized)
struct RecordLayoutCommandTests {
    static let login = SnapshotRepository.snapshots + "/LoginTests/test_login.1.png"
    static let profile = SnapshotRepository.snapshots + "/ProfileTests/test_プロフィール 1.png"

    /// Every key of feature and develop, relative to the store's prefix (a folder store's own
    /// metadata and lock files left out): `feature/LoginTests/test_login.1.png`.
    static func keys(_ references: String, _ repo: SnapshotRepository) async throws -> [String] {
        if let bucket = references.firstMatch(of: /s3:\/\/([^\/]+)\//)?.output.1 {
            let store = try S3Store(
                S3Settings(
                    endpoint: URL(string: RefsBackend.s3Endpoint!)!, bucket: String(bucket),
                    credentials: AWSCredentials(accessKey: "test:tester", secret: "testing")))
            var keys: [String] = []
            for role in ["feature", "develop"] {
                keys += try await store.list(under: try ObjectKey(role)).map(\.key.rawValue)
            }
            return keys
        }
        return ["feature", "develop"].flatMap { role in
            let folder = repo.root.appendingPathComponent("store/\(role)")
            return (FileManager.default.subpaths(atPath: folder.path) ?? []).filter { path in
                var isFolder: ObjCBool = false
                return !path.hasPrefix(".pipeline-metadata") && !path.hasPrefix(".pipeline-locks")
                    && FileManager.default.fileExists(
                        atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder)
                    && !isFolder.boolValue
            }.map { "\(role)/\($0)" }
        }.sorted()
    }

    @Test(
        "an earlier release's pushes and ledger are promoted by this one, both read what they wrote, and refs migrate leaves references only",
        arguments: RefsBackend.available)
    func sharedThenMoved(backend: RefsBackend) async throws {
        let references = try await backend.references()
        let repo = try SnapshotRepository(references: references)
        try repo.keepReferencesOutOfGit()
        let earlierRelease = RefsBackend.environment.merging(["PIPELINE_RECORDS": "earlier"]) { $1 }
        func earlier(_ arguments: String...) throws -> PipelineBinary.Result {
            try PipelineBinary.run(arguments, in: repo.root, environment: earlierRelease)
        }
        func branch(
            _ name: String, _ path: String, _ content: String, by run: (String...) throws -> PipelineBinary.Result
        )
            throws -> String
        {
            try repo.git("reset", "-q", "--hard")
            try repo.git("checkout", "-q", "develop")
            try repo.git("checkout", "-q", "-b", name)
            #expect(try run("refs", "pull").status == 0)
            let test = path.contains("Login") ? "LoginTests" : "ProfileTests"
            try repo.write(path, content)
            try repo.write("Tests/AppTests/\(test).swift", "// \(name)\n")
            try repo.commitAll(name)
            let pushed = try run("refs", "push", test)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            return try repo.sha()
        }
        func merge(_ name: String) throws {
            try repo.git("reset", "-q", "--hard")
            try repo.git("checkout", "-q", "develop")
            try repo.git("merge", "-q", "--no-ff", "-m", "merge \(name)", name)
        }

        // The earlier release set develop up; a pull request pinned to it pushes.
        let initial = try repo.sha()
        #expect(try earlier("refs", "push", "LoginTests", "ProfileTests").status == 0)
        #expect(try earlier("refs", "promote", "LoginTests", "ProfileTests").status == 0)
        let a = try branch("a", Self.login, "login a", by: earlier)
        let before = try await Self.keys(references, repo)
        #expect(before.contains { $0.hasPrefix("feature/.pushes/\(a)/") }, "the earlier layout: \(before)")
        // The promotion ledger needs conditional writes, which the strict S3 server lacks (moto
        // has them: LostRunTests and the kill benchmark run it there).
        let ledger = backend == .folder
        #expect(before.contains { $0.hasPrefix("develop/.promotions/") } == ledger, "\(before)")

        // This release: another pull request pushes in the new layout; develop's job promotes both.
        let b = try branch("b", Self.profile, "profile b", by: repo.pipeline)
        try merge("a")
        let promotedA = try repo.report("refs", "promote")
        #expect(promotedA["copied"] as? [String] == ["LoginTests/test_login.1.png"], "\(promotedA)")
        try merge("b")
        let promotedB = try repo.report("refs", "promote")
        #expect(promotedB["copied"] as? [String] == ["ProfileTests/test_プロフィール 1.png"], "\(promotedB)")
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.read(Self.login) == "login a" && repo.read(Self.profile) == "profile b")
        let after = try await Self.keys(references, repo)
        #expect(!after.contains { $0.hasPrefix("feature/.pushes/\(b)") }, "b's push is beside feature: \(after)")

        // The earlier release still reads its own push.
        #expect(try earlier("refs", "pull", "LoginTests", "--from", "feature", "--commit", a).status == 0)
        #expect(repo.read(Self.login) == "login a")

        // refs migrate: a dry run moves nothing; then feature and develop hold references only.
        let preview = try repo.pipeline("refs", "migrate", "--dry-run")
        #expect(preview.status == 0 && preview.stdout.contains("feature: would move "), "\(preview.stdout)")
        #expect(try await Self.keys(references, repo) == after)
        let moved = try repo.pipeline("refs", "migrate")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("feature: moved "), "\(moved.stdout)")
        #expect(moved.stdout.contains("develop: moved ") == ledger, "\(moved.stdout)")
        let migrated = try await Self.keys(references, repo)
        var records: [String] = []
        for key in migrated {
            let role = try ObjectKey(key.hasPrefix("feature/") ? "feature" : "develop")
            if try ObjectKey(key).relative(to: role)?.isReference != true { records.append(key) }
        }
        #expect(records.isEmpty, "\(records)")
        #expect(
            migrated.contains("develop/LoginTests/test_login.1.png")
                && migrated.contains("feature/LoginTests/test_login.1.png"))
        let again = try repo.pipeline("refs", "migrate")
        #expect(again.stdout.contains("feature: no records in the earlier layout; nothing to move"), "\(again.stdout)")

        // Nothing lost: a's push is read from where it moved, and a prune finds the earlier
        // release's first push, which both merges superseded (each test's newest push stays).
        try repo.write(Self.login, "changed here")
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", a).status == 0)
        #expect(repo.read(Self.login) == "login a")
        let pruned = try PipelineBinary.run(
            ["refs", "prune", "--json"], in: repo.root, environment: RefsBackend.environment)
        #expect(pruned.status == 0, "\(pruned.stderr)")
        let removed = try JSONSerialization.jsonObject(with: Data(pruned.stdout.utf8)) as? [[String: String]] ?? []
        #expect(removed.compactMap { $0["commit"] } == (ledger ? [initial, initial] : []), "\(removed)")
        #expect(try repo.pipeline("refs", "pull", "ProfileTests", "--from", "feature", "--commit", b).status == 0)
        #expect(repo.read(Self.profile) == "profile b")
    }
}
