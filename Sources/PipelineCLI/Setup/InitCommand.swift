import ArgumentParser
import Foundation
import PipelineSpec
import ProjectSetup
import References

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
    var ci: SetupRequest.CI?

    @Option(
        help: ArgumentHelp(
            "Where references are kept: a folder (relative to the repository) or s3://bucket/prefix; "
                + "feature/ and develop/ go below it.", valueName: "store"))
    var store: String?

    @Flag(
        help: """
            Rewrite the files init wrote for what this version writes, keeping your edits where they do not \
            conflict (each conflict named, that file not written); with no other flag, the flags the files \
            were written with.
            """)
    var update = false

    @Option(help: ArgumentHelp("The S3 region (default: AWS_REGION, else AWS_DEFAULT_REGION).", valueName: "region"))
    var region: String?

    @Option(
        name: .customLong("aws-role-pull-request"),
        help: ArgumentHelp(
            "GitHub with OIDC: the role pull requests' jobs assume (writes feature/ only), instead of stored keys.",
            valueName: "arn"))
    var pullRequestRole: String?

    @Option(
        name: .customLong("aws-role-develop"),
        help: ArgumentHelp("GitHub with OIDC: the role the post-merge jobs assume (writes develop/).", valueName: "arn")
    )
    var developRole: String?

    @Option(help: ArgumentHelp("An S3-compatible server's address (not AWS).", valueName: "url"))
    var endpoint: String?

    @Option(
        help: ArgumentHelp(
            "Where feature's references are below --store, for a team whose store has its own layout "
                + "(ios/feature/__Snapshots__).", valueName: "path"))
    var feature = "feature"

    @Option(help: ArgumentHelp("Where develop's references are below --store.", valueName: "path"))
    var develop = "develop"

    @Flag(
        help: """
            The store holds the team's references already (their own scripts filled it): check that the layout \
            named (--store, --feature, --develop) reads them, listing what it finds per test, before writing \
            anything; record and promote nothing (docs/references.md#moving-from-your-own-scripts).
            """)
    var existingStore = false

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
        name: .customLong("swift-version"),
        help: ArgumentHelp(
            "The Swift the Linux jobs build with, in its official image (default: .swift-version, else this "
                + "swift's, never below Package.swift's swift-tools-version).", valueName: "version"))
    var swiftVersion: String?

    @Option(
        name: .customLong("xcode-version"),
        help: ArgumentHelp(
            "With --xcode: the Xcode the macOS jobs select, 16.x or 26.x (default: this Mac's, else macos-26's).",
            valueName: "version"))
    var xcodeVersion: String?

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
        if !update, ci == nil || store == nil { throw ValidationError("--ci and --store: both are needed") }
        if xcode, scheme == nil { throw ValidationError("--xcode builds a scheme: pass --scheme NAME") }
        if !xcode, scheme != nil || project != nil || workspace != nil || xcodeVersion != nil {
            throw ValidationError("--scheme, --project, --workspace and --xcode-version go with --xcode")
        }
    }

    func run() async throws {
        guard update else {
            let request = try await request()
            let adoption = existingStore ? try await adopt(request) : nil
            let files = try ProjectSetup.write(request, in: global.workingDirectory)
            for file in files {
                if file.path == SetupFile.bitrisePatch {
                    Console.out(
                        "wrote \(file.path): bitrise.yml's triggers take the events pipeline's need, so the join is a "
                            + "patch to review (bitrise.yml is as it was):")
                    for note in file.notes { Console.out("  " + note) }
                    continue
                }
                Console.out(
                    file.joined
                        ? "joined \(file.path): pipeline's workflows added, named pipeline-…" : "wrote \(file.path)")
            }
            for warning in ProjectSetup.warnings(request) { Console.error("warning: " + warning) }
            if let added = try ProjectSetup.completeGitignore(request, in: global.workingDirectory) {
                Console.out("updated .gitignore: \(added.joined(separator: ", ")) ignored")
            }
            let findings = ProjectDoctor.examine(
                global.workingDirectory, version: Version.number, destination: request.xcode?.destination)
            if !findings.isEmpty {
                Console.out("\nBefore the first run (pipeline doctor):")
                for finding in findings {
                    Console.out("  " + finding.rendered.replacingOccurrences(of: "\n", with: "\n  "))
                }
            }
            if let adoption {
                Console.out("\nThe store as it is (nothing written to it):")
                for line in adoption.render() { Console.out("  " + line) }
            }
            Console.out("\nNext:")
            let others = ProjectSetup.otherSpecs(in: global.workingDirectory, written: files)
            for line in ProjectSetup.nextSteps(request, files: files, others: others, adopting: existingStore) {
                Console.out("  " + line)
            }
            return
        }
        // With no flags, the ones the files were written with (their first line).
        var command = self
        if ci == nil && store == nil {
            guard let recorded = ProjectSetup.recordedFlags(in: global.workingDirectory) else {
                throw ValidationError(
                    "init --update: no file here carries the flags init wrote it with (files written before 0.1.0's "
                        + "marker line): pass them, such as pipeline init --update --ci github --store s3://bucket/app")
            }
            command = try InitCommand.parse(recorded + ["--update", "-C", global.workingDirectory.path])
        }
        let updates = try ProjectSetup.update(try await command.request(), in: global.workingDirectory)
        for update in updates {
            Console.out(SetupUpdateOutput.line(update))
            if update.diff.hasSuffix("\n") { Console.out(String(update.diff.dropLast())) }
            for finding in update.findings { Console.error("warning: " + finding) }
        }
        if let conflict = SetupConflict(updates) { throw conflict }
    }

    /// `--existing-store`: the store read against the checkout's tests through the layout the
    /// request names, before anything is written.
    private func adopt(_ request: SetupRequest) async throws -> StoreAdoption {
        let (feature, develop) = request.referenceAddresses
        let overrides = ReferenceSettings(
            feature: StoreAddress(parsing: feature), develop: StoreAddress(parsing: develop),
            endpoint: request.endpoint, region: request.region)
        return try await ReferenceContext(checkout: global.workingDirectory, pipeline: nil, overrides: overrides)
            .transfers.adoption()
    }

    /// The request the flags describe, the Swift and Xcode versions found as the flags say.
    private func request() async throws -> SetupRequest {
        guard let ci, let store else { throw ValidationError("--ci and --store: both are needed") }
        return try SetupRequest(
            ci: ci, store: store, layout: (feature, develop), region: region, endpoint: endpoint, nodes: nodes,
            mergeStyle: mergeStyle, base: base,
            version: Version.number,
            swift: try await SwiftToolchain.detect(in: global.workingDirectory, flag: swiftVersion),
            xcode: try scheme.map {
                try SetupRequest.XcodeApp(scheme: $0, destination: destination, project: project, workspace: workspace)
            },
            xcodeVersion: xcode ? try await XcodeChoice.detect(flag: xcodeVersion) : nil,
            action: action, releases: releases,
            credentials: try StoreCredentials.choose(pullRequestRole: pullRequestRole, developRole: developRole),
            variables: ProcessInfo.processInfo.environment)
    }
}

/// How `init --update` says what it did to a file.
enum SetupUpdateOutput {
    static func line(_ update: SetupUpdate) -> String {
        switch update.outcome {
        case .unchanged: "unchanged \(update.path)"
        case .created: "wrote \(update.path) (new in this version)"
        case .replaced: "updated \(update.path)"
        case .merged(let base): "updated \(update.path), your edits kept (init's earlier text: commit \(base))"
        case .conflicts(let lines, let base):
            "not written \(update.path): your edits and this version's change the same lines (init's earlier text: "
                + "commit \(base); conflicts at lines \(lines.map(String.init).joined(separator: ", ")) of the merge below)"
        case .noBase:
            "not written \(update.path): edited, and the text init wrote is in no commit, so your edits cannot be "
                + "told from it (what this version writes, below)"
        case .notInit: "left alone \(update.path): not written by pipeline init"
        }
    }
}
