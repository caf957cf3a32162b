import Foundation

/// The test types and free `@Test` functions a Swift file declares, read by impact selection's
/// lexer (`SwiftSource.scan`: comments, nested ones too, and string literals, raw, multi-line and
/// interpolated ones too, do not count), with nesting followed by braces.
public struct TestDeclarations: Sendable, Equatable {
    /// Types declared or extended at file level, in order, once each.
    public var types: [String] = []
    /// Functions marked `@Test` at file level.
    public var freeFunctions: [String] = []

    public init(_ source: String) {
        let code = SwiftSource.scan(source, strings: .blanked).map(\.code).joined(separator: "\n")
        var depth = 0
        var pendingTest = false
        var index = code.startIndex
        while index < code.endIndex {
            let character = code[index]
            if character == "{" { depth += 1 }
            if character == "}" { depth = max(0, depth - 1) }
            if character == "@", code[index...].hasPrefix("@Test") { pendingTest = true }
            if depth == 0, character.isLetter,
                index == code.startIndex || !Self.isIdentifier(code[code.index(before: index)])
            {
                let word = code[index...].prefix(while: Self.isIdentifier)
                let rest = code[word.endIndex...].drop { $0 == " " || $0 == "\n" || $0 == "\t" }
                let name = String(rest.prefix(while: Self.isIdentifier))
                switch word {
                case "class", "struct", "enum", "actor", "extension":
                    if !name.isEmpty, !types.contains(name) { types.append(name) }
                    pendingTest = false
                case "func":
                    if pendingTest, !name.isEmpty { freeFunctions.append(name) }
                    pendingTest = false
                default: break
                }
                index = word.endIndex
                continue
            }
            index = code.index(after: index)
        }
    }

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }
}
