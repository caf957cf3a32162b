import Foundation

/// The words of a declaration's line: its modifiers, keyword, names and brackets.
extension SwiftSource {
    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "open", "package", "static", "class", "final", "override",
        "mutating", "nonmutating", "lazy", "weak", "unowned", "dynamic", "required", "convenience", "indirect",
        "nonisolated", "isolated", "consuming", "borrowing", "prefix", "postfix", "infix", "optional",
        "distributed",
    ]
    static let declarers: Set<String> = [
        "func", "init", "deinit", "subscript", "extension", "protocol", "class", "struct", "enum", "actor",
        "typealias", "associatedtype", "operator", "precedencegroup", "macro", "import", "var", "let", "case",
    ]
    static let typeKeywords: Set<String> = ["class", "struct", "enum", "protocol", "extension", "actor"]

    /// `text` without its leading attributes (`@inlinable`, `@available(iOS 13, *)`) and modifiers
    /// (`public`, `private(set)`), as words; `class func` keeps `func`, `class Parser` keeps `class`.
    static func declarationWords(_ text: String) -> [Substring] {
        var rest = Substring(text)
        while rest.first == "@" {
            var end = rest.index(after: rest.startIndex)
            while end < rest.endIndex, rest[end].isLetter || rest[end].isNumber || rest[end] == "_" || rest[end] == "."
            {
                end = rest.index(after: end)
            }
            if end < rest.endIndex, rest[end] == "(" {
                var depth = 0
                while end < rest.endIndex {
                    if rest[end] == "(" { depth += 1 }
                    if rest[end] == ")" { depth -= 1 }
                    end = rest.index(after: end)
                    if depth == 0 { break }
                }
            }
            rest = rest[end...].drop { $0 == " " }
        }
        var words = rest.split(separator: " ")
        while let first = words.first, words.count > 1 {
            let word = String(first.split(separator: "(").first ?? first)
            guard modifiers.contains(word) else { break }
            // `class func` and `class var` are a modifier; `class Parser` declares a class.
            let next = String(words[1])
            if word == "class", !modifiers.contains(next), !declarers.contains(next) || typeKeywords.contains(next) {
                break
            }
            words.removeFirst()
        }
        return words
    }

    /// The keyword a declaration starts with (`func`, `struct`, `init?`→`init`), after its attributes and modifiers.
    static func keyword(_ text: String) -> String? {
        guard let first = declarationWords(text).first else { return nil }
        let word = first.prefix { $0.isLetter }
        return word.isEmpty ? nil : String(word)
    }

    static func startsDeclaration(_ text: String) -> Bool {
        if text.hasPrefix("#if") || text.hasPrefix("#else") || text.hasPrefix("#elseif") || text.hasPrefix("#endif") {
            return true
        }
        guard let keyword = keyword(text) else { return false }
        return declarers.contains(keyword)
    }

    /// How many parentheses `text` leaves open, outside string literals.
    static func openParentheses(_ text: String) -> Int {
        var depth = 0
        var inString = false
        var previous: Character = " "
        for character in text {
            if character == "\"", previous != "\\" { inString.toggle() }
            if !inString, character == "(" { depth += 1 }
            if !inString, character == ")" { depth -= 1 }
            previous = character
        }
        return depth
    }

    /// A line holding attributes alone (`@inlinable`, `@available(macOS 10.15, *)`): they belong
    /// to the declaration that follows.
    static func isAttributesOnly(_ text: String) -> Bool {
        text.hasPrefix("@") && declarationWords(text).isEmpty
    }

    /// The names a declaration declares (`func chunked(` → chunked, `case a, b` → a and b,
    /// `func ==` → ==). A type or an extension that adds conformances declares its type's name;
    /// an extension without them declares what its `members` declare. Nil for a declaration
    /// without a name of its own.
    static func names(of text: String, members: [Line]?) -> [String]? {
        let words = declarationWords(text)
        guard let keyword = keyword(text), words.count > 1 else {
            return nil
        }
        let rest = words.dropFirst().joined(separator: " ")
        if keyword == "case" {
            let names = rest.split(separator: ",").compactMap {
                identifier(in: $0.trimmingCharacters(in: .whitespaces))
            }
            return names.isEmpty ? nil : names
        }
        if keyword == "extension" {
            let header = rest.prefix { $0 != "{" }
            let conforms = header.split(separator: " where ").first?.contains(":") ?? false
            if conforms { return identifier(in: rest).map { [$0] } }
            guard let members, !members.isEmpty else { return nil }
            return all(members)
        }
        let named: Set<String> = [
            "func", "var", "let", "class", "struct", "enum", "protocol", "typealias", "actor", "associatedtype",
            "macro", "precedencegroup", "operator",
        ]
        guard named.contains(keyword) else { return nil }
        if let name = identifier(in: rest) { return [name] }
        // An operator function: the operator itself.
        let symbol = rest.prefix { "=-+!*%<>&|^~?/.".contains($0) }
        return symbol.isEmpty ? nil : [String(symbol)]
    }

    /// The identifier `text` starts with (backticks dropped).
    static func identifier(in text: String) -> String? {
        let trimmed = text.hasPrefix("`") ? String(text.dropFirst()) : text
        let name = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard let first = name.first, first.isLetter || first == "_" else { return nil }
        return String(name)
    }
}
