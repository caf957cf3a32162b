import ArgumentParser
import CISystem
import Foundation
import PipelineSpec
import References

/// Where the reference commands find their stores: the spec, overridden by flags.
struct ReferenceOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var patternOptions: TestPatternOptions

    @Option(
        help: ArgumentHelp(
            "Take the references from this pipeline's spec (default: the one pipeline that sets them).",
            valueName: "name"))
    var pipeline: String?

    @Option(help: ArgumentHelp("The feature store: a folder or s3://bucket/prefix.", valueName: "location"))
    var feature: StoreAddress?

    @Option(help: ArgumentHelp("The develop store: a folder or s3://bucket/prefix.", valueName: "location"))
    var develop: StoreAddress?

    @Option(
        help: ArgumentHelp(
            "One folder holding every test's references, instead of __Snapshots__ beside each test file.",
            valueName: "path"))
    var local: String?

    @Option(help: ArgumentHelp("An S3-compatible endpoint, such as https://s3.example.com.", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp("The S3 region.", valueName: "name"))
    var region: String?

    @Option(help: ArgumentHelp("A profile of ~/.aws/credentials.", valueName: "name"))
    var profile: String?

    @Option(help: ArgumentHelp("Requests in flight at once.", valueName: "n"))
    var parallel = 16

    @Flag(help: "Show what would be copied and deleted, and change nothing.")
    var dryRun = false

    @Flag(help: "Print the report as JSON (see docs/json.md).")
    var json = false

    @OptionGroup var environmentOption: EnvironmentOption

    func validate() throws {
        guard parallel >= 1 else { throw ValidationError("--parallel must be at least 1") }
    }

    /// The stores and change settings these options name, read once from the spec.
    func context() async throws -> ReferenceContext {
        let overrides = ReferenceSettings(
            local: local.map { global.resolve($0).path }, feature: feature, develop: develop, endpoint: endpoint,
            region: region, profile: profile)
        let progress = TransferProgress()
        return try await ReferenceContext(
            checkout: global.workingDirectory, pipeline: pipeline, overrides: overrides,
            testPattern: patternOptions.tests, environment: environmentOption.environment,
            parallelism: parallel
        ) { action, done, total in
            await progress.update(action, done, total)
        }
    }

    /// Prints the reports; a failed object makes the command fail after the report is out.
    func finish(_ reports: [TransferReport]) throws {
        if json {
            try Console.json(reports.count == 1 ? AnyEncodable(reports[0]) : AnyEncodable(reports))
        } else {
            reports.forEach { Console.out($0.render().joined(separator: "\n")) }
        }
        try TransferReport.requireComplete(reports)
    }
}

/// One JSON shape for either a report or a list of them.
struct AnyEncodable: Encodable {
    private let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

/// Asks before overwriting shared references.
enum Confirmation {
    static func ask(_ question: String, yes: Bool) throws {
        if yes { return }
        guard isatty(STDIN_FILENO) == 1 else { throw ReferenceError.needsConfirmation("this overwrite") }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            throw CLIFailure(status: .usage, message: "not confirmed; nothing was changed")
        }
    }
}

/// Objects done of total, on standard error: in place on a terminal, every few seconds otherwise.
actor TransferProgress {
    private let interactive = CIContext().isInteractive
    private var lastShown = ContinuousClock.now

    func update(_ action: String, _ done: Int, _ total: Int) {
        let now = ContinuousClock.now
        let interval: Duration = interactive ? .milliseconds(100) : .seconds(5)
        guard done == total || now - lastShown >= interval else { return }
        lastShown = now
        let line = "\(action): \(done)/\(total) objects"
        if interactive {
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line + (done == total ? "\n" : "")).utf8))
        } else {
            Console.error(line)
        }
    }
}
