import Foundation
import TestSupport
import Testing

/// CI checkouts are shallow: GitHub's checkout fetches one commit by default (two in older
/// generated files), GitLab twenty. The post-merge commands run in clones of depth 1, 2 and 20
/// after each merge style, with and without the build cache, and are never a trap: what the
/// clone lacks is fetched from origin, or the command stops with one line that names it.
@Suite("shallow clones: depths × merge styles × the build cache", .serialized)
struct ShallowCloneTests {
    enum Style: String, CaseIterable, CustomStringConvertible {
        case merge, squash, rebase
        var description: String { rawValue }
    }

    static let depths = [1, 2, 20]
    let accept = AcceptCommandTests()

    /// A team's repository whose develop has moved on by several commits since `view`'s branch
    /// was cut, the branch's accepted rendering of LoginTests in feature, the branch merged in
    /// `style` and deleted. The store is a folder outside the repository, as a runner's would be.
    private func merged(_ style: Style) async throws -> (repo: SnapshotRepository, store: URL) {
        let store = try Scratch.folder("shallow-store")
        let repo = try SnapshotRepository(
            references: "references:\n  feature: \(store.path)/feature\n  develop: \(store.path)/develop\n")
        try repo.keepReferencesOutOfGit()
        #expect(try repo.pipeline("refs", "push", "LoginTests", "ProfileTests").status == 0)
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests").status == 0)
        try accept.branch("view", in: repo)
        _ = try await accept.ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        #expect(try repo.pipeline("refs", "accept", "LoginTests").status == 0)
        try repo.git("checkout", "-q", "develop")
        for index in 1...3 {
            try repo.write("Sources/App/Other\(index).swift", "// another merge \(index)\n")
            try repo.commitAll("develop moves on \(index)")
        }
        switch style {
        case .merge:
            try repo.git("merge", "-q", "--no-ff", "-m", "Merge view", "view")
        case .squash:
            try repo.git("merge", "-q", "--squash", "view")
            try repo.git("commit", "-q", "-m", "view (#3)")
        case .rebase:
            try repo.git("checkout", "-q", "view")
            try repo.git("rebase", "-q", "develop")
            try repo.git("checkout", "-q", "develop")
            try repo.git("merge", "-q", "--ff-only", "view")
        }
        try repo.git("branch", "-q", "-D", "view")
        return (repo, store)
    }

    /// A clone of `repo`'s develop at `depth`, as a CI's checkout makes it.
    private func clone(_ repo: URL, depth: Int) throws -> URL {
        let folder = try Scratch.folder("shallow-clone")
        let clone = folder.appendingPathComponent("checkout")
        try Git.run(
            ["clone", "-q", "--depth", "\(depth)", "-b", "develop", "file://\(repo.path)", clone.path], in: folder)
        // Depth 20 takes the whole of these short histories, as GitLab's default does a young repository's.
        if depth < 5 { #expect(try Git.run(["rev-parse", "--is-shallow-repository"], in: clone) == "true") }
        return clone
    }

    @Test("the post-merge pipeline and refs promote in clones of depth 1, 2 and 20", arguments: Style.allCases)
    func promotion(style: Style) async throws {
        for depth in Self.depths {
            let (repo, store) = try await merged(style)
            defer { try? FileManager.default.removeItem(at: store) }
            let clone = try clone(repo.root, depth: depth)
            defer { try? FileManager.default.removeItem(at: clone.deletingLastPathComponent()) }
            let dryRun = try PipelineBinary.run(
                ["refs", "promote", "--dry-run"], in: clone, environment: RefsBackend.environment)
            #expect(dryRun.status == 0, "\(style), depth \(depth): \(dryRun.stdout)\(dryRun.stderr)")
            let run = try PipelineBinary.run(["run", "post-merge"], in: clone, environment: RefsBackend.environment)
            #expect(run.status == 0, "\(style), depth \(depth): \(run.stdout)\(run.stderr)")
            #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
            let promoted = try? String(
                contentsOf: store.appendingPathComponent("develop/LoginTests/test_login.1.png"), encoding: .utf8)
            #expect(promoted == "login ci", "\(style), depth \(depth): develop holds the accepted rendering")
        }
    }

    @Test("a clone that cannot fetch what it lacks says which commit and which fetch-depth, exit 4")
    func cannotFetch() async throws {
        let (repo, store) = try await merged(.merge)
        defer { try? FileManager.default.removeItem(at: store) }
        let clone = try clone(repo.root, depth: 1)
        defer { try? FileManager.default.removeItem(at: clone.deletingLastPathComponent()) }
        try Git.run(["remote", "set-url", "origin", "file:///nonexistent/repository"], in: clone)
        let run = try PipelineBinary.run(["run", "post-merge"], in: clone, environment: RefsBackend.environment)
        #expect(run.status == 4, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("shallow clone:") && run.stderr.contains("fetch-depth: 0"), "\(run.stderr)")
        #expect(run.stderr.contains("fetching it from origin failed"), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
    }

    @Test("the build cache in clones of depth 1, 2 and 20 of a history of several commits: no trap")
    func buildCache() throws {
        let folder = try Scratch.folder("shallow-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("package")
        try Scratch.write(
            """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(
                name: "Tiny", targets: [.target(name: "Tiny"), .testTarget(name: "TinyTests", dependencies: ["Tiny"])])

            """, to: package.appendingPathComponent("Package.swift"))
        try Scratch.write(
            "import XCTest\n@testable import Tiny\nfinal class TinyTests: XCTestCase { func testF() { XCTAssertEqual(f(), 1) } }\n",
            to: package.appendingPathComponent("Tests/TinyTests/TinyTests.swift"))
        let source = package.appendingPathComponent("Sources/Tiny/Tiny.swift")
        try Scratch.write("public func f() -> Int { 1 }\n", to: source)
        try Git.run(["init", "-q", "-b", "develop"], in: package)
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "one"], in: package)
        for index in 2...4 {
            try Scratch.write("public func f() -> Int { 1 }\n// \(index)\n", to: source)
            try Git.run(["commit", "-q", "-am", "commit \(index)"], in: package)
        }
        // The cache's folder does not exist: the first save creates it and says so.
        let cache = folder.appendingPathComponent("cache")
        for depth in Self.depths {
            let clone = try clone(package, depth: depth)
            defer { try? FileManager.default.removeItem(at: clone.deletingLastPathComponent()) }
            let test = try PipelineBinary.run(
                ["test", "--build-cache", cache.path], in: clone, environment: ["CI": "true"])
            #expect(test.status == 0, "depth \(depth): \(test.stdout)\(test.stderr.suffix(2000))")
            #expect(!test.stderr.contains("Fatal error"), "depth \(depth)")
            #expect(test.stdout.contains("1 passed"), "depth \(depth): \(test.stdout)")
            let created = (test.stdout + test.stderr).contains("created \(cache.path) for it")
            #expect(created == (depth == Self.depths[0]), "depth \(depth): \(test.stdout)\(test.stderr)")
        }
    }
}
