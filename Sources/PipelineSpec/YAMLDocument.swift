import Foundation
import Yams

/// A node of a YAML-lite document: maps, lists and scalars with their source locations.
/// Anchors, aliases, tags and multiple documents never get this far.
public struct YAMLNode: Sendable {
    public enum Value: Sendable {
        case null
        case scalar(String)
        case mapping([Entry])
        case sequence([YAMLNode])
    }

    public struct Entry: Sendable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: YAMLNode
    }

    public var value: Value
    public var location: SourceLocation

    /// How the value is described in messages: "a string 'x'", "a list", …
    var kindDescription: String {
        switch value {
        case .null: "nothing"
        case .scalar(let text): "'\(text)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}

/// Reads YAML-lite text into a `YAMLNode` tree, or throws the one diagnostic that stops reading.
public enum YAMLDocument {
    /// Files larger than this are refused before parsing: no pipeline spec is anywhere near it.
    public static let maximumSize = 1 << 20
    /// Deeper nesting than this is refused: a pipeline spec needs five levels.
    public static let maximumDepth = 32

    public static func parse(_ text: String, file: String) throws(Diagnostic) -> YAMLNode {
        guard text.utf8.count <= maximumSize else {
            throw Diagnostic(
                file: file, location: .start,
                message:
                    "file is \(ByteCount(text.utf8.count)); a pipeline spec may be at most \(ByteCount(maximumSize))")
        }
        let lines = SourceLines(text)
        // Refused before libyaml composes the document: an alias used as a mapping key makes Yams
        // hash the whole aliased tree, exponential in the anchors' nesting (fuzzing found a spec
        // that hung; FuzzCorpusTests.specAliasKeyHang).
        if let anchor = lines.firstAnchor() {
            throw Diagnostic(file: file, location: anchor, message: anchorsRefused(lines.word(at: anchor)))
        }
        let root: Yams.Node?
        do {
            root = try Parser(yaml: text).singleRoot()
        } catch let error as YamlError {
            throw diagnostic(for: error, in: lines, file: file)
        } catch {
            throw Diagnostic(file: file, location: .start, message: "cannot read YAML: \(error)")
        }
        guard let root else {
            throw Diagnostic(
                file: file, location: .start,
                message:
                    "file is empty; a pipeline needs at least name, description and stages")
        }
        var converter = Converter(file: file, lines: lines)
        return try converter.convert(root, depth: 0)
    }

    /// Turns a Yams node into a `YAMLNode`, refusing what YAML-lite leaves out, top-down:
    /// an alias bomb stops at its first anchor, before anything is expanded.
    private struct Converter {
        let file: String
        let lines: SourceLines

        mutating func convert(_ node: Yams.Node, depth: Int) throws(Diagnostic) -> YAMLNode {
            let location = node.mark.map { SourceLocation(line: $0.line, column: $0.column) } ?? .start
            guard depth <= YAMLDocument.maximumDepth else {
                throw fail(location, "nesting is deeper than \(YAMLDocument.maximumDepth) levels")
            }
            try refuseProperties(at: location)
            switch node {
            case .alias:
                throw fail(location, "aliases (*name) are not supported in pipeline specs; write the value out")
            case .scalar(let scalar):
                return YAMLNode(value: Self.isNull(scalar) ? .null : .scalar(scalar.string), location: location)
            case .sequence(let sequence):
                var items: [YAMLNode] = []
                for item in sequence {
                    items.append(try convert(item, depth: depth + 1))
                }
                return YAMLNode(value: .sequence(items), location: location)
            case .mapping(let mapping):
                var entries: [YAMLNode.Entry] = []
                for (key, value) in mapping {
                    let keyLocation = key.mark.map { SourceLocation(line: $0.line, column: $0.column) } ?? location
                    try refuseProperties(at: keyLocation)
                    guard case .scalar(let keyScalar) = key else {
                        throw fail(keyLocation, "keys must be plain names, not lists or mappings")
                    }
                    entries.append(
                        .init(
                            key: keyScalar.string, keyLocation: keyLocation,
                            value: try convert(value, depth: depth + 1)))
                }
                return YAMLNode(value: .mapping(entries), location: location)
            }
        }

        /// Refuses anchors and tags, read from the text at the node's start, where libyaml places a node's
        /// properties. (Yams holds anchors weakly, gives quoted scalars a `!!str` tag of its own and
        /// resolves key tags, so its nodes cannot answer this.)
        private func refuseProperties(at location: SourceLocation) throws(Diagnostic) {
            switch lines.scalar(at: location) {
            case "&":
                throw fail(location, anchorsRefused(lines.word(at: location)))
            case "!":
                throw fail(
                    location,
                    "tags (\(lines.word(at: location))) are not supported in pipeline specs; "
                        + "remove the tag")
            default:
                return
            }
        }

        private func fail(_ location: SourceLocation, _ message: String) -> Diagnostic {
            Diagnostic(file: file, location: location, message: message)
        }

        private static func isNull(_ scalar: Yams.Node.Scalar) -> Bool {
            scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
        }
    }

    private static func diagnostic(for error: YamlError, in lines: SourceLines, file: String) -> Diagnostic {
        func at(_ mark: Mark, _ message: String) -> Diagnostic {
            let location = SourceLocation(line: mark.line, column: mark.column)
            if lines.hasTabIndentation(atLine: location.line) || lines.hasTabIndentation(atLine: location.line - 1) {
                return Diagnostic(
                    file: file, location: location,
                    message: "tab characters are not allowed for indentation; indent with spaces")
            }
            return Diagnostic(file: file, location: location, message: message)
        }
        switch error {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _):
            return at(mark, "not valid YAML: \(problem)" + (context.map { " (\($0.text))" } ?? ""))
        case .composer(let context, let problem, let mark, _):
            if context?.text.contains("single document") == true {
                return at(mark, "found a second YAML document; a pipeline file holds exactly one")
            }
            if problem.contains("undefined alias") {
                let location = SourceLocation(line: mark.line, column: mark.column)
                return Diagnostic(
                    file: file, location: location,
                    message:
                        "aliases (\(lines.word(at: location))) are not supported in pipeline specs; write the value out"
                )
            }
            return at(mark, "not valid YAML: \(problem)")
        case .reader(let problem, let offset, _, _):
            let location = offset.map { lines.location(ofUTF8Offset: $0) } ?? .start
            return Diagnostic(file: file, location: location, message: "cannot read the file: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let first = SourceLocation(line: context.mark.line, column: context.mark.column)
            let second = lines.repeatedKey(key, after: first) ?? first
            return Diagnostic(
                file: file, location: second,
                message:
                    "duplicate key '\(key)' (first at line \(first.line)); each key may appear once in a mapping")
        default:
            return Diagnostic(file: file, location: .start, message: "cannot read YAML: \(error)")
        }
    }
}

/// The text split into lines, for the few questions the YAML parser does not answer.
/// Why a spec may not hold an anchor (`&a`) or an alias.
func anchorsRefused(_ anchor: String) -> String {
    "anchors (\(anchor)) and aliases are not supported in pipeline specs; write the value out"
}

struct SourceLines {
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    private func line(_ number: Int) -> Substring? {
        lines.indices.contains(number - 1) ? lines[number - 1] : nil
    }

    func scalar(at location: SourceLocation) -> Unicode.Scalar? {
        guard let line = line(location.line) else { return nil }
        return line.unicodeScalars.dropFirst(location.column - 1).first
    }

    /// The text from `location` to the next space or line end.
    func word(at location: SourceLocation) -> String {
        guard let line = line(location.line) else { return "" }
        let rest = line.unicodeScalars.dropFirst(location.column - 1).prefix { $0 != " " && $0 != "\t" }
        return String(String.UnicodeScalarView(rest))
    }

    /// The first anchor (`&name` where a node starts: at a line's start, after `- `, `: `, `? `,
    /// `[`, `{` or `,`), outside quotes and comments; nil when there is none. A `&` inside a plain
    /// scalar (`fish &chips`) is text.
    func firstAnchor() -> SourceLocation? {
        for (index, line) in lines.enumerated() {
            let scalars = Array(line.unicodeScalars)
            var quote: Unicode.Scalar?
            var previous: Unicode.Scalar?  // the last non-space scalar before this one
            var spaced = true  // whether a space (or the line's start) comes right before
            for (column, scalar) in scalars.enumerated() {
                if let open = quote {
                    if scalar == open { quote = nil }
                    continue
                }
                if scalar == "#" && spaced { break }  // a comment
                // Where a node starts: the line's start, or after `[`, `{`, `,`, or `- `, `: `, `? `.
                let nodeStart =
                    previous == nil || "[{,".unicodeScalars.contains(previous!)
                    || (spaced && (previous == ":" || previous == "-" || previous == "?"))
                if nodeStart && (scalar == "\"" || scalar == "'") {
                    quote = scalar
                } else if nodeStart && scalar == "&" {
                    let next = column + 1 < scalars.count ? scalars[column + 1] : " "
                    if next != " ", next != "\t", !",[]{}".unicodeScalars.contains(next) {
                        return SourceLocation(line: index + 1, column: column + 1)
                    }
                }
                if scalar != " " && scalar != "\t" { previous = scalar }
                spaced = scalar == " " || scalar == "\t"
            }
        }
        return nil
    }

    func hasTabIndentation(atLine number: Int) -> Bool {
        guard let line = line(number) else { return false }
        return line.prefix { $0 == " " || $0 == "\t" || $0 == "-" }.contains("\t")
    }

    /// The location of `key` repeated later in the same block mapping as the key at `first`.
    func repeatedKey(_ key: String, after first: SourceLocation) -> SourceLocation? {
        var number = first.line + 1
        while let line = line(number) {
            let indentation = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indentation)
            if !rest.isEmpty, !rest.hasPrefix("#") {
                if indentation + 1 < first.column { return nil }
                if indentation + 1 == first.column, rest.hasPrefix(key),
                    rest.dropFirst(key.count).drop(while: { $0 == " " }).hasPrefix(":")
                {
                    return SourceLocation(line: number, column: first.column)
                }
            }
            number += 1
        }
        return nil
    }

    func location(ofUTF8Offset offset: Int) -> SourceLocation {
        var remaining = offset
        for (index, line) in lines.enumerated() {
            let length = line.utf8.count + 1
            if remaining < length {
                let prefix = line.utf8.prefix(remaining)
                return SourceLocation(
                    line: index + 1, column: String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1)
            }
            remaining -= length
        }
        return SourceLocation(line: max(lines.count, 1), column: 1)
    }
}
