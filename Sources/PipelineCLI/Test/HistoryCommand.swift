import ArgumentParser
import Foundation
import TestHistory

/// `pipeline history`: what the CI runs' records in the team's store say across runs.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Flaky, failing and slowing tests across CI runs, from the records runs keep in the store.",
        discussion: """
            Every CI run of 'pipeline test' or a test stage keeps a record of its tests in feature's store \
            (.history/, in the run's trust scope). This reads the last --days of them: per test its runs, \
            failures, flakiness (a retry that passed, or a failure and a pass on one tree in two runs), p50 and \
            p90 seconds and their trend, and its last failure; and what verified runs saved. Exits 5 when \
            the store cannot be read; says so when it holds no record.
            """
    )

    @OptionGroup var options: ReferenceOptions

    @Option(help: ArgumentHelp("The days of runs to read, up to today.", valueName: "n"))
    var days = 30

    @Option(help: ArgumentHelp("The table's rows (--json lists every test).", valueName: "n"))
    var limit = 20

    @Option(
        help: ArgumentHelp(
            "Also write the history as one self-contained HTML page (tables and small charts, no scripts).",
            valueName: "path"))
    var html: String?

    @Option(
        name: .customLong("prune-older-than"),
        help: ArgumentHelp(
            "Remove the records of runs older than this many days instead (a scheduled job's retention).",
            valueName: "days"))
    var pruneDays: Int?

    @Option(
        name: .customLong("roll-up-older-than"),
        help: ArgumentHelp(
            "Roll each day older than this many days into one object (nothing is lost; post-merge runs roll up days "
                + "older than 14 themselves).",
            valueName: "days"))
    var rollUpDays: Int?

    func validate() throws {
        guard days >= 1 else { throw ValidationError("--days must be at least 1") }
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        if let pruneDays, pruneDays < 1 { throw ValidationError("--prune-older-than must be at least 1 day") }
        if let rollUpDays, rollUpDays < 1 { throw ValidationError("--roll-up-older-than must be at least 1 day") }
    }

    func run() async throws {
        let feature = try await options.context().transfers.stores.sharedFolder(.feature)
        if let pruneDays {
            let removed = try await HistoryArchive(feature: feature).prune(olderThan: pruneDays)
            return Console.out(
                "Removed \(removed) record(s) of runs older than \(pruneDays) day(s) from \(feature.name)")
        }
        if let rollUpDays {
            let rolled = try await HistoryArchive(feature: feature).rollUp(olderThan: rollUpDays)
            return Console.out(
                "Rolled \(rolled.records) record(s) of runs older than \(rollUpDays) day(s) into one object a day in "
                    + "\(feature.name): \(rolled.before) bytes became \(rolled.after)")
        }
        let (report, read) = try await HistoryArchive(feature: feature).report(days: days)
        if let html {
            let url = options.global.resolve(html)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(HistoryPage.html(report, title: "Test history: the last \(days) day(s)").utf8).write(
                    to: url, options: .atomic)
            } catch {
                throw CLIFailure(status: .usage, message: "\(html): cannot be written (\(error.localizedDescription))")
            }
            Console.error("history: the page is \(url.path)")
        }
        if options.json { return try Console.json(report) }
        guard read.records > 0 else {
            Console.out(
                "No run's record in \(feature.name) in the last \(days) day(s): CI runs keep one each "
                    + "(pipeline test, a test stage, with CI set and a feature store)"
                    + (read.unreadable > 0 ? "; \(read.unreadable) object(s) there are not records" : ""))
            return
        }
        report.rendered(limit: limit).forEach { Console.out($0) }
        if read.unreadable > 0 { Console.error("history: \(read.unreadable) object(s) were not records; left out") }
    }
}
