import ArgumentParser
import Foundation
import GitChanges
import Orchestrator
import PipelineSpec
import ReferenceStore

struct RefsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refs",
        abstract: "Move reference images between the checkout and the feature and develop stores.",
        discussion: """
        Stores come from the spec's references (the one pipeline that sets them, or --pipeline NAME); \
        flags override it. Locally, a test's references live beside its test file in \
        __Snapshots__/<Test>/ (swift-snapshot-testing's layout), or in references.local/<Test>/. \
        Every transfer copies only what differs and is safe to re-run.
        """,
        subcommands: [Pull.self, Push.self, Record.self, Promote.self, Orphans.self, Diff.self, Report.self]
    )

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the checkout's references with those in develop (or feature).",
            discussion: """
            Developers: after switching branches, 'pipeline refs pull' makes every test's local \
            references what develop holds (tests with local references only are kept). Reviewers: \
            'pipeline refs pull TEST… --from feature' fetches a pull request's references of those tests.
            """
        )

        @OptionGroup var options: ReferenceOptions
        @Argument(help: ArgumentHelp("Only these tests (test file names, such as LoginViewTests).", valueName: "test"))
        var tests: [String] = []
        @Option(help: "The store to pull from: develop or feature.")
        var from: StoreRole = .develop

        func run() async throws {
            let transfers = try options.transfers()
            let report = try await transfers.pull(tests: tests.isEmpty ? nil : tests, from: from, dryRun: options.dryRun)
            try options.finish([report])
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload the named tests' local references to feature.",
            discussion: """
            Developers: when opening a pull request, push the references you recorded so reviewers \
            and the post-merge promotion find them. Each name must be a test file of the checkout \
            with local references.
            """
        )

        @OptionGroup var options: ReferenceOptions
        @Argument(help: ArgumentHelp("The tests (test file names, such as LoginViewTests).", valueName: "test"))
        var tests: [String]
        @Flag(help: "Also delete what feature has of these tests and the checkout no longer does.")
        var prune = false

        func run() async throws {
            let transfers = try options.transfers()
            let reports = try await transfers.push(tests: tests, to: [.feature], commit: options.headCommit(),
                                                   prune: prune, dryRun: options.dryRun)
            try options.finish(reports)
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the changed tests' references from feature to develop.",
            discussion: """
            CI, after a merge: 'pipeline refs promote' finds the tests the merge changed and makes \
            develop hold what feature holds for them, recording the merge commit. If a later merge \
            promoted develop's copy after this branch was cut, it stops; --force overwrites.

            Developers, after changing a shared component: 'pipeline refs promote TEST… --force' \
            pushes those tests' local references to feature and develop, although their test files \
            did not change. It asks first; --yes answers for CI, and without a terminal or --yes it refuses.
            """
        )

        @OptionGroup var options: ReferenceOptions
        @OptionGroup var changeOptions: ChangeOptions
        @Argument(help: ArgumentHelp("These tests instead of the ones the merge changed.", valueName: "test"))
        var tests: [String] = []
        @Flag(help: "Overwrite develop references changed after the branch was cut; with TEST names, push local references.")
        var force = false
        @Flag(help: "Do not ask for confirmation.")
        var yes = false
        @Flag(help: "Also delete what develop has of these tests and feature no longer does.")
        var prune = false

        func run() async throws {
            let (transfers, changeSettings) = try options.context()
            if force, !tests.isEmpty {
                let commit = options.headCommit()
                let preview = try await transfers.push(tests: tests, to: [.feature, .develop], commit: commit,
                                                       prune: prune, dryRun: true)
                if !options.dryRun {
                    let count = preview.map(\.copied.count).reduce(0, +)
                    try Confirmation.ask("Push \(count) local reference file(s) of \(tests.joined(separator: ", ")) "
                                         + "to feature and develop, replacing what is there?", yes: yes)
                }
                let reports = options.dryRun ? preview : try await transfers.push(
                    tests: tests, to: [.feature, .develop], commit: commit, prune: prune, dryRun: false)
                return try options.finish(reports)
            }
            let root = options.global.workingDirectory.path
            let detector = ChangeDetector(repositoryPath: root, testPattern: transfers.testPattern,
                                          detectRenames: !changeOptions.noRenames)
            let changes = try detector.changes(try changeOptions.comparison(settings: changeSettings))
            let history = try CommitHistory(repositoryPath: root)
            func promote(force: Bool, dryRun: Bool) async throws -> TransferReport {
                try await transfers.promote(tests: tests.isEmpty ? nil : tests, changes: changes, history: history,
                                            force: force, prune: prune, dryRun: dryRun)
            }
            if force, !options.dryRun {
                let preview = try await promote(force: true, dryRun: true)
                if !preview.conflicts.isEmpty {
                    try Confirmation.ask("Overwrite \(preview.conflicts.count) develop reference(s) that later merges promoted?", yes: yes)
                }
            }
            try options.finish([try await promote(force: force, dryRun: options.dryRun)])
        }
    }

    struct Orphans: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List references in develop whose test file no longer exists.",
            discussion: "Maintainers, now and then: these tests were deleted or renamed, and their references linger."
        )

        @OptionGroup var options: ReferenceOptions
        @Option(name: .customLong("in"), help: "The store to look in: develop or feature.")
        var store: StoreRole = .develop

        func run() async throws {
            let orphans = try await options.transfers().orphans(in: store)
            if options.json { return try Console.json(orphans) }
            if orphans.isEmpty { return Console.out("No orphaned references in \(store.rawValue).") }
            Console.out("References in \(store.rawValue) with no test file in the checkout:")
            for orphan in orphans {
                Console.out("  \(orphan.test)  \(orphan.objects) file(s), \(orphan.bytes) bytes")
            }
        }
    }
}

