import Foundation
import PipelineCore

/// A run's coverage, written as the files CI services read: `lcov.info`, `cobertura.xml` and
/// `summary.json` (docs/json.md), plus a one-screen summary for people.
public struct CoverageReport: Sendable {
    public let coverage: LineCoverage
    /// Tests whose process ended without writing a profile (crashed, or killed at a timeout): what
    /// they and the tests run in the same process executed is not counted.
    public let missing: [String]
    /// Nodes of a shared run whose coverage never reached the store.
    public let missingNodes: [String]
    /// Line coverage (percent) below which the run fails; nil sets none.
    public var minimumLines: Double?
    /// Profiles written where the run's processes ran (`default.profraw`) by children that lost
    /// `LLVM_PROFILE_FILE`, moved into the run's profiles: counted in its coverage, but whose
    /// test started them is unknown.
    public var strays: [String] = []
    /// Where the reports were written.
    public var folder: URL?
    /// How long merging, exporting and writing took.
    public var seconds: Double?
    /// Everything the profile covered, before the filter: every file of the binary with its
    /// functions, for the impact map.
    public var exported: LineCoverage?

    public init(coverage: LineCoverage, missing: [String] = [], missingNodes: [String] = []) {
        self.coverage = coverage
        self.missing = missing
        self.missingNodes = missingNodes
    }

    /// The threshold's verdict: nil when it is met or there is none.
    public var shortfall: CoverageError? {
        guard let minimumLines, coverage.lines.percent < minimumLines else { return nil }
        return .belowThreshold(percent: coverage.lines.percent, minimum: minimumLines)
    }

    /// `summary.json`: the totals, then each file, sorted by path.
    public struct Summary: Sendable, Codable, Equatable {
        public struct Totals: Sendable, Codable, Equatable {
            public var lines: CoverageCount
            public var functions: CoverageCount
        }

        public struct File: Sendable, Codable, Equatable {
            public var path: String
            public var lines: CoverageCount
            public var functions: CoverageCount
        }

        public var version = 1
        public var totals: Totals
        public var files: [File]
        public var missingTests: [String]
        public var missingNodes: [String]
    }

    public var summary: Summary {
        Summary(
            totals: .init(lines: coverage.lines, functions: coverage.functions),
            files: coverage.files.values.sorted { $0.path < $1.path }.map {
                .init(path: $0.path, lines: $0.lineCount, functions: $0.functionCount)
            }, missingTests: missing, missingNodes: missingNodes)
    }

    /// Writes the three files into `folder`, each whole (a temporary file renamed into place).
    public func write(to folder: URL, sourceRoot: String, timestamp: Date = Date()) throws(CoverageError) {
        do {
            try JSONFile.write(Data(coverage.lcov().utf8), to: folder.appendingPathComponent("lcov.info"))
            try JSONFile.write(
                Data(cobertura(sourceRoot: sourceRoot, timestamp: timestamp).utf8),
                to: folder.appendingPathComponent("cobertura.xml"))
            try JSONFile.write(
                JSONFile.encode(summary, what: "summary.json") + Data("\n".utf8),
                to: folder.appendingPathComponent("summary.json"))
        } catch {
            switch error {
            case .cannotWrite(let path, let reason): throw .unwritable(path: path, reason: reason)
            }
        }
    }

