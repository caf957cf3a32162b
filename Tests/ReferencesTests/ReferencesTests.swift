import Foundation
import GitChanges
import ObjectStorage
import PipelineCore
import PipelineSpec
import TestSupport
import Testing

@testable import References

@Suite("where a reference command's settings come from")
struct ReferenceSourceTests {
    private func repository(_ specs: [String: String]) throws -> URL {
        let root = try Scratch.folder("source")
        for (name, text) in specs { try Scratch.write(text, to: root.appendingPathComponent("pipelines/\(name).yml")) }
        return root
    }

    private static func spec(_ name: String, develop: String) -> String {
        """
        name: \(name)
        description: A pipeline.
        references:
          feature: storage/feature
          develop: \(develop)
        stages:
          - promote:
              from: feature
              to: develop
        """
    }

    @Test("the one pipeline that sets references, with flags over it")
    func onePipeline() throws {
        let root = try repository(["post-merge": Self.spec("post-merge", develop: "storage/develop")])
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try ReferenceSource.locate(from: root, pipeline: nil)
        #expect(source.origin == "pipelines/post-merge.yml")
        let overridden = source.references(
            ReferenceSettings(develop: .s3(bucket: "team", prefix: "develop"), region: "eu-west-1"))
        #expect(overridden.feature == .folder(path: "storage/feature"))
        #expect(overridden.develop == .s3(bucket: "team", prefix: "develop"))
        #expect(overridden.region == "eu-west-1")
        #expect(source.changes(testPattern: "*Spec").tests == "*Spec")
        #expect(source.changes(testPattern: nil).tests == "*Tests")
    }

    @Test("two pipelines naming different references need --pipeline")
    func ambiguous() throws {
        let root = try repository([
            "a": Self.spec("a", develop: "storage/develop"), "b": Self.spec("b", develop: "other/develop"),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: RequestError("pipelines a and b name different references; choose one with --pipeline NAME")) {
            try ReferenceSource.locate(from: root, pipeline: nil)
        }
        #expect(
            try ReferenceSource.locate(from: root, pipeline: "b").spec?.references?.develop
                == .folder(path: "other/develop"))
    }

    @Test("no pipelines folder: no spec, and the reason in its place")
    func noSpec() throws {
        let root = try Scratch.folder("nospec")
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try ReferenceSource.locate(from: root, pipeline: nil)
        #expect(source.spec == nil)
        #expect(source.origin == "there is no pipelines/ folder here")
        #expect(throws: (any Error).self) { try ReferenceSource.locate(from: root, pipeline: "post-merge") }
    }
}

@Suite("which commits a command compares")
struct ChangeQueryTests {
    @Test("flags before the spec; a spec's range without a base is refused")
    func comparisons() throws {
        #expect(try ChangeQuery().comparison() == .merge(head: "HEAD"))
        #expect(try ChangeQuery(head: "main").comparison() == .merge(head: "main"))
        #expect(try ChangeQuery(base: "v1").comparison() == .range(base: "v1", head: "HEAD"))
        #expect(
            try ChangeQuery(mergeBase: ("develop", "feature")).comparison()
                == .mergeBase(base: "develop", head: "feature"))
        let range = ChangeSettings(compare: .range, base: "develop", head: "topic")
        #expect(try ChangeQuery().comparison(settings: range) == .range(base: "develop", head: "topic"))
        #expect(try ChangeQuery(head: "other").comparison(settings: range) == .range(base: "develop", head: "other"))
        let mergeBase = ChangeSettings(compare: .mergeBase, base: "develop")
        #expect(try ChangeQuery().comparison(settings: mergeBase) == .mergeBase(base: "develop", head: "HEAD"))
        #expect(
            throws: RequestError(
                "changes.compare is range but no base is given; pass --base REV or set changes.base")
        ) {
            try ChangeQuery().comparison(settings: ChangeSettings(compare: .range))
        }
    }
}

