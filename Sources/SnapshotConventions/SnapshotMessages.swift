import Foundation

/// What swift-snapshot-testing says when an assertion fails, read back from a test's output.
public enum SnapshotMessages {
    public enum Kind: String, Sendable {
        /// "Snapshot does not match reference."
        case mismatch
        /// "No reference was found on disk." (recorded, unless recording is disabled)
        case missingReference
        /// "Record mode is on. Automatically recorded snapshot: …"
        case recorded
    }

    /// Every snapshot failure the text reports, in order.
    public static func kinds(in text: String) -> [Kind] {
        var kinds: [(String.Index, Kind)] = []
        for (phrase, kind) in [
            ("does not match reference", Kind.mismatch), ("No reference was found on disk", .missingReference),
            ("Record mode is on", .recorded),
        ] {
            var start = text.startIndex
            while let range = text.range(of: phrase, range: start..<text.endIndex) {
                kinds.append((range.lowerBound, kind))
                start = range.upperBound
            }
        }
        return kinds.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The files the text names as `file://` URLs (the library quotes reference and artifact paths so).
    public static func files(in text: String) -> [URL] {
        // Read for every failed test: scanned by hand, since a regex literal is parsed again each
        // time it is evaluated (and a Regex is not Sendable, so it cannot be kept in a static).
        var urls: [URL] = []
        var rest = text[...]
        while let found = rest.range(of: "file://") {
            let path = rest[found.upperBound...].prefix { $0 != "\"" && !$0.isWhitespace }
            if !path.isEmpty, let decoded = String(path).removingPercentEncoding {
                urls.append(URL(fileURLWithPath: decoded))
            }
            rest = rest[path.endIndex...]
        }
        return urls
    }

    /// The test file a failure line names: `…/BadgeViewTests.swift:11: error:` (XCTest) or
    /// `BadgeSnapshotTests.swift:8:` (Swift Testing's issue location).
    public static func testFile(in text: String) -> (name: String, folder: URL?)? {
        for location in sourceLocations(in: text[...]) {
            // The path before `.swift`: back to a space, a colon or a quote.
            let end = location.lowerBound
            let start =
                text[..<end].lastIndex { $0.isWhitespace || $0 == ":" || $0 == "\"" }.map(text.index(after:))
                ?? text.startIndex
            let path = text[start..<end]
            let slash = path.lastIndex(of: "/")
            let name = slash.map { path[path.index(after: $0)...] } ?? path
            guard !name.isEmpty else { continue }
            let folder = slash.map { String(path[...$0]) }.flatMap {
                $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil
            }
            return (String(name), folder)
        }
        return nil
    }

    /// Whether every failure `text` (a failed test's message and output) reports is the library's
    /// verdict on a reference (a mismatch, a missing or a recorded reference), which another attempt
    /// renders the same way. A failure starts at a line naming its source (`/path/File.swift:12:
    /// error: …` from XCTest, `Module/File.swift:12: …` for a Swift Testing issue) and runs to the
    /// next; there must be at least one. Any other assertion makes it false.
    public static func onlyReferenceVerdicts(in text: String) -> Bool {
        var failures: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // `^\S*\.swift:\d+:`: the line's first word names a source line.
            let word = line.prefix { !$0.isWhitespace }
            if sourceLocations(in: word).contains(where: { word[$0.upperBound...].first == ":" }) {
                failures.append(String(line))
            } else if !failures.isEmpty {
                failures[failures.count - 1] += "\n" + line
            }
        }
        return !failures.isEmpty && failures.allSatisfy { !kinds(in: $0).isEmpty }
    }

    /// Each `.swift:<digits>` in `text`: from `.swift` to the last digit.
    private static func sourceLocations(in text: Substring) -> [Range<Substring.Index>] {
        var found: [Range<Substring.Index>] = []
        var rest = text
        while let swift = rest.range(of: ".swift:") {
            let digits = rest[swift.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty { found.append(swift.lowerBound..<digits.endIndex) }
            rest = rest[swift.upperBound...]
        }
        return found
    }
}
