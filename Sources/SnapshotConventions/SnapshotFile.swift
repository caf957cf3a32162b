import Foundation

/// A reference file where swift-snapshot-testing puts it:
/// `<folder of the test file>/__Snapshots__/<TestFile>/<test>.<n or name>.<ext>` — or, in a
/// failure artifacts folder, `<artifacts>/<TestFile>/<same file name>`.
public struct SnapshotFile: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The test file's name without `.swift`: the folder the library names after it.
    public let testFile: String
    /// `<test>.<n>.<ext>`.
    public let fileName: String

    public init(testFile: String, fileName: String) {
        self.testFile = testFile
        self.fileName = fileName
    }

    /// The part of a store key or artifacts path after the root: `<TestFile>/<file>`.
    public var key: String { "\(testFile)/\(fileName)" }
    public var description: String { key }

    /// The test function's name as the library wrote it into the file name (`testBadgeImage`,
    /// `crowdedBadgeLayout`): everything before the first dot, which a sanitised name never holds.
    public var testName: String { String(fileName.prefix { $0 != "." }) }

    /// The folder swift-snapshot-testing keeps references in, beside each test file: the one
    /// spelling of its name.
    public static let folderName = "__Snapshots__"

    /// The file at `url`, if its path has the layout `…/__Snapshots__/<TestFile>/<file>`.
    public init?(referenceAt url: URL) {
        let parts = url.standardizedFileURL.pathComponents
        guard parts.count >= 3, parts[parts.count - 3] == Self.folderName, !parts[parts.count - 1].hasPrefix(".") else {
            return nil
        }
        self.init(testFile: parts[parts.count - 2], fileName: parts[parts.count - 1])
    }

    /// A file below an artifacts folder, if it has the layout `<TestFile>/<file>`.
    public init?(relativePath: String) {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, !parts[1].hasPrefix(".") else { return nil }
        self.init(testFile: String(parts[0]), fileName: String(parts[1]))
    }

    /// The library's `sanitizePathComponent`: runs of non-word characters become `-`, and leading
    /// or trailing ones go (`scaling(factor:)` → `scaling-factor`; `testFoo()` → `testFoo`).
    public static func sanitize(_ testName: String) -> String {
        var result = ""
        var pendingDash = false
        for character in testName {
            if character.isLetter || character.isNumber || character == "_" || character.isMark {
                if pendingDash && !result.isEmpty { result.append("-") }
                pendingDash = false
                result.append(character)
            } else {
                pendingDash = true
            }
        }
        return result
    }

    public static func < (lhs: SnapshotFile, rhs: SnapshotFile) -> Bool { lhs.key < rhs.key }
}

extension Character {
    fileprivate var isMark: Bool {
        unicodeScalars.allSatisfy {
            $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark
        }
    }
}

/// What a test file's source says about its snapshots.
public enum SnapshotTestSource {
    /// Whether a test file's text asserts snapshots that keep reference files: it calls
    /// swift-snapshot-testing's `assertSnapshot(s)`/`verifySnapshot`, or a helper of the team's
    /// named like them (`assertViewSnapshot(`), or imports `SnapshotTesting`. Inline snapshots
    /// (`assertInlineSnapshot`) keep no files and do not count.
    public static func keepsReferences(_ text: String) -> Bool {
        if text.contains("import SnapshotTesting") { return true }
        let calls =
            text.components(separatedBy: "Snapshot(").count + text.components(separatedBy: "Snapshots(").count - 2
        let inline = text.components(separatedBy: "InlineSnapshot(").count - 1
        return calls > inline
    }
}