@Suite("a transfer's completeness")
struct TransferReportTests {
    @Test("a failed object fails the command, counting every object")
    func incomplete() throws {
        var report = TransferReport(action: "push", from: "a", to: "b", tests: ["T"], commit: nil, dryRun: false)
        report.copied = ["T/a.png", "T/b.png"]
        try TransferReport.requireComplete([report])
        report.failures = ["T/c.png: 503"]
        #expect(throws: ReferenceError.incomplete(failed: 1, total: 3)) { try TransferReport.requireComplete([report]) }
    }
}

@Suite("what a push changed")
struct PushManifestTests {
    @Test("files added or changed against develop at the push, and files it removed")
    func changes() {
        let record = PushManifest(
            commit: String(repeating: "a", count: 40), pushedAt: "2026-11-23T06:00:00Z",
            files: ["same.png": "1", "changed.png": "2", "new.png": "3"],
            develop: ["same.png": "1", "changed.png": "9", "gone.png": "4"])
        #expect(record.changes.changed == ["changed.png", "new.png"])
        #expect(record.changes.removed == ["gone.png"])
        let unknownDevelop = PushManifest(commit: record.commit, pushedAt: "", files: ["a.png": "1"], develop: nil)
        #expect(unknownDevelop.changes.changed == ["a.png"])
        #expect(unknownDevelop.changes.removed.isEmpty)
    }

    @Test("the archive reads only full commit ids from record names")
    func commitNames() {
        #expect(PushArchive.isCommit(String(repeating: "0f", count: 20)))
        #expect(!PushArchive.isCommit("HEAD"))
        #expect(!PushArchive.isCommit(String(repeating: "g", count: 40)))
        #expect(!PushArchive.isCommit("../" + String(repeating: "a", count: 37)))
    }

    @Test("keys that are not references: top-level objects, hidden folders, the shared runs' folder")
    func references() throws {
        #expect(try ObjectKey("LoginTests/test_login.1.png").isReference)
        #expect(try !ObjectKey("pipeline-timings.json").isReference)
        #expect(try !ObjectKey(".pushes/abc/LoginTests/test_login.1.png").isReference)
        #expect(try !ObjectKey(".push-records/LoginTests/abc.json").isReference)
        #expect(try !ObjectKey("pipeline-runs/42/plan.json").isReference)
    }
}

@Suite("develop's promotion record: promotions of one test end in merge order")
struct PromotionLedgerTests {
    /// Feature and develop folder stores and a history of three commits: a base, then merges m1 and m2.
    private struct Fixture {
        let root: URL
        let commits: [String]
        let history: CommitHistory
        let feature: FolderStore
        let develop: FolderStore

        init() throws {
            root = try Scratch.folder("ledger")
            commits = try Scratch.commits(3, in: root)
            history = try CommitHistory(repositoryPath: root.path)
            feature = FolderStore(root: root.appendingPathComponent("feature"))
            develop = FolderStore(root: root.appendingPathComponent("develop"))
        }

        var m1: String { commits[1] }
        var m2: String { commits[2] }

        func ledger(lease: Duration = .seconds(60)) -> PromotionLedger {
            PromotionLedger(
                develop: StoreLocation(store: develop), feature: StoreLocation(store: feature), lease: lease,
                parallelism: 4
            )
        }

        /// A source file in feature, as a copy of `name` in a plan.
        func source(_ name: String, _ content: String) throws -> PromotionLedger.Entry.Copy {
            let key = "src/\(UUID().uuidString)/\(name)"
            try Scratch.write(content, to: root.appendingPathComponent("feature/\(key)"))
            return PromotionLedger.Entry.Copy(
                name: name, source: key, md5: try Digest.hex(of: Data(content.utf8), .md5))
        }

        func developFile(_ name: String) -> String? {
            try? String(contentsOf: root.appendingPathComponent("develop/T/\(name)"), encoding: .utf8)
        }

