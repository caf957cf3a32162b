import Foundation
import GitChanges
import ObjectStorage
import PipelineCore
import PipelineSpec
import SharedRun
import TestCore
import TestRun
import TestSharding
import TestSupport
import Testing

@testable import Pipelines
@testable import References

/// A git repository at `folder` with two empty commits; returns them, oldest first.
func gitInit(_ folder: URL) throws -> (base: String, head: String) {
    let commits = try Scratch.commits(2, in: folder)
    return (commits[0], commits[1])
}

/// A change set as `pipeline changes --json` prints it: `promotable` are the tests it touched.
func changeSet(
    promotable: [String] = [], files: [String] = [],
    commits: (base: String, head: String) = (String(repeating: "a", count: 40), String(repeating: "b", count: 40))
) throws -> ChangeSet {
    let json: [String: Any] = [
        "base": commits.base, "head": commits.head, "comparison": "range",
        "headIsMerge": true, "files": files.map { ["path": $0, "status": "modified", "submodule": false] },
        "testTargets": [], "testFiles": [], "referenceFolders": [], "promotable": promotable, "other": [],
    ]
    return try JSONDecoder().decode(ChangeSet.self, from: JSONSerialization.data(withJSONObject: json))
}

/// A runner over `stages`, with folder stores under `root`.
func runner(_ stages: [Stage], root: URL, changes: ChangeSet, cores: Int = 2) -> PipelineRunner {
    let spec = PipelineSpec(
        name: "post-merge", description: "A pipeline.",
        references: ReferenceSettings(
            feature: .folder(path: "storage/feature"), develop: .folder(path: "storage/develop")),
        stages: stages)
    return PipelineRunner(
        spec: spec, base: root, origin: "pipelines/post-merge.yml", changes: changes, cores: cores, interactive: false
    ) { _ in }
}

func failedTestStage() -> StageOutcome {
    StageOutcome(kind: .test, status: .failed, summary: "1 failed")
}

@Suite("when a stage is skipped")
struct StageSkippingTests {
    @Test("promotion and pushing never follow failed tests, unless promotion says even-if-tests-fail")
    func afterFailedTests() async throws {
        let root = try Scratch.folder("skip")
        defer { try? FileManager.default.removeItem(at: root) }
        let commits = try gitInit(root)
        let run = runner([], root: root, changes: try changeSet(promotable: ["BadgeViewTests"], commits: commits))
        var context = StageContext(runner: run)
        context.finished = [failedTestStage()]
        let promote = PromoteExecutor(stage: PromoteStage(from: .feature, to: .develop))
        let promoted = try await promote.run(in: &context)
        #expect(promoted.status == .skipped)
        #expect(promoted.summary == "the test stage failed; nothing promoted")
        let pushed = try await PushExecutor(stage: PushStage(to: .feature)).run(in: &context)
        #expect(pushed.status == .skipped)
        #expect(pushed.summary == "the test stage failed; nothing pushed")

        // Even if the tests fail: promotion goes on, and here finds feature empty of the test.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("storage/feature"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("storage/develop"), withIntermediateDirectories: true)
        var evenIf = PromoteStage(from: .feature, to: .develop)
        evenIf.evenIfTestsFail = true
        let forced = try await PromoteExecutor(stage: evenIf).run(in: &context)
        #expect(forced.kind == .promote)
        #expect(forced.status == .passed)
        #expect(forced.transfers?.first?.skipped["BadgeViewTests"] == "no references in \(root.path)/storage/feature")
    }

    @Test("a stage with nothing to do says why")
    func nothingToDo() async throws {
        let root = try Scratch.folder("nothing")
        defer { try? FileManager.default.removeItem(at: root) }
        let commits = try gitInit(root)
        for store in ["storage/feature", "storage/develop"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        var context = StageContext(runner: runner([], root: root, changes: try changeSet(commits: commits)))
        let review = try await ReviewExecutor(stage: ReviewStage(output: "review.html")).run(in: &context)
        #expect(review.status == .skipped)
        #expect(review.summary == "no snapshot failed, and the change touched no test or reference folder")
        let push = try await PushExecutor(stage: PushStage(to: .feature)).run(in: &context)
        #expect(push.summary == "no changed test has local references")
    }

    @Test("orphans fail the pipeline only when the stage says so")
    func orphans() async throws {
        let root = try Scratch.folder("orphans")
        defer { try? FileManager.default.removeItem(at: root) }
        try Scratch.write("png", to: root.appendingPathComponent("storage/develop/GoneTests/test.1.png"))
        var context = StageContext(runner: runner([], root: root, changes: try changeSet()))
        let listed = try await OrphansExecutor(stage: OrphansStage(store: .develop, fail: false)).run(in: &context)
        #expect(listed.status == .passed)
        #expect(listed.orphans?.map(\.test) == ["GoneTests"])
        let failing = try await OrphansExecutor(stage: OrphansStage(store: .develop, fail: true)).run(in: &context)
        #expect(failing.status == .failed)
        #expect(failing.summary == "1 test(s) with references and no test file: GoneTests")
    }
}

@Suite("which tests a test stage runs")
struct TestStageSelectionTests {
    @Test("the stage becomes a request of the one test flow: its settings, selection, stores and candidates")
    func request() async throws {
        let root = try Scratch.folder("options")
        defer { try? FileManager.default.removeItem(at: root) }
        var stage = TestStage()
        stage.shards = .auto
        stage.retries = 2
        stage.maxRetried = 5
        stage.flaky = .pass
        stage.timeout = .seconds(90)
        stage.select = .impactedOrAll
        stage.keepsCandidates = false
        let changes = try changeSet()
        var context = StageContext(runner: runner([], root: root, changes: changes, cores: 6))
        let request = try await TestExecutor(stage: stage).request(&context)
        let options = request.runOptions()
        #expect(options.shards == 6)
        #expect(options.retries == 2)
        #expect(options.maxRetried == 5)
        #expect(options.flakyFails == false)
        #expect(options.limits.timeout == .seconds(90))
        #expect(request.selection == .impactedOrAll)
        #expect(request.keepsCandidates == false)
        #expect(request.candidatesCommit == changes.head)
        #expect(request.stores?.settings.address(of: .develop) != nil)
        // The spec keeps references in stores: the stage's timings are develop's, as `pipeline test --timings develop`.
        #expect(request.shared.timings == .store(.develop))
        stage.shards = .fixed(3)
        #expect(try await TestExecutor(stage: stage).request(&context).runOptions().shards == 3)
    }

