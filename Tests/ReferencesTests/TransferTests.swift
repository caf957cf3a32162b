import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec
import TestSupport
import Testing

@testable import References

/// A clock a test moves by hand: records, leases and ages read it, so nothing waits in real time.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var date = Date(timeIntervalSince1970: 1_790_000_000)

    var now: @Sendable () -> Date { { [self] in lock.withLock { date } } }

    func advance(_ seconds: TimeInterval) { lock.withLock { date += seconds } }
}

/// A repository whose LoginTests keep their references only in folder stores, and the transfers
/// over them, driven through the library with a clock of the test's.
struct TransferFixture {
    let root: URL
    let clock = TestClock()
    let transfers: ReferenceTransfers
    static let reference = "Tests/AppTests/__Snapshots__/LoginTests/login.1.png"

    init(_ name: String) throws {
        let root = try Scratch.folder(name)
        self.root = root
        try Scratch.write(
            "import XCTest\nfinal class LoginTests: XCTestCase {}\n",
            to: root.appendingPathComponent("Tests/AppTests/LoginTests.swift"))
        try Scratch.write("__Snapshots__/\nstore/\n.build/\n", to: root.appendingPathComponent(".gitignore"))
        _ = try Scratch.git(root, "init", "-q", "-b", "develop")
        _ = try Scratch.git(root, "add", "-A")
        _ = try Scratch.git(root, "commit", "-q", "-m", "app")
        // The team's stores exist (a folder store that does not is refused by every read).
        for store in ["store/feature", "store/develop"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        // No render environment: the shared sets are the stores.
        let stores = ReferenceStores(
            sharedSetsOf: ReferenceSettings(
                feature: .folder(path: "store/feature"), develop: .folder(path: "store/develop")),
            base: root, origin: "the test", variables: [:])
        transfers = ReferenceTransfers(stores: stores, testPattern: "*Tests", now: clock.now)
    }

    /// A fixture whose develop and feature hold LoginTests' first references, pushed from the first commit.
    static func seeded(_ name: String) async throws -> TransferFixture {
        let fixture = try TransferFixture(name)
        try await fixture.push("v1", to: [.feature, .develop], commit: try fixture.sha())
        return fixture
    }

    /// Draws the reference with `content` and pushes it as `commit`'s push.
    func push(_ content: String, to roles: [StoreRole], commit: String) async throws {
        try draw(content)
        _ = try await transfers.push(tests: ["LoginTests"], to: roles, commit: commit, prune: false, dryRun: false)
    }

    func file(_ path: String) -> URL { root.appendingPathComponent(path) }
    func read(_ path: String) -> String? { try? String(contentsOf: file(path), encoding: .utf8) }
    func draw(_ content: String) throws { try Scratch.write(content, to: file(Self.reference)) }
    func sha(_ revision: String = "HEAD") throws -> String { try Scratch.git(root, "rev-parse", revision) }
    func history() throws -> CommitHistory { try CommitHistory(repositoryPath: root.path) }

    /// A branch commit, merged into develop with --no-ff; returns the branch head.
    func branchAndMerge(_ name: String, before merge: (String) async throws -> Void) async throws -> String {
        _ = try Scratch.git(root, "checkout", "-q", "-b", name)
        try Scratch.write("// \(name)\n", to: file("Sources/App/\(name).swift"))
        _ = try Scratch.git(root, "add", "-A")
        _ = try Scratch.git(root, "commit", "-q", "-m", name)
        let head = try sha()
        try await merge(head)
        _ = try Scratch.git(root, "checkout", "-q", "develop")
        _ = try Scratch.git(root, "merge", "-q", "--no-ff", "-m", "merge \(name)", name)
        return head
    }

    /// The promotion of the merge at HEAD, as the post-merge pipeline runs it.
    func promote(dryRun: Bool = false) async throws -> TransferReport {
        try await transfers.promote(
            tests: nil, changes: try ChangeDetector(repositoryPath: root.path).changes(.merge(head: "HEAD")),
            history: try history(), force: false, prune: false, dryRun: dryRun)
    }
}

@Suite("pull, push, promote, accept and prune over the folder store, with the test's clock")
struct TransferTests {
    @Test("a push keeps the commit's push and its record at the clock's time; a pull brings it back")
    func pushAndPull() async throws {
        let fixture = try TransferFixture("transfer-push")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        try fixture.draw("v1")
        let commit = try fixture.sha()
        let pushed = try await fixture.transfers.push(
            tests: ["LoginTests"], to: [.feature], commit: commit, prune: false, dryRun: false)
        #expect(pushed.first?.copied == ["LoginTests/login.1.png"])
        let record = try await PushArchive(feature: try fixture.transfers.stores.folder(.feature))
            .record(of: "LoginTests", by: commit)
        #expect(record?.pushedAt == Timestamp.string(fixture.clock.now()))
        #expect(record?.files.keys.sorted() == ["login.1.png"])
        try FileManager.default.removeItem(at: fixture.file(TransferFixture.reference))
        let pulled = try await fixture.transfers.pull(tests: ["LoginTests"], from: .feature, dryRun: false)
        #expect(pulled.copied == ["LoginTests/login.1.png"])
        #expect(fixture.read(TransferFixture.reference) == "v1")
        let again = try await fixture.transfers.pull(tests: ["LoginTests"], from: .feature, dryRun: false)
        #expect(again.copied.isEmpty && again.identical == 1, "a re-run copies nothing")
        await #expect(throws: ReferenceError.self) {
            try await fixture.transfers.push(
                tests: ["NopeTests"], to: [.feature], commit: commit, prune: false, dryRun: false)
        }
    }

