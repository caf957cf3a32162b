import Foundation
import TestCore

/// A test report as GitHub Actions shows it: `::error` annotations on the failing lines, and a
/// Markdown summary for `$GITHUB_STEP_SUMMARY`.
public enum GitHubReport {
    /// The longest first line an annotation keeps whole (GitHub shows up to 4 KB of a message).
    static let annotationLimit = 2000

    /// GitHub shows at most 10 error annotations and 10 warning annotations of a step (and 50 of a
    /// job); the rest are dropped without a word.
    public static let annotationsPerStep = 10

    /// `::error` workflow commands for the tests that did not pass (flaky and quarantined ones as
    /// `::warning`), at most `annotationsPerStep` of each level, spent first on what a reviewer
    /// needs first: crashes, timeouts, tests that never reported, other failures, and last the
    /// tests in `snapshotTests` (those that failed only on their references). When more did not
    /// pass, the last annotation of the level says how many more and that every one is in
    /// `elsewhere` (the step's summary, the review page). Each points at the first
    /// `File.swift:LINE` its message or output names, relative to `workspace`; a Swift Testing
    /// `Module/File.swift` is looked for in the package's `Tests/` (`package`, else the workspace).
    public static func annotations(
        _ report: TestReport, workspace: String?, package: String? = nil, snapshotTests: Set<String> = [],
        elsewhere: String = "the step's summary"
    ) -> [String] {
        var errors: [(rank: Int, record: TestReport.Entry)] = []
        var warnings: [TestReport.Entry] = []
        for record in report.tests {
            switch record.status {
            case .passed, .skipped: continue
            case _ where record.quarantine != nil, .flaky: warnings.append(record)
            default: errors.append((rank(record, snapshotTests: snapshotTests), record))
            }
        }
        let ranked = errors.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
        let snapshots = errors.filter { $0.rank == Rank.snapshot }.count
        return limited(ranked.map(\.element.record), level: "error", workspace: workspace, package: package) { more in
            let ofThem = snapshots == 0 ? "" : " (\(min(more, snapshots)) of them on snapshots only)"
            return "\(more) more tests failed\(ofThem): every failure is in \(elsewhere)"
        }
            + limited(warnings, level: "warning", workspace: workspace, package: package) { more in
                "\(more) more tests were flaky or quarantined: every one is in \(elsewhere)"
            }
    }

    /// The order annotations are spent in: what a reviewer needs first.
    private enum Rank {
        static let crashed = 0, timedOut = 1, missing = 2, failed = 3, snapshot = 4
    }

    private static func rank(_ record: TestReport.Entry, snapshotTests: Set<String>) -> Int {
        switch record.status {
        case .crashed: Rank.crashed
        case .timedOut: Rank.timedOut
        case .missing: Rank.missing
        default: snapshotTests.contains(record.name) ? Rank.snapshot : Rank.failed
        }
    }

    /// The annotations of `records` when they fit in a step's; else of the first ones, and one
    /// saying how many more.
    private static func limited(
        _ records: [TestReport.Entry], level: String, workspace: String?, package: String?, more: (Int) -> String
    ) -> [String] {
        let kept = records.count > annotationsPerStep ? records.prefix(annotationsPerStep - 1) : records[...]
        let lines = kept.map { annotation($0, level: level, workspace: workspace, package: package) }
        let rest = records.count - kept.count
        guard rest > 0 else { return lines }
        return lines + ["::\(level) title=\(escapeProperty("\(rest) more not annotated"))::\(escapeData(more(rest)))"]
    }

