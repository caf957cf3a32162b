import Foundation

/// A repository's CODEOWNERS (`.github/CODEOWNERS`, `CODEOWNERS` or `docs/CODEOWNERS`, GitHub's
/// order): who owns a path, by the last rule that matches it. Patterns as GitHub reads them: `*`
/// any run within a segment, `**` any segments, a leading `/` anchors to the root, a trailing `/`
/// matches a folder and what is below it, a pattern without `/` matches a name at any depth.
public struct CodeOwners: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public let pattern: String
        public let owners: [String]
    }

    public let rules: [Rule]

    public init(_ text: String) {
        rules = text.split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let pattern = words.first, !pattern.hasPrefix("#") else { return nil }
            return Rule(pattern: pattern, owners: words.dropFirst().prefix { !$0.hasPrefix("#") }.map { $0 })
        }
    }

    /// The repository's file at `root`, nil when it has none.
    public static func find(in root: URL) -> CodeOwners? {
        for path in [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] {
            if let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) {
                return CodeOwners(String(decoding: data, as: UTF8.self))
            }
        }
        return nil
    }

    /// The owners of `path` (relative to the root), by the last rule that matches; empty when none
    /// does (or that rule names none).
    public func owners(of path: String) -> [String] {
        rules.last { Self.matches($0.pattern, path) }?.owners ?? []
    }

    /// The owners of the Swift file below `root` that declares `type` (a test's class or suite),
    /// and its path: the file named after it, else the first whose text declares it (`class`,
    /// `struct`, `actor`, `enum` or `extension`), as `FaultyTests` kept in `SlowRenderingTests.swift`.
    /// Hidden folders, `.build` and `DerivedData` are left out; nil when no file declares it.
    public func owners(ofType type: String, in root: URL) -> (path: String, owners: [String])? {
        let base = root.standardizedFileURL.path
        var files: [URL] = []
        let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == ".build" || url.lastPathComponent == "DerivedData" {
                walker?.skipDescendants()
            } else if url.pathExtension == "swift" {
                files.append(url)
            }
        }
        let declaration = try? Regex(
            "\\b(class|struct|actor|enum|extension)\\s+\(NSRegularExpression.escapedPattern(for: type))\\b")
        let file =
            files.first { $0.lastPathComponent == type + ".swift" }
            ?? files.first { url in
                guard let declaration, let data = FileManager.default.contents(atPath: url.path) else { return false }
                return String(decoding: data, as: UTF8.self).contains(declaration)
            }
        guard let file else { return nil }
        let path = String(file.standardizedFileURL.path.dropFirst(base.count + 1))
        return (path, owners(of: path))
    }

    /// Whether `pattern` covers `path`: it matches the path's leading segments (from the root when
    /// anchored, from any depth when not), the path itself or a folder holding it.
    static func matches(_ pattern: String, _ path: String) -> Bool {
        var pattern = pattern
        let folder = pattern.hasSuffix("/")
        if folder { pattern.removeLast() }
        let anchored = pattern.hasPrefix("/") || pattern.contains("/")
        if pattern.hasPrefix("/") { pattern.removeFirst() }
        let parts = pattern.split(separator: "/").map(String.init)
        let segments = path.split(separator: "/").map(String.init)
        for start in anchored ? [0] : Array(segments.indices) {
            // A folder pattern names a folder: something must be below what it matches.
            for end in (start + 1)...segments.count where !(folder && end == segments.count) {
                if glob(parts[...], segments[start..<end]) { return true }
            }
        }
        return false
    }

    /// Whether `parts` (with `**` for any segments) match `segments` whole.
    static func glob(_ parts: ArraySlice<String>, _ segments: ArraySlice<String>) -> Bool {
        guard let first = parts.first else { return segments.isEmpty }
        if first == "**" {
            return (segments.startIndex...segments.endIndex).contains { glob(parts.dropFirst(), segments[$0...]) }
        }
        guard let segment = segments.first, fnmatch(first, segment, 0) == 0 else { return false }
        return glob(parts.dropFirst(), segments.dropFirst())
    }
}
