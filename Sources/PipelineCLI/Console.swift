import CISystem
import Foundation

/// Where commands write: results to standard output, problems and progress to standard error.
/// On a terminal (and without `NO_COLOR`), failures are red, warnings yellow, stage headers bold.
enum Console {
    static let outColors = CIContext().colors(terminal: isatty(STDOUT_FILENO) == 1)
    static let errorColors = CIContext().colors(terminal: isatty(STDERR_FILENO) == 1)

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(paint(text + "\n", colors: outColors).utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(paint(text + "\n", colors: errorColors).utf8))
    }

    /// Progress as the libraries write it (whole lines, or a line redrawn in place), to standard error.
    @Sendable static func progress(_ text: String) {
        FileHandle.standardError.write(Data(paint(text, colors: errorColors).utf8))
    }

    /// `text` with each line coloured by how it starts: `error:` and `✗` red, `warning:` and `⚠`
    /// yellow, `==>` bold, a stage's `passed:` green and `failed:` red. Unchanged without `colors`.
    static func paint(_ text: String, colors: Bool) -> String {
        guard colors else { return text }
        let styles: [(prefix: String, code: String)] = [
            ("error:", "1;31"), ("✗", "31"), ("warning:", "33"), ("⚠", "33"), ("==>", "1"),
            ("    passed:", "32"), ("    failed:", "31"),
        ]
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let visible = line.hasPrefix("\r\u{1B}[2K") ? line.dropFirst(5) : line[...]
            guard let style = styles.first(where: { visible.hasPrefix($0.prefix) }) else { return String(line) }
            return "\u{1B}[\(style.code)m\(line)\u{1B}[0m"
        }.joined(separator: "\n")
    }

    /// Machine-readable output: stable key order, no escaped slashes.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