    /// Cobertura XML as GitLab and Jenkins read it: one package per folder, one class per file,
    /// each instrumented line with its hits. Swift coverage has no branch data: branch rates are 0.
    public func cobertura(sourceRoot: String, timestamp: Date) -> String {
        func rate(_ count: CoverageCount) -> String {
            count.total == 0 ? "1" : String(format: "%.4f", Double(count.covered) / Double(count.total))
        }
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        let total = coverage.files.values.map(\.distinctLines).reduce(CoverageCount(covered: 0, total: 0), +)
        var xml = """
            <?xml version="1.0" ?>
            <!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
            <coverage line-rate="\(rate(total))" branch-rate="0" lines-covered="\(total.covered)" \
            lines-valid="\(total.total)" branches-covered="0" branches-valid="0" complexity="0" \
            version="pipeline" timestamp="\(Int64(timestamp.timeIntervalSince1970 * 1000))">
              <sources>
                <source>\(escaped(sourceRoot))</source>
              </sources>
              <packages>

            """
        let byFolder = Dictionary(grouping: coverage.files.values) { file in
            let folder = (file.path as NSString).deletingLastPathComponent
            return folder.isEmpty ? "." : folder
        }
        for (folder, files) in byFolder.sorted(by: { $0.key < $1.key }) {
            let lines = files.map(\.distinctLines).reduce(CoverageCount(covered: 0, total: 0), +)
            xml += """
                    <package name="\(escaped(folder.replacingOccurrences(of: "/", with: ".")))" \
                line-rate="\(rate(lines))" branch-rate="0" complexity="0">
                      <classes>

                """
            for file in files.sorted(by: { $0.path < $1.path }) {
                let name = (file.path as NSString).lastPathComponent
                xml += """
                            <class name="\(escaped(name))" filename="\(escaped(file.path))" \
                    line-rate="\(rate(file.distinctLines))" branch-rate="0" complexity="0">
                              <methods/>
                              <lines>

                    """
                for (line, hits) in file.lines.sorted(by: { $0.key < $1.key }) {
                    xml += "            <line number=\"\(line)\" hits=\"\(hits)\" branch=\"false\"/>\n"
                }
                xml += "          </lines>\n        </class>\n"
            }
            xml += "      </classes>\n    </package>\n"
        }
        xml += "  </packages>\n</coverage>\n"
        return xml
    }

    /// The totals as a Markdown table, for a CI's job summary.
    public func markdown() -> String {
        let lines = coverage.lines
        let functions = coverage.functions
        return """

            | Coverage | covered | total | % |
            | --- | ---: | ---: | ---: |
            | lines | \(lines.covered) | \(lines.total) | \(Percent.text(lines.percent)) |
            | functions | \(functions.covered) | \(functions.total) | \(Percent.text(functions.percent)) |

            """
    }

    /// `coverage: lines 82.4 % (…), functions 75 % (…) in 12 files`.
    public var totalsLine: String {
        let lines = coverage.lines
        let functions = coverage.functions
        return "coverage: lines \(Percent.text(lines.percent)) (\(lines.covered)/\(lines.total)), "
            + "functions \(Percent.text(functions.percent)) (\(functions.covered)/\(functions.total)) "
            + "in \(coverage.files.count) files"
    }

    /// The totals, the least-covered files (at most `least`), and what is missing.
    public func text(least: Int = 5) -> String {
        var out = ["C" + totalsLine.dropFirst()]
        if let folder { out[0] += "; reports in \(folder.path)" }
        if let seconds { out[0] += String(format: " (merged in %.2f s)", seconds) }
        let weakest = coverage.files.values.filter {
            $0.lineCount.total > 0 && $0.lineCount.covered < $0.lineCount.total
        }
        .sorted { ($0.lineCount.percent, $0.path) < ($1.lineCount.percent, $1.path) }.prefix(least)
        if !weakest.isEmpty {
            out.append("  least covered:")
            for file in weakest {
                let count = file.lineCount
                out.append("    \(Percent.text(count.percent)) (\(count.covered)/\(count.total))  \(file.path)")
            }
        }
        if !missing.isEmpty {
            out.append(
                "  not counted: \(missing.count) test(s) ended without writing coverage (crashed or timed out): "
                    + missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", …" : ""))
        }
        if !missingNodes.isEmpty {
            out.append("  missing nodes: \(missingNodes.joined(separator: ", "))")
        }
        return out.joined(separator: "\n")
    }
}
