import ArgumentParser
import Foundation
import ProjectSetup

extension SetupRequest.CI: ExpressibleByArgument {}
extension SetupRequest.MergeStyle: ExpressibleByArgument {}

/// `pipeline init`: the specs and CI files for a team starting out, then the next commands.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write the pipeline specs and the CI's workflow files for this repository.",
        discussion: """
            Writes pipelines/pull-request.yml and pipelines/post-merge.yml (pull, test, promote) and \
            the CI's files: a pull request's run, the post-merge run and an accept job a reviewer \
            starts from the pull request (GitHub: .github/workflows/pipeline-*.yml; Bitrise: \
            bitrise.yml; GitLab: .gitlab-ci.yml). A file that exists already stops it before \
            anything is written, except a bitrise.yml, which pipeline's workflows (named pipeline-…) join \
            unless something in it clashes (each clash named by its line; nothing written). Then prints the next three commands. With --xcode (and --scheme), the \
            workflows of an app tested with xcodebuild on macOS runners: one build for testing, N simulator \
            nodes importing their results, a report over all of them, the promotion (docs/xcode.md).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The CI: github, bitrise or gitlab.", valueName: "ci"))
    var ci: SetupRequest.CI

    @Option(
        help: ArgumentHelp(
            "Where references are kept: a folder (relative to the repository) or s3://bucket/prefix; "
                + "feature/ and develop/ go below it.", valueName: "store"))
    var store: String

    @Option(help: ArgumentHelp("The S3 region.", valueName: "region"))
    var region: String?

    @Option(help: ArgumentHelp("An S3-compatible server's address (not AWS).", valueName: "url"))
    var endpoint: String?

    @Option(
        help: ArgumentHelp(
            "Where feature's references are below --store, for a team whose store has its own layout "
                + "(ios/feature/__Snapshots__).", valueName: "path"))
    var feature = "feature"

    @Option(help: ArgumentHelp("Where develop's references are below --store.", valueName: "path"))
    var develop = "develop"

    @Option(help: ArgumentHelp("CI machines sharing each run's tests through the store.", valueName: "n"))
    var nodes = 1

    @Option(
        name: .customLong("merge-style"),
        help: ArgumentHelp("How pull requests merge: merge, squash or rebase.", valueName: "style"))
    var mergeStyle: SetupRequest.MergeStyle = .merge

    @Option(help: ArgumentHelp("The branch pull requests merge into.", valueName: "branch"))
    var base = "develop"

    @Flag(
        help:
            "An app tested with xcodebuild on macOS runners (GitHub or Bitrise): build once, N simulator nodes, import."
    )
    var xcode = false

    @Option(help: ArgumentHelp("With --xcode: the scheme to build for testing.", valueName: "scheme"))
    var scheme: String?

    @Option(help: ArgumentHelp("With --xcode: xcodebuild's -destination.", valueName: "destination"))
    var destination = "platform=iOS Simulator,name=iPhone 16"

    @Option(help: ArgumentHelp("With --xcode: the project to build (.xcodeproj).", valueName: "path"))
    var project: String?

    @Option(help: ArgumentHelp("With --xcode: the workspace to build (.xcworkspace).", valueName: "path"))
    var workspace: String?

    @Option(
        help: ArgumentHelp(
            "GitHub: the action that installs pipeline, as OWNER/REPO@REF (default: a placeholder to edit).",
            valueName: "action"))
    var action: String?

    @Option(
        help: ArgumentHelp(
            "Where releases are served, as <url>/v<version>/<tarball> (default: the action's GitHub releases).",
            valueName: "url"))
    var releases: String?

    func validate() throws {
        if xcode, scheme == nil { throw ValidationError("--xcode builds a scheme: pass --scheme NAME") }
        if !xcode, scheme != nil || project != nil || workspace != nil {
            throw ValidationError("--scheme, --project and --workspace go with --xcode")
        }
    }

    func run() async throws {
        let request = try SetupRequest(
            ci: ci, store: store, layout: (feature, develop), region: region, endpoint: endpoint, nodes: nodes,
            mergeStyle: mergeStyle, base: base,
            version: Version.number,
            xcode: try scheme.map {
                try SetupRequest.XcodeApp(scheme: $0, destination: destination, project: project, workspace: workspace)
            }, action: action, releases: releases)
        let files = try ProjectSetup.write(request, in: global.workingDirectory)
        for file in files {
            Console.out(
                file.joined ? "joined \(file.path): pipeline's workflows added, named pipeline-…" : "wrote \(file.path)"
            )
        }
        for warning in ProjectSetup.warnings(request) { Console.error("warning: " + warning) }
        Console.out("\nNext:")
        let others = ProjectSetup.otherSpecs(in: global.workingDirectory, written: files)
        for line in ProjectSetup.nextSteps(request, files: files, others: others) { Console.out("  " + line) }
    }
}
