import Foundation
import TestCore

/// A test report as GitHub Actions shows it: `::error` annotations on the failing lines, and a
/// Markdown summary for `$GITHUB_STEP_SUMMARY`.
public enum GitHubReport {
    /// The longest first line an annotation keeps whole (GitHub shows up to 4 KB of a message).
    static let annotationLimit = 2000

    /// One `::error` workflow command per test that did not pass (flaky and quarantined ones as `::warning`),
    /// pointing at the first `File.swift:LINE` its message or output names, relative to `workspace`.
    public static func annotations(_ report: TestReport, workspace: String?) -> [String] {
        report.tests.compactMap { record in
            let level: String
            switch record.status {
            case .passed, .skipped: return nil
            case _ where record.quarantine != nil, .flaky: level = "warning"
            default: level = "error"
            }
            let title = "\(record.name) \(record.status.rawValue)" + (record.quarantine == nil ? "" : " (quarantined)")
            var properties = ["title=\(escapeProperty(title))"]
            if let (file, line) = location(
                in: [record.message, record.output].compactMap { $0 }.joined(separator: "\n"), workspace: workspace)
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
    }

    /// A Markdown table of the run, and the tests that did not pass.
    public static func summary(_ report: TestReport, title: String) -> String {
        let s = report.summary
        var lines = [
            "### \(report.passed ? "✅" : "❌") \(title)", "",
            "| passed | failed | skipped | flaky | timed out | crashed | quarantined | time |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            "| \(s.passed) | \(s.failed) | \(s.skipped) | \(s.flaky) | \(s.timedOut) | \(s.crashed) | \(s.quarantined) | "
                + String(format: "%.1f s", s.seconds) + " |",
        ]
        let notPassed = report.tests.filter { $0.status != .passed && $0.status != .skipped }
        if !notPassed.isEmpty {
            lines += ["", "| test | status | message |", "| --- | --- | --- |"]
            for record in notPassed {
                let message = (record.message ?? "").replacingOccurrences(of: "|", with: "\\|")
                    .replacingOccurrences(of: "\n", with: " ")
                let status =
                    record.status.rawValue
                    + (record.quarantine.map { ", quarantined (\($0.owner), until \($0.expires))" } ?? "")
                lines.append("| `\(record.name)` | \(status) | \(message.prefix(300)) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The first `/path/File.swift:LINE` in `text` (an absolute path, as XCTest writes it), else
    /// Swift Testing's `Module/File.swift:LINE` where `workspace/Tests/Module/File.swift` exists.
    static func location(in text: String, workspace: String? = nil) -> (String, Int)? {
        if let match = text.firstMatch(of: /(?:^|[\s('"])(\/[^:\n]*?\.swift):(\d+)/), let line = Int(match.2) {
            return (String(match.1), line)
        }
        guard let workspace, let match = text.firstMatch(of: /(?:^|[\s('"])([A-Za-z_][\w]*\/[^\/:\n]+\.swift):(\d+)/),
            let line = Int(match.2)
        else { return nil }
        let path = "Tests/" + match.1
        return FileManager.default.fileExists(atPath: workspace + "/" + path) ? (workspace + "/" + path, line) : nil
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