    @Test("a merge promotes its branch's push file by file, once; a re-run copies nothing")
    func promote() async throws {
        let fixture = try await TransferFixture.seeded("transfer-promote")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        _ = try await fixture.branchAndMerge("view") { head in
            try await fixture.push("v2", to: [.feature], commit: head)
        }
        let dry = try await fixture.promote(dryRun: true)
        #expect(dry.copied == ["LoginTests/login.1.png"] && dry.pushed == ["LoginTests"])
        #expect(fixture.read("store/develop/LoginTests/login.1.png") == "v1", "a dry run writes nothing")
        let report = try await fixture.promote(dryRun: false)
        #expect(report.copied == ["LoginTests/login.1.png"] && report.neverAccepted.isEmpty)
        #expect(fixture.read("store/develop/LoginTests/login.1.png") == "v2")
        let again = try await fixture.promote(dryRun: false)
        #expect(again.copied.isEmpty)
    }

    @Test("CI's candidates accepted become the branch head's push; unaccepted ones fail the merge's promotion")
    func acceptAndNeverAccepted() async throws {
        let fixture = try await TransferFixture.seeded("transfer-accept")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        fixture.clock.advance(60)  // CI runs after the push
        let artifacts = fixture.file(".build/artifacts")
        try Scratch.write("ci", to: artifacts.appendingPathComponent("LoginTests/login.1.png"))
        let ci = RenderEnvironment(os: "Linux ci", arch: "x86_64")
        var head = ""
        _ = try await fixture.branchAndMerge("unaccepted") { branchHead in
            head = branchHead
            let lines = await fixture.transfers.keepCandidates(
                artifacts: artifacts, commit: branchHead, passed: false, renderedOn: { ci },
                variables: ["GITHUB_RUN_ID": "5"]
            ).lines
            #expect(lines.first?.contains("--commit \(branchHead)") == true, "\(lines)")
        }
        let refused = try await fixture.promote(dryRun: false)
        #expect(refused.neverAccepted == ["LoginTests"] && refused.candidatesCommit == head)
        #expect(throws: ReferenceError.neverAccepted(tests: ["LoginTests"], commit: head, environment: nil)) {
            try TransferReport.requireComplete([refused])
        }

