import Foundation

/// The history as one self-contained HTML page (`pipeline history --html`, kept in the store by
/// post-merge runs): the summary, then a row per test with its figures, its last runs' seconds
/// drawn as a line and their outcomes as squares, and its last failure; a table per suite and
/// per node. No script and nothing fetched: it opens from a file or a store.
public enum HistoryPage {
    public static func html(_ report: HistoryReport, title: String) -> String {
        var rows = ""
        for test in report.tests {
            rows +=
                "<tr class=\"\(test.flaky != nil ? "flaky" : test.failures > 0 ? "failing" : test.slowing ? "slowing" : "")\">"
            rows +=
                "<td class=\"name\">\(escape(test.name))</td><td>\(sparkline(test.recent))\(strip(test.outcomes))</td>"
            rows += "<td>\(test.runs)</td><td>\(test.failures)</td>"
            rows += String(format: "<td>%.2f s</td><td>%.2f s</td>", test.p50, test.p90)
            rows += "<td>\(test.trend.map { String(format: "×%.2f", $0) } ?? "–")\(test.slowing ? " slowing" : "")</td>"
            var notes: [String] = []
            if let flaky = test.flaky { notes.append("<b>flaky</b>: " + escape(flaky)) }
            if let failure = test.lastFailure {
                notes.append(
                    "last failed in run \(escape(failure.run)) (\(escape(failure.at)))"
                        + (failure.message.map { ": " + escape($0) } ?? ""))
            }
            rows += "<td class=\"notes\">\(notes.joined(separator: "<br>"))</td></tr>\n"
        }
        let summary =
            "\(report.runs) run(s)" + (report.from.map { " from " + escape($0) } ?? "")
            + (report.to.map { " to " + escape($0) } ?? "") + ", \(report.tests.count) test(s). "
            + escape(report.savedLine)
        var groups = ""
        for (title, stats) in [("Suites", report.suites), ("Nodes", report.nodes)] where !stats.isEmpty {
            groups += "<h2>\(title)</h2><table><tr><th>\(title.dropLast().lowercased())</th><th>runs</th><th>tests</th>"
            groups += "<th>failed</th><th>flaky tests</th><th>p50 a run</th><th>p90 a run</th></tr>\n"
            for group in stats {
                groups += "<tr class=\"\(group.flaky > 0 ? "flaky" : group.failures > 0 ? "failing" : "")\">"
                groups += "<td class=\"name\">\(escape(group.name))</td><td>\(group.runs)</td><td>\(group.tests)</td>"
                groups += "<td>\(group.failures)</td><td>\(group.flaky)</td>"
                groups += String(format: "<td>%.2f s</td><td>%.2f s</td></tr>\n", group.p50, group.p90)
            }
            groups += "</table>\n"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; }
            table { border-collapse: collapse; width: 100%; }
            th, td { border-bottom: 1px solid #ddd; padding: 6px 8px; text-align: left; vertical-align: middle; white-space: nowrap; }
            td.notes { white-space: normal; }
            td.name { font-family: ui-monospace, monospace; white-space: normal; overflow-wrap: anywhere; min-width: 18em; max-width: 30em; }
            tr.flaky td.name { border-left: 6px solid #e8a317; }
            tr.failing td.name { border-left: 6px solid #d33; }
            tr.slowing td.name { border-left: 6px solid #3b7dd8; }
            td.notes { font-size: 12px; color: #555; }
            svg { vertical-align: middle; margin-right: 6px; }
            </style></head>
            <body><h1>\(escape(title))</h1><p>\(summary)</p>
            <h2>Tests</h2>
            <table><tr><th>test</th><th>last runs</th><th>runs</th><th>failed</th><th>p50</th><th>p90</th><th>trend</th><th></th></tr>
            \(rows)</table>
            \(groups)</body></html>

            """
    }

    /// The seconds as a line, 120×24, its own scale.
    static func sparkline(_ values: [Double]) -> String {
        guard values.count > 1, let top = values.max(), top > 0 else { return "" }
        let step = 120.0 / Double(values.count - 1)
        let points = values.enumerated().map { index, value in
            String(format: "%.1f,%.1f", Double(index) * step, 22 - value / top * 20)
        }.joined(separator: " ")
        return "<svg width=\"120\" height=\"24\" viewBox=\"0 0 120 24\"><polyline fill=\"none\" stroke=\"#3b7dd8\" "
            + "stroke-width=\"1.5\" points=\"\(points)\"/></svg>"
    }

    /// The outcomes as squares: green passed, red failed, amber passed on a retry, grey skipped.
    static func strip(_ outcomes: String) -> String {
        let colours: [Character: String] = ["p": "#3a3", "f": "#d33", "r": "#e8a317", "s": "#bbb"]
        let squares = outcomes.enumerated().map { index, outcome in
            "<rect x=\"\(index * 7)\" y=\"4\" width=\"6\" height=\"16\" fill=\"\(colours[outcome] ?? "#bbb")\"/>"
        }.joined()
        return "<svg width=\"\(outcomes.count * 7)\" height=\"24\">\(squares)</svg>"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
