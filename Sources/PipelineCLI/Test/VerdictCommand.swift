import ArgumentParser
import Foundation
import PipelineSpec
import TestRun
import XcodeFlow

/// `pipeline verdict --reuse-verdicts LOCATION`: whether a passing verdict stands for this
/// checkout's run, so a workflow can skip its build and its nodes.
struct VerdictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verdict",
        abstract: "Say whether a passing run already verified this checkout's tree (exit 0), or not (exit 1).",
        discussion: """
            Looks for a passing verdict of this checkout's key (the git tree, the build, the selection, the \
            references compared against; docs/ci.md, "Tested once") in LOCATION, and says which run verified \
            it, on which commit, when. With --xcode the build is the Xcode that 'xcodebuild -version' names, \
            PIPELINE_XCODE_SCHEME and PIPELINE_XCODE_DESTINATION, as 'pipeline import --reuse-verdicts' keys a \
            run. With --queue, a verdict found is noted in the shared run's folder, where the run's nodes \
            ('pipeline verdict --noted --queue') and 'pipeline report --reuse-verdicts' find it. Exit 1 when \
            none stands: the tests must run.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The checkout (a package, or an app's repository).", valueName: "path"))
    var packagePath = "."

    @OptionGroup var shared: SharedRunOptions

    @Option(
        help: ArgumentHelp(
            "A folder or s3://bucket/prefix where passing runs keep their verdicts (not with --noted).",
            valueName: "location"))
    var reuseVerdicts: StoreAddress?

    @Flag(help: "Key a run Xcode makes (xcodebuild -version, the scheme and the destination), not a SwiftPM build.")
    var xcode = false

    @Flag(help: "With --queue: only read what the run's first job noted (a node's check; no key is computed).")
    var noted = false

    @Flag(help: "A verdict of a run with flaky, retried or quarantined tests may stand too.")
    var reuseFlaky = false

    @OptionGroup var environmentOption: EnvironmentOption

    func validate() throws {
        if reuseVerdicts == nil, !noted {
            throw ValidationError("say where verdicts are kept: --reuse-verdicts LOCATION (or --noted --queue)")
        }
        if noted, shared.queue == nil { throw ValidationError("--noted reads a shared run's note: give --queue too") }
        if noted, xcode {
            throw ValidationError("--noted reads the note the run's first job left: it takes no --xcode")
        }
    }

    func run() async throws {
        let write: @Sendable (String) -> Void = { Console.progress($0) }
        let shared = shared.settings(global)
        let request = TestRequest(
            package: global.resolve(packagePath), shared: shared, cores: global.availableCores,
            stores: try await SpecStores.locate(for: shared, environment: environmentOption.environment, write: write),
            verdicts: VerdictSettings(read: reuseVerdicts.map { [$0] } ?? [], keep: nil, reuseShaky: reuseFlaky),
            title: "pipeline verdict", write: write)
        let verified =
            try await xcode
            ? XcodeTests(request).verifiedXcodeRun(notedOnly: noted) : TestFlow(request).verifiedRun(notedOnly: noted)
        guard verified != nil else {
            throw QuietExit(status: .testsFailed)
        }
    }
}
