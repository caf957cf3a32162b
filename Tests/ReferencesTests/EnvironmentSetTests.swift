import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec
import TestSupport
import Testing

@testable import References

/// A checkout whose LoginTests keep three references, and a develop folder store holding a shared
/// set, an environment `linux` with one of them, `macos` with another, and a folder of an
/// environment nobody names.
struct EnvironmentFixture {
    let root: URL
    static let snapshots = "Tests/AppTests/__Snapshots__/LoginTests/"

    init(_ name: String) throws {
        root = try Scratch.folder(name)
        try Scratch.write(
            "import XCTest\nfinal class LoginTests: XCTestCase {}\n",
            to: root.appendingPathComponent("Tests/AppTests/LoginTests.swift"))
        let files = [
            "LoginTests/login.1.png": "shared-login", "LoginTests/logout.1.png": "shared-logout",
            "LoginTests/help.1.png": "shared-help", "linux/LoginTests/login.1.png": "linux-login",
            "macos/LoginTests/logout.1.png": "macos-logout", "windows/LoginTests/login.1.png": "windows-login",
        ]
        for (key, content) in files { try Scratch.write(content, to: store(key)) }
    }

    func store(_ key: String) -> URL { root.appendingPathComponent("store/develop/" + key) }
    func local(_ file: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(Self.snapshots + file), encoding: .utf8)
    }

    func transfers(environment: String?, fallback: [String] = [], variables: [String: String] = [:]) async throws
        -> ReferenceTransfers
    {
        let stores = try await ReferenceStores(
            settings: ReferenceSettings(
                feature: .folder(path: "store/feature"), develop: .folder(path: "store/develop"),
                environment: environment, fallback: fallback),
            base: root, origin: "the test", variables: variables)
        return ReferenceTransfers(stores: stores, testPattern: "*Tests")
    }
}

