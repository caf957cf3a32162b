import ArgumentParser
import Foundation
import PipelineSpec
import TestHistory

struct QuarantineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "Show or extend the known-flaky tests of pipelines/quarantine.yml.",
        discussion: """
            A quarantined test still runs; when it does not pass, the report shows it apart and the run \
            does not fail for it. Every entry has an owner, a reason and an expiry day: an expired entry \
            is an error (exit 3) until someone fixes the test or renews the entry. See docs/quarantine.md.
            """,
        subcommands: [Add.self, List.self, Propose.self]
    )

    /// The file the commands work on: `--file`, or `quarantine.yml` in the repository's `pipelines/`.
    struct QuarantineFileOptions: ParsableArguments {
        @Option(help: ArgumentHelp("The quarantine file (default: pipelines/quarantine.yml).", valueName: "path"))
        var file: String?

        func location(_ global: GlobalOptions) throws -> (url: URL, display: String) {
            if let file { return (global.resolve(file), file) }
            let catalog = try PipelineCatalog.locate(from: global.workingDirectory)
            let url = catalog.folder.appendingPathComponent(Quarantine.fileName)
            return (url, catalog.displayPath(of: url))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Quarantine a test (or, with --pattern, every test a regular expression matches).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: QuarantineFileOptions

        @Argument(help: ArgumentHelp("The test's full name, as 'pipeline test --list' prints it.", valueName: "test"))
        var test: String

        @Flag(help: "TEST is a regular expression the whole test name must match.")
        var pattern = false

        @Option(help: ArgumentHelp("Who fixes it: a person or a team.", valueName: "name"))
        var owner: String

        @Option(help: ArgumentHelp("Why it is quarantined: the symptom, an issue link.", valueName: "text"))
        var reason: String

        @Option(help: ArgumentHelp("How many days the entry holds (1 to 365).", valueName: "n"))
        var days = 14

        func validate() throws {
            guard (1...365).contains(days) else { throw ValidationError("--days \(days) must be between 1 and 365") }
            guard !owner.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--owner is empty") }
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--reason is empty")
            }
            if pattern, (try? Regex(test)) == nil { throw ValidationError("'\(test)' is not a regular expression") }
        }

        func run() throws {
            let (url, display) = try target.location(global)
            let text = FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
            let entry = Quarantine.Entry(
                target: pattern ? .pattern(test) : .test(test), owner: owner, reason: reason,
                expires: CalendarDay.today.adding(days: days))
            let updated = try QuarantineEditor.adding(entry, to: text, file: display)
            try QuarantineEditor.write(updated, to: url, file: display)
            Console.out("quarantined \(test) until \(entry.expires) (owner \(owner)) in \(display)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract:
                "List the quarantined tests with their owners and the days they have left; exit 3 when one expired.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: QuarantineFileOptions

        @Flag(help: "Print the entries as JSON (see docs/json.md).")
        var json = false

        func run() throws {
            let (url, display) = try target.location(global)
            guard FileManager.default.fileExists(atPath: url.path) else {
                return json ? try Console.json([QuarantineListing]()) : Console.out("\(display): no quarantined tests")
            }
            // Read without the expiry check, to show the expired entries too.
            let quarantine = try QuarantineLoader.load(url, displayPath: display, today: .past)
            let today = CalendarDay.today
            let listing = quarantine.entries.map { QuarantineListing($0, today: today) }
            if json {
                try Console.json(listing)
            } else {
                for item in listing {
                    let left = item.daysLeft < 0 ? "EXPIRED \(-item.daysLeft) days ago" : "\(item.daysLeft) days left"
                    Console.out(
                        "\(item.pattern ? "pattern " : "")\(item.test)\n    owner \(item.owner); until \(item.expires) "
                            + "(\(left)); line \(item.line)\n    \(item.reason)")
                }
                Console.out("\(listing.count) entr\(listing.count == 1 ? "y" : "ies") in \(display)")
            }
            let expired = listing.filter { $0.daysLeft < 0 }
            if !expired.isEmpty {
                throw CLIFailure(
                    status: .spec,
                    message: "\(expired.count) entr\(expired.count == 1 ? "y has" : "ies have") expired: "
                        + expired.map(\.test).joined(separator: ", ") + "; fix the tests or renew the entries")
            }
        }
    }
}

extension QuarantineCommand {
    struct Propose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "propose",
            abstract: "Quarantine the tests CI's history shows flaky, as an edit of the quarantine file to review.",
            discussion: """
                Reads the records CI runs keep in the store (pipeline history): a test that failed and passed \
                on one tree, or passed only on a retry, and failed at least --threshold of its runs, gets an \
                entry: its owner from CODEOWNERS (the test file's), else --owner; its expiry --days ahead; the \
                evidence as its reason. Nothing else changes: commit the file after review. Quarantined tests \
                that passed every one of at least 5 runs are named for release.
                """)

        @OptionGroup var options: ReferenceOptions
        @OptionGroup var target: QuarantineFileOptions

        @Option(help: ArgumentHelp("The days of CI runs to read.", valueName: "n"))
        var window = 30

        @Option(help: ArgumentHelp("The share of its runs a flaky test failed, 0 to 1.", valueName: "share"))
        var threshold = 0.1

        @Option(help: ArgumentHelp("Who owns a test CODEOWNERS does not name.", valueName: "name"))
        var owner = "unowned"

        @Option(help: ArgumentHelp("How many days a proposed entry holds (1 to 365).", valueName: "n"))
        var days = 14

        func validate() throws {
            guard (1...365).contains(days) else { throw ValidationError("--days \(days) must be between 1 and 365") }
            guard window >= 1 else { throw ValidationError("--window must be at least 1") }
            guard (0...1).contains(threshold) else { throw ValidationError("--threshold must be between 0 and 1") }
        }

        func run() async throws {
            let global = options.global
            let (url, display) = try target.location(global)
            let feature = try await options.context().transfers.stores.sharedFolder(.feature)
            let (report, read) = try await HistoryArchive(feature: feature).report(days: window)
            guard read.records > 0 else {
                throw CLIFailure(
                    status: .storage,
                    message: "no run's record in \(feature.name) in the last \(window) day(s): nothing to propose from "
                        + "(CI runs keep one each: pipeline history)")
            }
            let current = FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
            let proposal = try QuarantineProposal(
                report, current: current, display: display, codeOwners: CodeOwners.find(in: global.workingDirectory),
                root: global.workingDirectory, threshold: threshold, window: window, days: days, fallbackOwner: owner)
            if let text = proposal.text { try QuarantineEditor.write(text, to: url, file: display) }
            let added = proposal.added
            (added + proposal.releases).forEach { Console.out($0) }
            Console.out(
                added.isEmpty
                    ? "No test to propose: none flaky at \(Int(threshold * 100)) % of its runs or more in \(read.records) "
                        + "record(s)"
                    : "\(added.count) entr\(added.count == 1 ? "y" : "ies") added to \(display): review, then commit it"
            )
        }
    }
}

/// One entry of `pipeline quarantine list --json`.
struct QuarantineListing: Encodable {
    let test: String
    let pattern: Bool
    let owner: String
    let reason: String
    let expires: String
    /// Negative once the entry expired.
    let daysLeft: Int
    let line: Int

    init(_ entry: Quarantine.Entry, today: CalendarDay) {
        test = entry.name
        if case .pattern = entry.target { pattern = true } else { pattern = false }
        owner = entry.owner
        reason = entry.reason
        expires = entry.expires.description
        daysLeft = today.days(until: entry.expires)
        line = entry.location.line
    }
}
