import Foundation

/// One reference in a review: new, removed or changed, with its images as PNG data.
public struct ReviewEntry: Sendable {
    public enum Status: String, Sendable {
        case new, removed, changed
    }

    /// `<Test>/<image>`.
    public let key: String
    public let status: Status
    public let comparison: ImageComparison?
    public let reference: Data?
    public let new: Data?
    public let overlay: Data?
    /// Why the images could not be compared (not PNGs), when so.
    public let note: String?

    public init(key: String, status: Status, comparison: ImageComparison? = nil, reference: Data? = nil,
                new: Data? = nil, overlay: Data? = nil, note: String? = nil) {
        self.key = key
        self.status = status
        self.comparison = comparison
        self.reference = reference
        self.new = new
        self.overlay = overlay
        self.note = note
    }

    public var test: String { String(key.prefix { $0 != "/" }) }
}

/// A self-contained HTML page (images inline, no network) for reviewing reference changes:
/// changed references worst first, each as reference / new / overlay side by side with its match
/// ratio, then new and removed ones, with a filter by test.
public enum ReviewPage {
    public static func html(title: String, subtitle: String, entries: [ReviewEntry]) -> String {
        let order: [ReviewEntry.Status: Int] = [.changed: 0, .new: 1, .removed: 2]
        let sorted = entries.sorted {
            (order[$0.status]!, $0.comparison?.matchRatio ?? 0, $0.key) < (order[$1.status]!, $1.comparison?.matchRatio ?? 0, $1.key)
        }
        let counts = [ReviewEntry.Status.changed, .new, .removed].map { status in
            "\(entries.filter { $0.status == status }.count) \(status.rawValue)"
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
        .changed { background: #d70015; } .new { background: #248a3d; } .removed { background: #6e6e73; }
        .images { display: flex; gap: 12px; flex-wrap: wrap; }
        figure { margin: 0; } figcaption { color: #6e6e73; font-size: 12px; margin-bottom: 4px; }
        img { max-width: 360px; max-height: 720px; border: 1px solid #e5e5ea; background:
              repeating-conic-gradient(#f2f2f7 0 25%, white 0 50%) 0 0 / 16px 16px; }
        </style></head><body>
        <h1>\(escape(title))</h1>
        <div class="sub">\(escape(subtitle)) — \(counts)</div>
        <input id="filter" type="search" placeholder="Filter by test…" oninput="filter(this.value)">

        """
        for entry in sorted {
            html += "<section data-test=\"\(escape(entry.test.lowercased()))\">\n"
            html += "<h2>\(escape(entry.key))<span class=\"status \(entry.status.rawValue)\">\(entry.status.rawValue)</span></h2>\n"
            if let comparison = entry.comparison {
                let sizes = comparison.sameSize ? "" : " — sizes differ: \(comparison.reference) → \(comparison.new)"
                html += "<p>match \(String(format: "%.3f", comparison.matchRatio * 100))%: "
                    + "\(comparison.differingPixels) of \(comparison.comparedPixels) pixels differ\(sizes)</p>\n"
            }
            if let note = entry.note { html += "<p>\(escape(note))</p>\n" }
            html += "<div class=\"images\">"
            for (caption, data) in [("reference", entry.reference), ("new", entry.new), ("overlay", entry.overlay)] {
                guard let data else { continue }
                html += "<figure><figcaption>\(caption)</figcaption>"
                    + "<img alt=\"\(caption) \(escape(entry.key))\" src=\"data:image/png;base64,\(data.base64EncodedString())\"></figure>"
            }
            html += "</div>\n</section>\n"
        }
        if entries.isEmpty { html += "<p>No reference changed.</p>\n" }
        html += """
        <script>
        function filter(text) {
          const wanted = text.trim().toLowerCase();
          for (const section of document.querySelectorAll("section")) {
            section.style.display = section.dataset.test.includes(wanted) ? "" : "none";
          }
        }
        </script>
        </body></html>

        """
        return html
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