@Suite("references per render environment: a set per environment, a fallback chain, the shared set last")
struct EnvironmentSetTests {
    @Test("a pull takes each file from the first set of the chain that has it, and says which")
    func chain() async throws {
        let fixture = try EnvironmentFixture("environment-chain")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let transfers = try await fixture.transfers(environment: "linux", fallback: ["macos", "linux"])
        #expect(try transfers.stores.chain(.develop).map(\.name) == ["linux", "macos", nil])
        let report = try await transfers.pull(tests: nil, from: .develop, dryRun: false)
        #expect(fixture.local("login.1.png") == "linux-login")
        #expect(fixture.local("logout.1.png") == "macos-logout")
        #expect(fixture.local("help.1.png") == "shared-help")
        #expect(report.sets == ["linux": 1, "macos": 1, "shared": 1])
        #expect(report.fileSets?["LoginTests/logout.1.png"] == "macos")
        #expect(report.tests == ["LoginTests"] && report.failures.isEmpty)
        let again = try await transfers.pull(tests: ["LoginTests"], from: .develop, dryRun: false)
        #expect(again.copied.isEmpty && again.identical == 3 && again.deleted.isEmpty, "\(again)")
        // Each reference's origin, as the review cards name it.
        let stores = transfers.stores
        #expect(await stores.origin(of: "LoginTests/login.1.png")?.note == "reference from this run's set, linux")
        #expect(
            await stores.origin(of: "LoginTests/logout.1.png")?.note
                == "reference from the set macos, a fallback: this run's set, linux, has none")
        #expect(await stores.origin(of: "LoginTests/help.1.png")?.set == nil)
        #expect(await stores.origin(of: "LoginTests/nope.1.png") == nil)
        // A test no set has is missing, as without environments.
        await #expect(throws: ReferenceError.self) {
            try await transfers.pull(tests: ["NopeTests"], from: .develop, dryRun: false)
        }
    }

    @Test("writes go to the run's own set; the shared set's listings leave every environment's folder alone")
    func writes() async throws {
        let fixture = try EnvironmentFixture("environment-writes")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let shared = try await fixture.transfers(environment: nil)
        let pulled = try await shared.pull(tests: nil, from: .develop, dryRun: false)
        #expect(pulled.tests == ["LoginTests"] && pulled.copied.count == 3, "\(pulled)")
        #expect(fixture.local("login.1.png") == "shared-login")
        try Scratch.write(
            "linux-login-2", to: fixture.root.appendingPathComponent(EnvironmentFixture.snapshots + "login.1.png"))
        let linux = try await fixture.transfers(environment: "linux")
        _ = try await linux.push(tests: ["LoginTests"], to: [.develop], commit: "c0ffee", prune: true, dryRun: false)
        let read = { (key: String) in try? String(contentsOf: fixture.store(key), encoding: .utf8) }
        #expect(read("linux/LoginTests/login.1.png") == "linux-login-2")
        #expect(read("linux/LoginTests/logout.1.png") == "shared-logout", "the push fills the set with the checkout's")
        #expect(read("LoginTests/login.1.png") == "shared-login", "the shared set is untouched")
        #expect(
            read("macos/LoginTests/logout.1.png") == "macos-logout"
                && read("windows/LoginTests/login.1.png") == "windows-login")
        // Pushing the shared set with pruning deletes nothing of the environments' folders.
        _ = try await shared.push(tests: ["LoginTests"], to: [.develop], commit: "c0ffee", prune: true, dryRun: false)
        #expect(
            read("windows/LoginTests/login.1.png") == "windows-login" && read("linux/LoginTests/login.1.png") != nil)
    }

    @Test("one merge job promotes each environment's push through that set's own record; no set gets another's")
    func promoteEverySet() async throws {
        let fixture = try await TransferFixture.seeded("environment-promote")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let (linux, other) = (fixture.transfers.inSet("linux"), fixture.transfers.inSet("other"))
        _ = try await fixture.branchAndMerge("view") { head in
            try fixture.draw("linux-v2")
            _ = try await linux.push(tests: ["LoginTests"], to: [.feature], commit: head, prune: false, dryRun: false)
            try fixture.draw("other-v2")
            _ = try await other.push(tests: ["LoginTests"], to: [.feature], commit: head, prune: false, dryRun: false)
        }
        let changes = try ChangeDetector(repositoryPath: fixture.root.path).changes(.merge(head: "HEAD"))
        // The merge job runs in linux: its own set first, then every other set feature holds.
        let reports = try await linux.promoteEverySet(
            tests: nil, changes: changes, history: try fixture.history(), force: false, prune: false, dryRun: false)
        #expect(reports.map(\.environment) == ["linux", "other"], "the shared set promoted nothing: left out")
        #expect(reports.allSatisfy { $0.copied == ["LoginTests/login.1.png"] }, "\(reports)")
        #expect(fixture.read("store/develop/linux/LoginTests/login.1.png") == "linux-v2")
        #expect(fixture.read("store/develop/other/LoginTests/login.1.png") == "other-v2")
        #expect(fixture.read("store/develop/LoginTests/login.1.png") == "v1", "the shared set is untouched")
        for set in ["linux", "other"] {
            #expect(
                RecordFiles.find("\(set)/.promotions/LoginTests.json", of: fixture.file("store/develop")) != nil,
                "each set keeps its own promotion record")
        }
        let again = try await fixture.transfers.promoteEverySet(
            tests: nil, changes: changes, history: try fixture.history(), force: false, prune: false, dryRun: false)
        #expect(again.count == 1 && again[0].environment == nil && again[0].copied.isEmpty, "a re-run copies nothing")
    }

    @Test("refs accept takes the candidates from the one set that kept them, unless the environment was named")
    func acceptFindsTheSet() async throws {
        let fixture = try await TransferFixture.seeded("environment-accept")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let head = try fixture.sha()
        // Linux CI has pushed its set before, and keeps its renderings of a failed run there.
        try fixture.draw("linux-v1")
        _ = try await fixture.transfers.inSet("linux").push(
            tests: ["LoginTests"], to: [.feature], commit: head, prune: false, dryRun: false)
        fixture.clock.advance(60)
        let artifacts = fixture.file(".build/artifacts")
        try Scratch.write("linux-ci", to: artifacts.appendingPathComponent("LoginTests/login.1.png"))
        let lines = await fixture.transfers.inSet("linux").keepCandidates(
            artifacts: artifacts, commit: head, passed: false,
            renderedOn: { RenderEnvironment(os: "Linux", arch: "x86_64") }, variables: [:]
        ).lines
        #expect(lines.first?.hasSuffix("--commit \(head) --environment linux") == true, "\(lines)")
        let request = AcceptRequest(tests: [], all: true, commit: head, run: nil, force: false, dryRun: false)
        let named = try await ReferenceStores(
            settings: fixture.transfers.stores.settings, base: fixture.root, origin: "the test",
            variables: ["PIPELINE_ENVIRONMENT": "laptop"])
        await #expect(throws: ReferenceError.self, "a named set is the one looked in") {
            try await ReferenceTransfers(stores: named, testPattern: "*Tests")
                .acceptInCandidatesSet(request, history: try fixture.history())
        }
        let outcome = try await fixture.transfers.acceptInCandidatesSet(request, history: try fixture.history())
        #expect(outcome.environment == "linux" && outcome.tests == ["LoginTests"])
        #expect(fixture.read("store/feature/linux/LoginTests/login.1.png") == "linux-ci")
        #expect(fixture.read("store/feature/LoginTests/login.1.png") == "v1", "the shared set is untouched")
    }

    @Test("orphans and prune see every set, including one nobody names; prune never deletes a latest copy")
    func maintenance() async throws {
        let fixture = try TransferFixture("environment-maintenance")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let commit = try fixture.sha()
        try fixture.draw("linux-v1")
        let linux = fixture.transfers.inSet("linux")
        _ = try await linux.push(tests: ["LoginTests"], to: [.feature], commit: commit, prune: false, dryRun: false)
        for key in ["GoneTests/a.png", "windows/GoneTests/a.png", "windows/LoginTests/login.1.png"] {
            try Scratch.write("x", to: fixture.file("store/feature/" + key))
        }
        #expect(try await fixture.transfers.stores.environmentSets(.feature) == ["linux", "windows"])
        let orphans = try await fixture.transfers.orphans(in: .feature)
        #expect(orphans.map(\.place) == ["GoneTests", "windows/GoneTests"], "\(orphans)")
        fixture.clock.advance(31 * 86_400)
        let pruned = try await fixture.transfers.prunePushes(
            olderThan: .seconds(30 * 86_400), history: nil, dryRun: false
        ).removed
        #expect(pruned.map(\.place) == ["linux/LoginTests"], "\(pruned)")
        #expect(try await PushArchive(feature: try linux.stores.folder(.feature)).allCommits().isEmpty)
        for key in ["linux/LoginTests/login.1.png", "windows/LoginTests/login.1.png", "windows/GoneTests/a.png"] {
            #expect(fixture.read("store/feature/" + key) != nil, "\(key): a latest copy stays")
        }
    }

    @Test("refs report compares one environment's set with another's")
    func reportAgainst() async throws {
        let fixture = try EnvironmentFixture("environment-report")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let context = try await ReferenceContext(
            checkout: fixture.root, pipeline: nil,
            overrides: ReferenceSettings(
                feature: .folder(path: "store/feature"), develop: .folder(path: "store/develop")),
            environment: "linux")
        var selection = ReviewSelection(tests: ["LoginTests"], all: false, changes: ChangeQuery())
        (selection.new, selection.reference, selection.against) = (.develop, .develop, "macos")
        let review = try await context.review(
            selection, tolerance: 0, output: fixture.root.appendingPathComponent("review.html"))
        // linux has login, macos logout: one new, one removed, between the two sets alone.
        #expect(
            review.entries.map { "\($0.key) \($0.status)" }.sorted()
                == ["LoginTests/login.1.png new", "LoginTests/logout.1.png removed"], "\(review.entries)")
    }

    @Test("the name: the flag, else PIPELINE_ENVIRONMENT, else the spec's template; a bad name is refused")
    func naming() async throws {
        let fixture = try EnvironmentFixture("environment-name")
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        let templated = try await fixture.transfers(environment: "{os}-{arch}")
        #expect(
            templated.stores.environmentName?.hasPrefix("linux-") == true,
            "\(String(describing: templated.stores.environmentName))")
        let variable = try await fixture.transfers(environment: "{os}", variables: ["PIPELINE_ENVIRONMENT": "ci-a"])
        #expect(variable.stores.environmentName == "ci-a")
        let flagged = try await ReferenceStores(
            settings: variable.stores.settings, base: fixture.root, origin: "the test",
            variables: ["PIPELINE_ENVIRONMENT": "ci-a"], named: "laptop")
        #expect(flagged.environmentName == "laptop")
        await #expect(throws: ReferenceError.self) {
            _ = try await fixture.transfers(environment: nil, variables: ["PIPELINE_ENVIRONMENT": "../up"])
        }
        // Opened for the shared sets alone: a role's own set is refused rather than taken to be the shared one.
        let sharedOnly = ReferenceStores(
            sharedSetsOf: ReferenceSettings(develop: .folder(path: "store/develop"), environment: "linux"),
            base: fixture.root, origin: "the test", variables: [:])
        #expect(throws: ReferenceError.self) { try sharedOnly.folder(.develop) }
        #expect(sharedOnly.environmentName == nil)
    }
}