        func write(_ record: PromotionLedger.Entry) async throws {
            try await develop.put(
                try JSONEncoder().encode(record), to: try ObjectKey(".promotions/T.json"), condition: .always)
        }
    }

    @Test("a job that stopped midway is completed by the next one, before its own files")
    func rollForward() async throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        var stopped = PromotionLedger.Entry()
        stopped.pending = PromotionLedger.Entry.Pending(
            commit: fixture.m1, leaseUntil: Date().timeIntervalSince1970 - 1,
            copies: [try fixture.source("a.png", "a by m1"), try fixture.source("b.png", "b by m1")], deletes: [])
        try await fixture.write(stopped)
        // m1's job copied b before it was killed.
        try Scratch.write("b by m1", to: fixture.root.appendingPathComponent("develop/T/b.png"))

        let outcome = try await fixture.ledger().promote(
            "T", copies: [try fixture.source("b.png", "b by m2")], deletes: [], merge: fixture.m2,
            history: fixture.history)
        #expect(outcome.copied == ["T/b.png"])
        #expect(fixture.developFile("a.png") == "a by m1", "the stopped job's plan was completed")
        #expect(fixture.developFile("b.png") == "b by m2", "then the later merge's own")
        let (record, _) = try await fixture.ledger().read("T")
        #expect(record.pending == nil)
        #expect(record.files["a.png"]?.commit == fixture.m1)
        #expect(record.files["b.png"]?.commit == fixture.m2)
        #expect(try await fixture.ledger().inProgress().isEmpty)
    }

    @Test("an earlier merge's job that runs late leaves what the later merge wrote")
    func laterMergeWins() async throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        _ = try await fixture.ledger().promote(
            "T", copies: [try fixture.source("a.png", "a by m2")], deletes: [], merge: fixture.m2,
            history: fixture.history)
        let late = try await fixture.ledger().promote(
            "T", copies: [try fixture.source("a.png", "a by m1"), try fixture.source("c.png", "c by m1")],
            deletes: [], merge: fixture.m1, history: fixture.history)
        #expect(late.copied == ["T/c.png"])
        #expect(late.notOverwritten == [PromotionConflict(key: "T/a.png", commit: fixture.m2)])
        #expect(fixture.developFile("a.png") == "a by m2")
        #expect(fixture.developFile("c.png") == "c by m1")
    }

    @Test("a job re-run finishes its own claim at once; another job waits for a live claim's lease")
    func ownClaim() async throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.root) }
        var claimed = PromotionLedger.Entry()
        claimed.pending = PromotionLedger.Entry.Pending(
            commit: fixture.m1, leaseUntil: Date().timeIntervalSince1970 + 1,
            copies: [try fixture.source("a.png", "a by m1")], deletes: [])
        try await fixture.write(claimed)
        let start = ContinuousClock.now
        let other = try await fixture.ledger().promote(
            "T", copies: [try fixture.source("b.png", "b by m2")], deletes: [], merge: fixture.m2,
            history: fixture.history)
        #expect(ContinuousClock.now - start >= .milliseconds(700), "it waited for the live claim")
        #expect(other.copied == ["T/b.png"])
        #expect(fixture.developFile("a.png") == "a by m1")

        claimed.pending?.leaseUntil = Date().timeIntervalSince1970 + 600
        claimed.pending?.copies = [try fixture.source("d.png", "d by m1")]
        try await fixture.write(claimed)
        let rerun = try await fixture.ledger().promote(
            "T", copies: [], deletes: [], merge: fixture.m1, history: fixture.history)
        #expect(rerun.copied == ["T/d.png"], "its own claim, finished without waiting for the lease")
    }
}

