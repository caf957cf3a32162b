import ArgumentParser
import CISystem
import Foundation
import PipelineSpec
import TestCore
import TestRun
import XcodeFlow

/// `pipeline import xcresult|xcodebuild-log FILE`: a run Xcode made, reported as `pipeline test`
/// reports its own.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Report a test run Xcode made: its timings, flaky tests, quarantine and JUnit, as 'pipeline test' does.",
        discussion: """
            xcresult FILE: 'xcrun xcresulttool get test-results tests' JSON (Xcode 16 or later; on macOS also an \
            .xcresult bundle). xcodebuild-log FILE|-: xcodebuild's console output, serial or parallel, XCTest and \
            Swift Testing. The report is pipeline test's: the durations folded into the timings (which then plan \
            'pipeline plan --format xcodebuild'), a failure followed by a passing repetition flaky, \
            pipelines/quarantine.yml applied, --junit, --json, the last run kept for 'plan --failed', GitHub's \
            annotations and step summary; exit 1 when tests failed. See docs/xcode.md.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("What the file holds: xcresult or xcodebuild-log.", valueName: "kind"))
    var kind: XcodeOutputKind

    @Argument(help: ArgumentHelp("The file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp("The checkout: where the timings, the last run and the quarantine are.", valueName: "path"))
    var packagePath = "."

    @OptionGroup var shared: SharedRunOptions

    @Option(help: ArgumentHelp("Whether a flaky test fails the run: fail or pass.", valueName: "fail|pass"))
    var flaky = FlakyPolicy.fail

    @Option(
        name: .customLong("quarantine"),
        help: ArgumentHelp(
            "The quarantine file (default: pipelines/quarantine.yml around the checkout).", valueName: "path"))
    var quarantineFile: String?

    @Flag(help: "Leave the recorded durations as they are.")
    var noUpdateTimings = false

    @Option(help: ArgumentHelp("Write one JUnit XML report of the run here.", valueName: "path"))
    var junit: String?

    @Option(
        help: ArgumentHelp(
            "With --queue: which node of the run's split this is (default: the CI's parallel index, as Bitrise, "
                + "GitLab, Buildkite and CircleCI number their parallel jobs).", valueName: "I/N"),
        transform: parseNode)
    var node: Node?

    @Option(
        help: ArgumentHelp(
            "Where the review page of failed snapshots goes. Default: <package>/.build/pipeline/snapshot-review.html.",
            valueName: "path"))
    var review: String?

    @Flag(help: "Print the report as JSON (see docs/json.md).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "swift-snapshot-testing's artifacts folder of the run (TEST_RUNNER_SNAPSHOT_ARTIFACTS): failed snapshots "
                + "are paired with the checkout's references on the review page, and kept as CI's candidates.",
            valueName: "folder"))
    var artifacts: String?

    @Option(
        help: ArgumentHelp(
            "What 'xcrun xcresulttool export attachments' wrote (files and manifest.json): swift-snapshot-testing's "
                + "'failure' attachments are the failed snapshots, as with --artifacts.", valueName: "folder"))
    var attachments: String?

    @Option(
        help: ArgumentHelp(
            "In CI: the .xctestrun this node ran. Its tests that failed on a missing reference (new snapshot tests) "
                + "run once more with SNAPSHOT_TESTING_RECORD=missing, and their renderings are kept as CI's "
                + "candidates to accept (the verdict stays failed). Needs --artifacts or --attachments.",
            valueName: "xctestrun"))
    var renderNew: String?

    @Option(
        help: ArgumentHelp(
            "With --render-new: xcodebuild's -destination (default: PIPELINE_XCODE_DESTINATION).",
            valueName: "destination"))
    var destination: String?

    @Option(
        help: ArgumentHelp(
            "A folder or s3://bucket/prefix of verdicts: a passing import keeps its key (Xcode, scheme, destination, "
                + "the git tree, the references compared against), in a shared run for 'pipeline report "
                + "--reuse-verdicts' to keep the run's verdict; 'pipeline verdict --xcode' finds it (docs/ci.md, "
                + "\"Tested once\").", valueName: "location"))
    var reuseVerdicts: StoreAddress?

    @OptionGroup var environmentOption: EnvironmentOption

    func validate() throws {
        if artifacts != nil, attachments != nil {
            throw ValidationError("--artifacts and --attachments are two ways to give the failed snapshots: give one")
        }
        if renderNew != nil, artifacts == nil, attachments == nil {
            throw ValidationError(
                "--render-new keeps new tests' renderings beside the failed snapshots: give --artifacts")
        }
        if destination != nil, renderNew == nil {
            throw ValidationError("--destination is where --render-new runs the new tests: give --render-new too")
        }
        if node != nil, shared.queue == nil {
            throw ValidationError("--node files this node's results in a shared run: give --queue RUN too")
        }
    }

    /// This node: `--node`, else the CI's parallel index with `--queue`; the whole run alone.
    private func thisNode() throws -> Node {
        if let node { return node }
        guard shared.queue != nil else { return .whole }
        guard let (index, count) = CIContext().parallelNode else {
            throw ValidationError(
                "--queue files this node's part of the run: say which with --node I/N (this CI numbers no parallel jobs)"
            )
        }
        return Node(index: index, count: count)
    }

    /// The new tests' second run, with its destination from the flag or the CI's variable.
    private func render() throws -> (xctestrun: URL, destination: String)? {
        guard let renderNew else { return nil }
        return (global.resolve(renderNew), try xcodeDestination(destination, for: "--render-new"))
    }

    func run() async throws {
        let write: @Sendable (String) -> Void = { Console.progress($0) }
        let shared = shared.settings(global)
        let request = TestRequest(
            package: global.resolve(packagePath), shared: shared, cores: global.availableCores,
            limits: TestRequest.Limits(node: try thisNode(), flaky: flaky),
            quarantineFile: quarantineFile.map { (global.resolve($0), $0) },
            updatesTimings: !noUpdateTimings, junit: junit.map(global.resolve), review: review.map(global.resolve),
            stores: try await SpecStores.locate(for: shared, environment: environmentOption.environment, write: write),
            verdicts: reuseVerdicts.map { VerdictSettings(read: [$0], keep: $0) },
            title: "pipeline import \(kind.rawValue)",
            write: write)
        let path = file == "-" ? file : global.resolve(file).path
        let outcome = try await XcodeTests(request).importRun(
            kind, at: path, artifacts: artifacts.map(global.resolve), attachments: attachments.map(global.resolve),
            renderNew: try render())
        try TestOutcomeOutput.emit(outcome, json: json, node: .whole)
    }
}

extension XcodeOutputKind: ExpressibleByArgument {}