    /// One test's annotation: its name and status, the first line of its message, where it failed.
    private static func annotation(
        _ record: TestReport.Entry, level: String, workspace: String?, package: String?
    ) -> String {
        let title = "\(record.name) \(record.status.rawValue)" + (record.quarantine == nil ? "" : " (quarantined)")
        var properties = ["title=\(escapeProperty(title))"]
        if let (file, line) = location(
            in: [record.message, record.output].compactMap { $0 }.joined(separator: "\n"), workspace: workspace,
            package: package)
        {
            let relative =
                workspace.flatMap { file.hasPrefix($0 + "/") ? String(file.dropFirst($0.count + 1)) : nil } ?? file
            properties.insert(contentsOf: ["file=\(escapeProperty(relative))", "line=\(line)"], at: 0)
        }
        // One line: the message's first, whole (it ends in the command that fixes it, such as
        // the accept command); only a runaway line is shortened (the whole message is in the log and JUnit).
        let first = (record.message ?? "").split(separator: "\n").first {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        let brief =
            first.map { $0.count > annotationLimit ? $0.prefix(annotationLimit - 1) + "…" : String($0) }
            ?? record.status.rawValue
        let message = (record.quarantine.map { "\($0.description): " } ?? "") + brief
        return "::\(level) \(properties.joined(separator: ","))::\(escapeData(message))"
    }

    /// The run's counts: a heading and a one-row table.
    public static func counts(_ report: TestReport, title: String) -> String {
        let s = report.summary
        return [
            "### \(report.passed ? "✅" : "❌") \(title)", "",
            "| passed | failed | skipped | flaky | timed out | crashed | quarantined | time |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            "| \(s.passed) | \(s.failed) | \(s.skipped) | \(s.flaky) | \(s.timedOut) | \(s.crashed) | \(s.quarantined) | "
                + String(format: "%.1f s", s.seconds) + " |",
        ].joined(separator: "\n") + "\n"
    }

    /// The suites this run took from a verified run instead of running them (`verifiedBy`), and
    /// why, compactly: a line per run they came from, 30 suites named at most; "" when none.
    public static func notRunHere(_ report: TestReport) -> String {
        let taken = Dictionary(grouping: report.tests.filter { $0.verifiedBy != nil }, by: { $0.verifiedBy ?? "" })
        guard !taken.isEmpty else { return "" }
        return "\n"
            + taken.sorted { $0.key < $1.key }.map { run, tests in
                let suites = Set(tests.map(\.suite)).sorted()
                let named = suites.prefix(30).map { "`\($0)`" }.joined(separator: ", ")
                let more = suites.count > 30 ? " and \(suites.count - 30) more" : ""
                return "**Not run here**: \(suites.count) suite\(suites.count == 1 ? "" : "s") (\(tests.count) "
                    + "test\(tests.count == 1 ? "" : "s")) that nothing this run's tree differs in reaches, their results "
                    + "verified in run \(run): \(named)\(more)\n"
            }.joined()
    }

    /// The tests that did not pass as a table, grouped by kind (crashes, timeouts, tests that never
    /// reported, other failures, then those in `snapshotTests`): the header's lines, then a row
    /// each; none when every test passed. A row holds the test's brief (what the terminal shows)
    /// or else its message. Its link to the review page on this machine
    /// (`report.review`) opens `reviewAddress` instead (the store's page, else the page's name in
    /// the run's artifacts): never a path on the runner.
    public static func failureRows(
        _ report: TestReport, snapshotTests: Set<String> = [], reviewAddress: String? = nil
    ) -> [String] {
        let notPassed = report.tests.enumerated().filter {
            $0.element.status != .passed && $0.element.status != .skipped
        }
        .sorted {
            (rank($0.element, snapshotTests: snapshotTests), $0.offset)
                < (rank($1.element, snapshotTests: snapshotTests), $1.offset)
        }.map(\.element)
        guard !notPassed.isEmpty else { return [] }
        return ["", "| test | status | message |", "| --- | --- | --- |"]
            + notPassed.map { record in
                // What the terminal shows when a check said it better (a snapshot: what differs),
                // less the accept command, which the summary's lead holds.
                var message =
                    record.brief?.filter { !$0.hasPrefix("accept CI's rendering") }.joined(separator: "\n")
                    ?? record.message ?? ""
                var link = ""
                if let page = report.review, let found = message.range(of: "review: " + page) {
                    let end = message[found.upperBound...].firstIndex { $0.isWhitespace } ?? message.endIndex
                    let anchor = message[found.upperBound..<end]
                    let address = reviewAddress ?? URL(fileURLWithPath: page).lastPathComponent
                    link =
                        address.hasPrefix("http") ? " [review](\(address)\(anchor))" : " review: `\(address)\(anchor)`"
                    message.removeSubrange(found.lowerBound..<end)
                }
                message = message.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
                let status =
                    record.status.rawValue
                    + (record.quarantine.map { ", quarantined (\($0.owner), until \($0.expires))" } ?? "")
                return "| `\(record.name)` | \(status) | \(message.prefix(300))\(link) |"
            }
    }

    /// The first `/path/File.swift:LINE` in `text` (an absolute path, as XCTest writes it), else
    /// Swift Testing's `Module/File.swift:LINE` where `File.swift` is in `Tests/Module/` or a folder of it in the package
    /// (`package`, else `workspace`).
    static func location(in text: String, workspace: String? = nil, package: String? = nil) -> (String, Int)? {
        if let match = text.firstMatch(of: /(?:^|[\s('"])(\/[^:\n]*?\.swift):(\d+)/), let line = Int(match.2) {
            return (String(match.1), line)
        }
        guard let match = text.firstMatch(of: /(?:^|[\s('"])([A-Za-z_][\w]*\/[^\/:\n]+\.swift):(\d+)/),
            let line = Int(match.2)
        else { return nil }
        // A module's file names are unique, wherever in its folder the file is.
        let parts = match.1.split(separator: "/", maxSplits: 1).map(String.init)
        for root in [package, workspace].compactMap({ $0 }) {
            let folder = root + "/Tests/" + parts[0]
            if FileManager.default.fileExists(atPath: folder + "/" + parts[1]) {
                return (folder + "/" + parts[1], line)
            }
            let found = FileManager.default.enumerator(atPath: folder)?.lazy.compactMap { $0 as? String }
                .first { $0 == parts[1] || $0.hasSuffix("/" + parts[1]) }
            if let found { return (folder + "/" + found, line) }
        }
        return nil
    }

    /// GitHub's escaping of a workflow command's message.
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// … and of a property value.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
