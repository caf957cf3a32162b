import Foundation

/// A self-contained HTML page (images inline, no network) for reviewing references: a run's
/// failed snapshots first (reference / new / overlay with the match ratio for images, a line diff
/// for text), then references changed between two stores; worst match first within each status,
/// with a filter by test. Each entry has an anchor, `#` + `anchor(for: key)`, for links.
/// With `accept` (the command that accepts CI's candidates, made by the library that knows it),
/// each failed snapshot's card shows that command for its test, and cards can be selected to build
/// one command for them all.
public enum ReviewPage {
    public static func html(
        title: String, subtitle: String, entries: [ReviewEntry], accept: AcceptCommand? = nil
    ) -> String {
        let order = Dictionary(uniqueKeysWithValues: ReviewEntry.Status.allCases.enumerated().map { ($1, $0) })
        let sorted = entries.sorted {
            (order[$0.status] ?? 0, $0.comparison?.matchRatio ?? 0, $0.key) < (
                order[$1.status] ?? 0, $1.comparison?.matchRatio ?? 0, $1.key
            )
        }
        let counts = ReviewEntry.Status.allCases.compactMap { status in
            let count = entries.filter { $0.status == status }.count
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }.joined(separator: ", ")
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body { font: 14px -apple-system, system-ui, sans-serif; margin: 24px; color: #1d1d1f; }
            h1 { font-size: 20px; margin: 0 0 4px; } .sub { color: #6e6e73; margin-bottom: 16px; }
            input { font-size: 14px; padding: 6px 10px; width: 320px; margin-bottom: 16px; }
            section { border: 1px solid #d2d2d7; border-radius: 8px; padding: 12px; margin-bottom: 16px; }
            section h2 { font-size: 15px; margin: 0 0 8px; font-family: ui-monospace, monospace; }
            .status { font-size: 12px; padding: 2px 8px; border-radius: 10px; margin-left: 8px; color: white; }
            .changed, .failed { background: #d70015; } .new { background: #248a3d; } .removed { background: #6e6e73; }
            .missing, .written { background: #b25000; } .rendering { color: #b25000; }
            .accept { display: flex; gap: 8px; align-items: center; } .accept pre { flex: 1; margin: 0; }
            #selection { position: sticky; top: 0; background: white; padding: 8px 0; display: none; }
            .test { color: #6e6e73; font-family: ui-monospace, monospace; }
            pre { font: 12px ui-monospace, monospace; background: #f5f5f7; padding: 8px; overflow-x: auto; margin: 6px 0; }
            .diff div { white-space: pre; } .diff .added { background: #d8f5dd; } .diff .removed { background: #fde2e1; }
            .diff .gap { color: #6e6e73; }
            .images { display: flex; gap: 12px; flex-wrap: wrap; }
            figure { margin: 0; } figcaption { color: #6e6e73; font-size: 12px; margin-bottom: 4px; }
            img { max-width: 360px; max-height: 720px; min-width: 96px; image-rendering: pixelated; border: 1px solid #e5e5ea;
                  background: repeating-conic-gradient(#f2f2f7 0 25%, white 0 50%) 0 0 / 16px 16px; }
            </style></head><body data-accept-prefix="\(escape(accept?.prefix ?? ""))" data-accept="\(escape(accept?.options ?? ""))">
            <h1>\(escape(title))</h1>
            <div class="sub">\(escape(subtitle)) — \(counts.isEmpty ? "nothing to review" : counts)</div>
            <input id="filter" type="search" placeholder="Filter by test or where rendered…" oninput="filter(this.value)">

            """
        if let accept {
            // A change failing tests of several files: the one command for all of it comes first.
            let files = Set(
                entries.filter { ($0.status == .failed || $0.status == .new) && $0.hasNewValue }.map(\.test))
            if files.count > 1 {
                html +=
                    "<div class=\"accept\"><span>Accept all \(files.count) test files' renderings:</span>"
                    + "<pre id=\"accept-all\">\(escape(accept.all))</pre>"
                    + "<button onclick=\"copyCommand('accept-all')\">Copy</button></div>\n"
            }
            html +=
                "<div id=\"selection\" class=\"accept\"><pre id=\"selected\"></pre>"
                + "<button onclick=\"copyCommand('selected')\">Copy</button></div>\n"
        }
        for entry in sorted {
            html += section(entry, accept: accept)
        }
        if entries.isEmpty { html += "<p>Nothing to review.</p>\n" }
        html += """
            <script>
            function filter(text) {
              const wanted = text.trim().toLowerCase();
              for (const section of document.querySelectorAll("section")) {
                section.style.display = section.dataset.test.includes(wanted) ? "" : "none";
              }
            }
            // Inline handlers see the element's own members first (an input's select(), say): these names are not any.
            function copyCommand(id) { navigator.clipboard.writeText(document.getElementById(id).textContent); }
            function buildSelection() {
              const tests = [...new Set([...document.querySelectorAll("input.pick:checked")].map(b => b.value))];
              document.getElementById("selection").style.display = tests.length ? "flex" : "none";
              document.getElementById("selected").textContent =
                [document.body.dataset.acceptPrefix, ...tests].join(" ") + (document.body.dataset.accept || "");
            }
            </script>
            </body></html>

            """
        return html
    }

    /// The fragment identifier of an entry: its key with every character but letters, digits,
    /// `-` and `_` turned into `_`.
    public static func anchor(for key: String) -> String {
        "ref-" + String(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }

    /// Writes the page (`html`'s arguments) to `url`, its folder made first.
    public static func write(
        to url: URL, title: String, subtitle: String, entries: [ReviewEntry], accept: AcceptCommand? = nil
    ) throws {
        let page = html(title: title, subtitle: subtitle, entries: entries, accept: accept)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(page.utf8).write(to: url, options: .atomic)
    }

    private static func section(_ entry: ReviewEntry, accept: AcceptCommand?) -> String {
        // The filter finds a test by name, and changes by where they were rendered (`arm64`, `macOS 15`).
        let searchable = ([entry.test] + [entry.testName, entry.rendering].compactMap { $0 }).joined(separator: " ")
            .lowercased()
        var html = "<section id=\"\(anchor(for: entry.key))\" data-test=\"\(escape(searchable))\">\n"
        html +=
            "<h2>\(escape(entry.key))<span class=\"status \(entry.status.rawValue)\">\(entry.status.rawValue)</span></h2>\n"
        if let test = entry.testName { html += "<div class=\"test\">\(escape(test))</div>\n" }
        if let message = entry.message { html += "<pre>\(escape(message))</pre>\n" }
        if let comparison = entry.comparison {
            let sizes = comparison.sameSize ? "" : " — sizes differ: \(comparison.reference) → \(comparison.new)"
            html +=
                "<p>match \(String(format: "%.3f", comparison.matchRatio * 100))%: "
                + "\(comparison.differingPixels) of \(comparison.comparedPixels) pixels differ\(sizes)</p>\n"
        }
        if let note = entry.note { html += "<p>\(escape(note))</p>\n" }
        if let rendering = entry.rendering { html += "<p class=\"rendering\">\(escape(rendering))</p>\n" }
        if let accept, entry.status == .failed || entry.status == .new, entry.hasNewValue {
            let id = anchor(for: entry.key) + "-accept"
            html +=
                "<div class=\"accept\"><input type=\"checkbox\" class=\"pick\" value=\"\(escape(entry.test))\" "
                + "onchange=\"buildSelection()\" title=\"Select to accept with others\">"
                + "<pre id=\"\(id)\">\(escape(accept.line([entry.test])))</pre>"
                + "<button onclick=\"copyCommand('\(id)')\">Copy</button></div>\n"
        }
        if let diff = entry.textDiff {
            html += "<div class=\"diff\"><pre>"
            let hunks = diff.hunks()
            if hunks.isEmpty { html += "<div>(the texts are identical)</div>" }
            for (index, hunk) in hunks.enumerated() {
                if index > 0 { html += "<div class=\"gap\">⋯</div>" }
                for line in hunk {
                    let mark =
                        switch line.kind {
                        case .same: " "
                        case .removed: "−"
                        case .added: "+"
                        }
                    html += "<div class=\"\(line.kind.rawValue)\">\(mark) \(escape(line.text))</div>"
                }
            }
            html += "</pre></div>\n"
        }
        let images = [("reference", entry.reference), ("new", entry.new), ("overlay", entry.overlay)]
            .filter { $0.1 != nil && entry.textDiff == nil }
        if !images.isEmpty {
            html += "<div class=\"images\">"
            for (caption, data) in images {
                guard let data else { continue }
                html +=
                    "<figure><figcaption>\(caption)</figcaption>"
                    + "<img alt=\"\(caption) \(escape(entry.key))\" src=\"data:image/png;base64,\(data.base64EncodedString())\"></figure>"
            }
            html += "</div>\n"
        }
        return html + "</section>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A command that accepts tests' renderings as the page and the reports show it:
/// `<prefix> <test>…<options>`. The library that knows the command makes it.
public struct AcceptCommand: Sendable, Equatable {
    /// The command before the tests (`pipeline refs accept`).
    public let prefix: String
    /// The options after them, each with its leading space (` --commit <sha>`).
    public let options: String

    public init(prefix: String, options: String) {
        self.prefix = prefix
        self.options = options
    }

    /// The command for `tests`.
    public func line(_ tests: [String]) -> String { ([prefix] + tests).joined(separator: " ") + options }

    /// The command for every test the run kept a rendering of (`--all`).
    public var all: String { prefix + " --all" + options }

    /// One line for the terminal: the command for `tests`, or with several, the one for all of
    /// them first and then their names (20 at most), which the command takes instead of `--all`.
    public func advice(_ tests: [String]) -> String {
        guard tests.count > 1 else { return "to accept them: " + line(tests) }
        let shown = tests.prefix(20).joined(separator: " ") + (tests.count > 20 ? " …and \(tests.count - 20) more" : "")
        return "to accept them all: \(all); or some of them, named instead of --all: \(shown)"
    }
}