        fixture.clock.advance(60)
        let outcome = try await fixture.transfers.accept(
            AcceptRequest(tests: [], all: true, commit: head, run: nil, force: false, dryRun: false),
            history: try fixture.history())
        #expect(outcome.tests == ["LoginTests"])
        let record = try await PushArchive(feature: try fixture.transfers.stores.folder(.feature))
            .record(of: "LoginTests", by: head)
        #expect(record?.acceptedFrom == outcome.run && record?.pushedAt == Timestamp.string(fixture.clock.now()))
        let promoted = try await fixture.promote(dryRun: false)
        #expect(promoted.neverAccepted.isEmpty && promoted.copied == ["LoginTests/login.1.png"], "\(promoted)")
        #expect(fixture.read("store/develop/LoginTests/login.1.png") == "ci")
    }

    @Test("prune --older-than measures ages by the clock: nothing at 29 days, the push and the candidates at 31")
    func prune() async throws {
        let fixture = try TransferFixture("transfer-prune")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let commit = try fixture.sha()
        try await fixture.push("v1", to: [.feature], commit: commit)
        let artifacts = fixture.file(".build/artifacts")
        try Scratch.write("ci", to: artifacts.appendingPathComponent("LoginTests/login.1.png"))
        _ = await fixture.transfers.keepCandidates(
            artifacts: artifacts, commit: commit, passed: false,
            renderedOn: { RenderEnvironment(os: "Linux", arch: "x86_64") }, variables: [:])
        fixture.clock.advance(29 * 86_400)
        #expect(
            try await fixture.transfers.prunePushes(olderThan: .seconds(30 * 86_400), history: nil, dryRun: false)
                .removed.isEmpty)
        fixture.clock.advance(2 * 86_400)
        let dry = try await fixture.transfers.prunePushes(olderThan: .seconds(30 * 86_400), history: nil, dryRun: true)
            .removed
        #expect(dry.count == 2, "\(dry)")
        let pruned = try await fixture.transfers.prunePushes(
            olderThan: .seconds(30 * 86_400), history: nil, dryRun: false
        ).removed
        #expect(pruned.map(\.commit) == [commit, commit])
        let archive = CandidateArchive(feature: try fixture.transfers.stores.folder(.feature))
        #expect(try await archive.runs(of: commit).isEmpty)
        #expect(fixture.read("store/feature/LoginTests/login.1.png") == "v1", "feature's latest copy stays")
    }

    @Test("prune --older-than keeps an old push an open branch still holds, says why, and --force removes it")
    func pruneKeepsOpenBranches() async throws {
        let fixture = try await TransferFixture.seeded("transfer-prune-open")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let merged = try fixture.sha()
        // A pull request open for long: its branch pushed, and is not merged into develop.
        _ = try Scratch.git(fixture.root, "checkout", "-q", "-b", "feature/long")
        try Scratch.write("// long\n", to: fixture.file("Sources/App/Long.swift"))
        _ = try Scratch.git(fixture.root, "add", "-A")
        _ = try Scratch.git(fixture.root, "commit", "-q", "-m", "long")
        let open = try fixture.sha()
        try await fixture.push("v2", to: [.feature], commit: open)
        _ = try Scratch.git(fixture.root, "checkout", "-q", "develop")
        fixture.clock.advance(31 * 86_400)
        let history = try fixture.history()
        let guarding = RetentionGuard(
            openBranches: try RetentionGuard.openBranches(in: history, named: []), head: try fixture.sha())
        #expect(guarding.openBranches.map(\.name) == ["refs/heads/feature/long"])
        let outcome = try await fixture.transfers.prunePushes(
            olderThan: .seconds(30 * 86_400), history: history, guarding: guarding, dryRun: false)
        #expect(outcome.removed.map(\.commit) == [merged], "develop's own old push goes: it is merged")
        #expect(outcome.kept.map(\.commit) == [open])
        #expect(outcome.kept.first?.reason.contains("still on refs/heads/feature/long, not merged") == true)
        #expect(
            try await PushArchive(feature: try fixture.transfers.stores.folder(.feature)).allCommits()["LoginTests"]
                == [open])
        var forced = guarding
        forced.force = true
        let again = try await fixture.transfers.prunePushes(
            olderThan: .seconds(30 * 86_400), history: history, guarding: forced, dryRun: false)
        #expect(again.removed.map(\.commit) == [open] && again.kept.isEmpty)
    }
}