@Suite("where a reference was rendered")
struct RenderEnvironmentTests {
    @Test("kept as metadata and read back; the CI's name does not change how a view renders")
    func metadata() throws {
        let ci = RenderEnvironment(
            os: "Linux debian 12", arch: "x86_64", swift: "6.2.1", snapshotTesting: "1.18.4", ci: "GitHub Actions")
        #expect(
            ci.metadataValue == "os=Linux debian 12;arch=x86_64;swift=6.2.1;snapshot-testing=1.18.4;ci=GitHub Actions")
        #expect(RenderEnvironment(metadata: ci.metadataValue) == ci)
        #expect(ci.description == "Linux debian 12 x86_64, Swift 6.2.1, swift-snapshot-testing 1.18.4 (GitHub Actions)")
        var laptop = ci
        laptop.ci = nil
        #expect(laptop.rendersLike(ci))
        laptop.arch = "arm64"
        #expect(!laptop.rendersLike(ci))
        #expect(RenderEnvironment(metadata: "swift=6.2") == nil, "no OS or architecture: nothing known")
        #expect(RenderEnvironment(os: "macOS;15=é", arch: "arm64").metadataValue == "os=macOS 15  ;arch=arm64")
    }

    @Test("the library's version from Package.resolved, in either format; the CI from its variables")
    func versions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(RenderEnvironment.snapshotTestingVersion(package: folder) == nil)
        let resolved = folder.appendingPathComponent("Package.resolved")
        try Data(
            #"{"pins":[{"identity":"swift-snapshot-testing","state":{"revision":"a","version":"1.18.4"}}],"version":2}"#
                .utf8
        ).write(to: resolved)
        #expect(RenderEnvironment.snapshotTestingVersion(package: folder) == "1.18.4")
        try Data(
            #"{"object":{"pins":[{"package":"swift-snapshot-testing","state":{"version":"1.9.0"}}]},"version":1}"#.utf8
        ).write(to: resolved)
        #expect(RenderEnvironment.snapshotTestingVersion(package: folder) == "1.9.0")
        #expect(await RenderEnvironment.current(package: folder, variables: ["CI": "false"]).ci == nil)
        let here = await RenderEnvironment.current(package: folder, variables: ["CI": "true"])
        #expect(here.ci == "CI")
        #expect(here.swift?.first?.isNumber == true, "swift --version read through ChildProcess: \(here)")
        #expect(!RenderEnvironment.architecture().isEmpty)
        #expect(
            RenderEnvironment.operatingSystem().hasPrefix("Linux")
                || RenderEnvironment.operatingSystem().hasPrefix("macOS"))
    }
}

@Suite("which candidate records make one CI run")
struct CandidateRunGroupTests {
    func record(_ run: String, ciRun: String?, node: String?, tests: [String] = ["T"]) -> CandidateRun {
        CandidateRun(commit: "c", run: run, createdAt: "x", tests: tests, ciRun: ciRun, node: node)
    }

    @Test("the nodes of the latest CI run, not an earlier run's, nor the same node retried")
    func latest() {
        let earlier = record("1", ciRun: "41.1", node: "node-1-of-2")
        let first = record("2", ciRun: "42.1", node: "node-1-of-2")
        let second = record("3", ciRun: "42.1", node: "node-2-of-2")
        #expect(CandidateRun.latest([earlier, first, second]).map(\.run) == ["2", "3"])
        // GitLab retries a job under the same pipeline id: the retried node is a later run.
        let retried = record("4", ciRun: "42.1", node: "node-1-of-2")
        #expect(CandidateRun.latest([earlier, first, second, retried]).map(\.run) == ["3", "4"])
        // Whole runs (no node) under one id are runs of their own.
        let whole = [record("5", ciRun: "43", node: nil), record("6", ciRun: "43", node: nil)]
        #expect(CandidateRun.latest(whole).map(\.run) == ["6"])
        #expect(CandidateRun.latest([]).isEmpty)
        #expect(
            !record("7", ciRun: nil, node: "node-1-of-2").sameCIRun(as: record("8", ciRun: nil, node: "node-2-of-2")))
    }
}