extension StoreRole: ExpressibleByArgument {}

extension StorageLocation: ExpressibleByArgument {
    /// A folder, or `s3://bucket/prefix`; any other URL is refused.
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}

/// Where the reference commands find their stores: the spec, overridden by flags.
struct ReferenceOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var patternOption: TestPatternOption

    @Option(help: ArgumentHelp("Take the references from this pipeline's spec (default: the one pipeline that sets them).",
                               valueName: "name"))
    var pipeline: String?

    @Option(help: ArgumentHelp("The feature store: a folder or s3://bucket/prefix.", valueName: "location"))
    var feature: StorageLocation?

    @Option(help: ArgumentHelp("The develop store: a folder or s3://bucket/prefix.", valueName: "location"))
    var develop: StorageLocation?

    @Option(help: ArgumentHelp("One folder holding every test's references, instead of __Snapshots__ beside each test file.",
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

    func validate() throws {
        guard parallel >= 1 else { throw ValidationError("--parallel must be at least 1") }
    }

    private func settings() throws -> PipelineSpec.Settings {
        let (spec, origin, base) = try global.referenceSource(pipeline: pipeline)
        var references = spec?.references ?? ReferenceSettings()
        references.feature = feature ?? references.feature
        references.develop = develop ?? references.develop
        references.local = local.map { global.resolve($0).path } ?? references.local
        references.endpoint = endpoint ?? references.endpoint
        references.region = region ?? references.region
        references.profile = profile ?? references.profile
        return PipelineSpec.Settings(references: references, changes: spec?.changes ?? ChangeSettings(), origin: origin, base: base)
    }

    func transfers() throws -> ReferenceTransfers {
        try context().transfers
    }

    /// The transfers over the stores, and the spec's change settings: the specs are read once.
    func context() throws -> (transfers: ReferenceTransfers, changes: ChangeSettings) {
        let settings = try settings()
        let stores = ReferenceStores(settings: settings.references, base: settings.base, origin: settings.origin)
        let progress = TransferProgress()
        let transfers = ReferenceTransfers(stores: stores, testPattern: patternOption.pattern(settings: settings.changes),
                                           parallelism: parallel) { action, done, total in
            await progress.update(action, done, total)
        }
        return (transfers, settings.changes)
    }

    /// The checkout's HEAD commit, recorded with pushed objects; nil outside a repository.
    func headCommit() -> String? {
        try? CommitHistory(repositoryPath: global.workingDirectory.path).sha("HEAD")
    }

    /// Prints the reports; a failed object makes the command fail after the report is out.
    func finish(_ reports: [TransferReport]) throws {
        if json {
            try Console.json(reports.count == 1 ? AnyEncodable(reports[0]) : AnyEncodable(reports))
        } else {
            reports.forEach { Console.out($0.render().joined(separator: "\n")) }
        }
        try failIfIncomplete(reports)
    }

    /// A failed object makes the command fail, after its report is out.
    func failIfIncomplete(_ reports: [TransferReport]) throws {
        let failed = reports.map(\.failures.count).reduce(0, +)
        if failed > 0 {
            throw ReferenceError.incomplete(failed: failed, total: reports.map { $0.copied.count + $0.deleted.count }.reduce(failed, +))
        }
    }
}

extension PipelineSpec {
    /// What the reference commands take from a spec, after the flags are applied.
    struct Settings {
        let references: ReferenceSettings
        let changes: ChangeSettings
        let origin: String
        let base: URL
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
    private let interactive = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
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
