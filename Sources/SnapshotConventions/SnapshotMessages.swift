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
        text.matches(of: /file:\/\/([^"\s]+)/).compactMap { match in
            String(match.1).removingPercentEncoding.map { URL(fileURLWithPath: $0) }
        }
    }

    /// The test file a failure line names: `…/BadgeViewTests.swift:11: error:` (XCTest) or
    /// `BadgeSnapshotTests.swift:8:` (Swift Testing's issue location).
    public static func testFile(in text: String) -> (name: String, folder: URL?)? {
        guard let match = text.firstMatch(of: /([^\s:"]*\/)?([^\/\s:"]+)\.swift:\d+/) else { return nil }
        let folder = match.1.map { String($0) }.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
        return (String(match.2), folder)
    }

    /// Whether every failure `text` (a failed test's message and output) reports is the library's
    /// verdict on a reference (a mismatch, a missing or a recorded reference), which another attempt
    /// renders the same way. A failure starts at a line naming its source (`/path/File.swift:12:
    /// error: …` from XCTest, `Module/File.swift:12: …` for a Swift Testing issue) and runs to the
    /// next; there must be at least one. Any other assertion makes it false.
    public static func onlyReferenceVerdicts(in text: String) -> Bool {
        var failures: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.firstMatch(of: /^\S*\.swift:\d+:/) != nil {
                failures.append(String(line))
            } else if !failures.isEmpty {
                failures[failures.count - 1] += "\n" + line
            }
        }
        return !failures.isEmpty && failures.allSatisfy { !kinds(in: $0).isEmpty }
    }
}
