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
            anything is written. Then prints the next three commands.
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

    @Option(help: ArgumentHelp("CI machines sharing each run's tests through the store.", valueName: "n"))
    var nodes = 1

    @Option(
        name: .customLong("merge-style"),
        help: ArgumentHelp("How pull requests merge: merge, squash or rebase.", valueName: "style"))
    var mergeStyle: SetupRequest.MergeStyle = .merge

    @Option(help: ArgumentHelp("The branch pull requests merge into.", valueName: "branch"))
    var base = "develop"

    func run() async throws {
        let request = try SetupRequest(
            ci: ci, store: store, region: region, endpoint: endpoint, nodes: nodes, mergeStyle: mergeStyle, base: base,
            version: Version.number)
        let files = try ProjectSetup.write(request, in: global.workingDirectory)
        for file in files { Console.out("wrote \(file.path)") }
        Console.out("\nNext:")
        for line in ProjectSetup.nextSteps(request, files: files) { Console.out("  " + line) }
    }
}