    @Test(
        "the dry run plans the shards from the durations in the develop store, longest first; timings: local opts out")
    func dryRunShards() async throws {
        let root = try Scratch.folder("dry")
        defer { try? FileManager.default.removeItem(at: root) }
        var timings = Timings()
        for (name, seconds) in [("Kit.A/long", 8.0), ("Kit.B/mid", 5.0), ("Kit.C/short", 2.0), ("Kit.D/tiny", 1.0)] {
            timings.add(TestID(name, framework: .xctest), seconds: seconds)
        }
        // The spec keeps its references in stores, and the stage says nothing of timings: develop's.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("storage/develop"), withIntermediateDirectories: true)
        try timings.save(root.appendingPathComponent("storage/develop/pipeline-timings.json"))
        var stage = TestStage()
        stage.shards = .fixed(2)
        let plan = await runner([.test(stage)], root: root, changes: try changeSet()).dryRun()
        let shards = try #require(plan.stages.first?.shards)
        #expect(shards.map(\.tests) == [["Kit.A/long"], ["Kit.B/mid", "Kit.C/short", "Kit.D/tiny"]])
        #expect(shards.map(\.expectedSeconds) == [8, 8])
        #expect(plan.stages.first?.note?.contains("timings: read from") == true)
        #expect(plan.stages.first?.test?.timings == "develop")
        // `timings: local`: the package's own file, where nothing is recorded yet.
        stage.timings = .local
        let local = await runner([.test(stage)], root: root, changes: try changeSet()).dryRun()
        #expect(local.stages.first?.shards == nil)
        #expect(local.stages.first?.note?.contains("no recorded durations in") == true)
        #expect(local.stages.first?.test?.timings == "local")
    }

    @Test("with no recorded durations, the dry run says the shards are planned when the tests are listed")
    func dryRunWithoutTimings() async throws {
        let root = try Scratch.folder("notimings")
        defer { try? FileManager.default.removeItem(at: root) }
        let plan = await runner([.test(TestStage())], root: root, changes: try changeSet()).dryRun()
        #expect(plan.stages.first?.shards == nil)
        #expect(plan.stages.first?.note?.contains("no recorded durations in") == true)
    }
}

@Suite("a plan's stages")
struct DryRunTests {
    @Test("one entry per stage, in order, with its kind and the store it works on")
    func stages() throws {
        let spec = PipelineSpec(
            name: "p", description: "d",
            references: ReferenceSettings(feature: .folder(path: "f"), develop: .s3(bucket: "team", prefix: "develop")),
            stages: [
                .pull(PullStage(from: .develop)), .test(TestStage()),
                .promote(PromoteStage(from: .feature, to: .develop)),
                .push(PushStage(to: .feature)), .orphans(OrphansStage(store: .develop)),
                .review(ReviewStage(output: "r.html")),
            ])
        let plan = DryRun(spec: spec, file: "pipelines/p.yml", availableCores: 4, dryRun: false)
        #expect(plan.stages.map(\.kind) == [.pull, .test, .promote, .push, .orphans, .review])
        #expect(plan.stages[0].store?.location == "s3://team/develop")
        #expect(plan.stages[1].test?.shardCount == 4)
        #expect(plan.stages[1].test?.timings == "develop", "kept in the spec's develop store by default")
        #expect(plan.stages[2].promote?.toLocation == "s3://team/develop")
        #expect(plan.stages[3].store?.location == "f")
        #expect(plan.render().contains("  1. pull     develop's references for every test into the checkout"))
    }
}

@Suite("exit statuses")
struct ExitStatusTests {
    @Test("exit codes are distinct")
    func exitCodes() {
        let codes = ExitStatus.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
    }

    @Test("each library's errors map to their documented status")
    func classify() {
        let conflict = PromotionConflict(key: "T/a.png", commit: String(repeating: "c", count: 40))
        #expect(ExitStatus.classify(ReferenceError.developChanged([conflict]))?.status == .conflict)
        #expect(ExitStatus.classify(ReferenceError.notConfigured("x"))?.status == .spec)
        #expect(ExitStatus.classify(ReferenceError.incomplete(failed: 1, total: 2))?.status == .storage)
        #expect(ExitStatus.classify(StoreError.transport(endpoint: "e", reason: "r"))?.status == .storage)
        #expect(ExitStatus.classify(TestRunError.noTests(package: "p"))?.status == .noTests)
        #expect(ExitStatus.classify(TestRunError.interrupted)?.status == .interrupted)
        #expect(ExitStatus.classify(RequestError("r"))?.status == .usage)
        #expect(ExitStatus.classify(RequestError("r"))?.message == "r")
        #expect(ExitStatus.classify(FileError.cannotWrite(path: "f", reason: "r"))?.status == .usage)
        #expect(ExitStatus.classify(ReferenceError.developStale([]))?.status == .stale)
        #expect(ExitStatus.classify(CocoaError(.fileNoSuchFile)) == nil)
    }
}
