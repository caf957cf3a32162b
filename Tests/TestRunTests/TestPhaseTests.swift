import Foundation
import TestCore
import TestSupport
import Testing

@testable import TestRun

/// The test flow as its phases: each step's phases in order, a phase added by a value (no edit of
/// `run()`), the flow's own planning phases on a package that is never built.
@Suite("a test run's phases")
struct TestPhaseTests {
    /// A phase that writes its name and lets the run go on.
    struct Noting: TestPhase {
        let phase: Phase
        let name: String

        func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
            flow.request.write(name + "\n")
            return .next
        }
    }

    /// A phase that ends the run with what the earlier phases chose to run (`--list`'s outcome).
    struct Ending: TestPhase {
        let phase: Phase

        func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
            .finished(.listed(run.options.only.map { $0.sorted() } ?? ["everything"]))
        }
    }

    /// A phase leaving work running alongside the later phases.
    struct Alongside: TestPhase {
        let phase: Phase

        func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
            .alongside {
                try? await Task.sleep(for: .milliseconds(50))
                return ["kept alongside\n"]
            }
        }
    }

    /// A phase that fails.
    struct Failing: TestPhase {
        let phase: Phase

        func apply(_ run: inout RunState, in flow: TestFlow) async throws -> PhaseResult {
            throw CocoaError(.fileReadUnknown)
        }
    }

    /// A build preparer (the build cache's seam) that says it was asked, and refuses.
    struct RefusingPreparer: BuildPreparer {
        struct Refused: Error {}
        let written: Written

        func prepare(for flow: TestFlow, coverage: Bool) async throws -> PreparedBuild {
            written.add("prepare (coverage: \(coverage)) of \(flow.request.build.packagePath.lastPathComponent)\n")
            throw Refused()
        }
    }

    private func request(
        _ package: URL, failedOnly: Bool = false, buildCache: (any BuildPreparer)? = nil, written: Written
    ) -> TestRequest {
        TestRequest(
            package: package, shared: RunSharing(workingDirectory: package, variables: [:]), cores: 2,
            buildCache: buildCache, limits: .init(failedOnly: failedOnly), write: written.add)
    }

    private func names(_ outcome: TestOutcome) -> [String]? {
        if case .listed(let names) = outcome { names } else { nil }
    }

    @Test("phases take their steps' order, in the order given within a step; a finished run takes no more")
    func order() async throws {
        let package = try Scratch.folder("phases-order")
        defer { try? FileManager.default.removeItem(at: package) }
        let written = Written()
        let flow = TestFlow(
            request(package, written: written),
            phases: [
                Noting(phase: .publish, name: "publish"), Noting(phase: .configure, name: "configure 1"),
                Noting(phase: .select, name: "select"), Ending(phase: .select),
                Noting(phase: .configure, name: "configure 2"),
                Noting(phase: .run, name: "run"),
            ])
        #expect(flow.phases.map(\.phase) == [.configure, .configure, .select, .select, .run, .publish])
        let outcome = try await flow.run()
        #expect(names(outcome) == ["everything"])
        #expect(written.text == "configure 1\nconfigure 2\nselect\n")
        #expect(TestFlow.phases.map(\.phase) == TestFlow.phases.map(\.phase).sorted())
        #expect(Set(TestFlow.phases.map(\.phase)) == Set(Phase.allCases))
    }

    @Test("a phase added to the flow's own runs in its step, after the real configuring and before the build")
    func added() async throws {
        // No Package.swift: a build would fail, so the run ending before it proves none started.
        let package = try Scratch.folder("phases-added")
        defer { try? FileManager.default.removeItem(at: package) }
        let written = Written()
        let flow = TestFlow(request(package, written: written), phases: TestFlow.phases + [Ending(phase: .reuse)])
        let outcome = try await flow.run()
        #expect(names(outcome) == ["everything"])
        #expect(!written.text.contains("Building"))
    }

    @Test("--failed's phase narrows the run to what the last run left failing, or ends it when nothing did")
    func failedOnly() async throws {
        let package = try Scratch.folder("phases-failed")
        defer { try? FileManager.default.removeItem(at: package) }
        let written = Written()
        _ = try ReportFiles(junit: nil, package: package).write(ReportFilesTests.report())
        let flow = TestFlow(
            request(package, failedOnly: true, written: written), phases: TestFlow.phases + [Ending(phase: .reuse)])
        #expect(names(try await flow.run()) == ["AppTests.A/testTwo"])

        let one = TestID("AppTests.A/testOne", framework: .xctest)
        let passed = TestReport(
            shards: [Shard(index: 1, tests: [one], expectedSeconds: 1)],
            attempts: [TestAttempt(test: one, status: .passed, seconds: 0.5)], seconds: 1, node: .whole,
            flakyFails: true)
        _ = try ReportFiles(junit: nil, package: package).write(passed)
        let outcome = try await flow.run()
        guard case .nothingToRun(.nothingFailing(let origin, _)) = outcome else {
            Issue.record("expected nothing failing, got \(outcome)")
            return
        }
        #expect(origin.hasSuffix(".build/pipeline/last-run.json"))
    }

    @Test(
        "work a phase leaves running alongside ends with the run, and its lines are written even when a later phase fails"
    )
    func alongside() async throws {
        let package = try Scratch.folder("phases-alongside")
        defer { try? FileManager.default.removeItem(at: package) }
        let written = Written()
        let flow = TestFlow(
            request(package, written: written),
            phases: [Alongside(phase: .build), Noting(phase: .select, name: "select"), Failing(phase: .run)])
        await #expect(throws: CocoaError.self) { try await flow.run() }
        #expect(written.text == "select\nkept alongside\n")
    }

    @Test("the build asks the request's preparer (the build cache) first, and builds nothing when it fails")
    func preparedBuild() async throws {
        let package = try Scratch.folder("phases-prepared")
        defer { try? FileManager.default.removeItem(at: package) }
        let written = Written()
        let flow = TestFlow(request(package, buildCache: RefusingPreparer(written: written), written: written))
        await #expect(throws: RefusingPreparer.Refused.self) { try await flow.run() }
        #expect(written.text.contains("prepare (coverage: false) of \(package.lastPathComponent)\n"))
        #expect(!written.text.contains("Building"))
    }
}
