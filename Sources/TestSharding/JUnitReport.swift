import Foundation
import TestCore

/// One JUnit XML document for the whole run, readable by CI systems (Jenkins, GitLab, GitHub
/// actions that take JUnit). Suites are test classes (`Module.Class`), in name order.
///
/// Failed tests get `<failure>`; timed-out, crashed and missing tests `<error>`; skipped tests
/// `<skipped/>`. A flaky test is a passing testcase with a `<flakyFailure>` element (the Maven
/// Surefire convention) and a `flaky` property, or a `<failure>` when flaky tests fail the run.
/// A quarantined test that did not pass does not fail the run, so it is `<skipped>` with a
/// `quarantined` property (owner, reason, expiry), its status, and its message and output in
/// `<system-out>`. A passed test whose result was taken from a verified run (it did not run here)
/// has a `verified-by` property naming that run.
public enum JUnitReport {
    /// Writes the report as one JUnit XML file, whole or not at all.
    public static func write(_ report: TestReport, to url: URL) throws(TestRunError) {
        do {
            // A CI's report folder may not exist until something is written to it.
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(xml(report, flakyFails: report.flakyFails).utf8).write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// The most a report holds: GitLab reads a JUnit file under 30 MB (and 100 MB of them a job),
    /// and its XML parser refuses a text node over 10 MB. Past it, each test's message and output
    /// are cut to an equal share (their ends kept, where a failure is), naming the log that has
    /// them whole.
    public static let byteBudget = 20_000_000

    public static func xml(_ report: TestReport, flakyFails: Bool, budget: Int = byteBudget) -> String {
        // Each testcase's own markup is about 300 bytes; what is left goes to messages and outputs.
        let texts = report.tests.reduce(0) { $0 + ($1.message?.utf8.count ?? 0) + ($1.output?.utf8.count ?? 0) }
        let room = budget - report.tests.count * 300
        let share =
            texts <= room ? nil : max(2_000, room / max(1, 2 * report.tests.filter { $0.output != nil }.count))
        let suites = Dictionary(grouping: report.tests, by: \.suite).sorted { $0.key < $1.key }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"pipeline\" tests=\"\(report.summary.total)\" failures=\"\(count(report.tests, [.failed]))\" "
            + "errors=\"\(count(report.tests, [.timedOut, .crashed, .missing]))\" skipped=\"\(count(report.tests, [.skipped]))\" "
            + "time=\"\(time(report.summary.seconds))\">\n"
        for (suite, results) in suites {
            xml +=
                "  <testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(count(results, [.failed]))\" "
                + "errors=\"\(count(results, [.timedOut, .crashed, .missing]))\" skipped=\"\(count(results, [.skipped]))\" "
                + "time=\"\(time(results.reduce(0) { $0 + $1.seconds }))\">\n"
            for record in results {
                xml += testcase(record, flakyFails: flakyFails, share: share)
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    private static func testcase(_ record: TestReport.Entry, flakyFails: Bool, share: Int?) -> String {
        let open =
            "    <testcase classname=\"\(escape(record.suite))\" name=\"\(escape(record.test))\" time=\"\(time(record.seconds))\""
        let message = escape(cut(record.message ?? record.status.rawValue, to: share, log: record.log))
        let output = escape(cut(record.output ?? "", to: share, log: record.log))
        let body: String
        if let quarantine = record.quarantine {
            return open
                + ">\n      <properties><property name=\"quarantined\" value=\"\(escape(quarantine.description))\"/>"
                + "<property name=\"status\" value=\"\(record.status.rawValue)\"/></properties>\n"
                + "      <skipped message=\"\(escape("quarantined, \(record.status.rawValue): ") + message)\"/>\n"
                + "      <system-out>\(output)</system-out>\n    </testcase>\n"
        }
        switch record.status {
        case .passed:
            guard let run = record.verifiedBy else { return open + "/>\n" }
            return open
                + ">\n      <properties><property name=\"verified-by\" value=\"\(escape(run))\"/></properties>\n"
                + "    </testcase>\n"
        case .skipped:
            body = "      <skipped\(record.message.map { " message=\"\(escape($0))\"" } ?? "")/>\n"
        case .failed:
            body = "      <failure message=\"\(message)\" type=\"failed\">\(output)</failure>\n"
        case .timedOut, .crashed, .missing:
            body = "      <error message=\"\(message)\" type=\"\(record.status.rawValue)\">\(output)</error>\n"
        case .flaky:
            let properties =
                "      <properties><property name=\"flaky\" value=\"true\"/>"
                + "<property name=\"attempts\" value=\"\(record.attempts)\"/></properties>\n"
            body =
                properties
                + (flakyFails
                    ? "      <failure message=\"flaky: passed on attempt \(record.attempts) after failing: \(message)\" type=\"flaky\">\(output)</failure>\n"
                    : "      <flakyFailure message=\"\(message)\" type=\"flaky\"><system-out>\(output)</system-out></flakyFailure>\n")
        }
        return open + ">\n" + body + "    </testcase>\n"
    }

    /// The last `share` bytes of `text` (whole characters), after a line saying how much was cut
    /// and where it all is; `text` itself when it fits or there is no share.
    static func cut(_ text: String, to share: Int?, log: String?) -> String {
        guard let share, text.utf8.count > share else { return text }
        // A cut inside a character leaves a replacement character at the start: dropped.
        let kept = String(decoding: text.utf8.suffix(share), as: UTF8.self).drop { $0 == "\u{FFFD}" }
        return "… \(text.utf8.count - kept.utf8.count) bytes cut (the report's size limit)"
            + (log.map { "; the whole is in \($0)" } ?? "") + "\n" + kept
    }

    /// How many results have one of `statuses`; a quarantined test counts as skipped.
    private static func count(_ results: [TestReport.Entry], _ statuses: Set<TestStatus>) -> Int {
        results.filter { statuses.contains($0.quarantine == nil ? $0.status : .skipped) }.count
    }

    private static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    /// Escapes markup and drops characters XML 1.0 cannot hold (most control characters).
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value):
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
