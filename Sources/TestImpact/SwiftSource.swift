import Foundation

/// A Swift file read the way impact selection needs it, without a compiler: its code lines
/// (comments and blank lines left out, whitespace collapsed), each marked as part of a declaration
/// at file or type level, or as code inside a body; the names each declaration declares; and the
/// lines each member with a body spans. Scopes come from braces outside strings and comments, so
/// the file's indentation does not matter.
struct SwiftSource: Sendable {
    struct Line: Sendable, Equatable {
        /// The line in the file (for attributes on lines of their own, the first of them).
        var number: Int
        /// The code: comments removed, runs of whitespace collapsed to one space.
        var text: String
        /// Part of a declaration at file or type level: its attributes, header or signature, or
        /// a stored property. False for code inside a body (a function's, an accessor's, a
        /// closure's), whose effect coverage sees.
        var declaration: Bool
        /// This line starts its declaration.
        var starts: Bool
        /// The names the declaration declares; nil when it declares none of its own (an
        /// initialiser, a subscript, an import, `#if`).
        var names: [String]?

        /// The type or extension whose body holds this declaration: an index into `lines`.
        var type: Int? = nil
        /// For a line that starts a declaration, its keyword (`func`, `extension`, `import`).
        var keyword: String? = nil

        /// A type's declaration (not an extension's).
        var declaresType: Bool { keyword.map { typeKeywords.contains($0) && $0 != "extension" } ?? false }

        var isExtension: Bool { keyword == "extension" }

        /// An `import` declaration.
        var isImport: Bool { keyword == "import" }
    }

    var lines: [Line] = []
    /// Members with a body (functions, initialisers, computed properties, top-level code): from
    /// their first line (attributes included) to the line that closes the body.
    var members: [ClosedRange<Int>] = []
    /// The code as one string of tokens: whitespace kept only between two word characters, and a
    /// comma before a closing bracket dropped. Equal for two texts that differ only in comments,
    /// blank lines, indentation, line breaks or trailing commas.
    var tokens: String
    /// Whether the braces read balance. When they do not (a brace in a regex literal, or code
    /// that does not compile), scopes cannot be trusted, and every change counts as a declaration
    /// without a name.
    var balanced = true

    init(_ text: String) {
        let scanned = Self.scan(text)
        tokens = Self.tokens(scanned.map(\.code))
        build(scanned)
    }

    /// The names the file's declarations other than imports declare, leaving out the members of its
    /// types (reached through the type's name); nil when one of them declares none.
    var declaredNames: [String]? {
        Self.all(reachable(Array(lines.indices), other: SwiftSource("")).filter { $0.starts && !$0.isImport })
    }

    /// Every name `declarations` declare, sorted; nil when one of them declares none of its own.
    static func all(_ declarations: [Line]) -> [String]? {
        let names = declarations.map(\.names)
        if names.contains(where: { $0 == nil }) { return nil }
        return Array(Set(names.compactMap { $0 }.joined())).sorted()
    }

    /// The declarations among the changed lines `indices` that other code can reach by their own
    /// names. A type the `other` version does not declare is added or removed whole: its members,
    /// and its extensions here with theirs, are reached through the type's name, so they are left out.
    func reachable(_ indices: [Int], other: SwiftSource) -> [Line] {
        let new = Set(
            indices.filter { lines[$0].declaresType && !other.declaresType(lines[$0]) }.compactMap {
                lines[$0].names?.first
            })
        let whole = Set(
            indices.filter { index in
                let line = lines[index]
                if line.declaresType { return line.names?.first.map(new.contains) ?? false }
                return line.isExtension && Self.extendedType(line.text).map(new.contains) == true
            })
        return indices.filter { index in
            let line = lines[index]
            return line.declaration && !(line.isExtension && whole.contains(index))
                && !(line.type.map(whole.contains) ?? false)
        }.map { lines[$0] }
    }

    /// The type an `extension` line extends.
    static func extendedType(_ text: String) -> String? {
        let words = declarationWords(text)
        guard words.count > 1 else { return nil }
        return identifier(in: String(words[1]))
    }

    /// Whether this file declares a type of `line`'s name.
    func declaresType(_ line: Line) -> Bool {
        lines.contains { $0.declaresType && $0.names == line.names }
    }

    /// Whether line `index` belongs to a declaration no compiled code can call here (its
    /// attributes, header or body; a member of such a type): `availability` says which.
    func inUnavailable(_ index: Int, _ availability: Availability) -> Bool {
        var at = index
        if !lines[index].declaration {
            // Code: the member whose body holds it (top-level code belongs to no declaration).
            guard let member = member(holding: lines[index].number),
                let start = lines.firstIndex(where: { $0.number == member.lowerBound && $0.starts })
            else { return false }
            at = start
        }
        while at > 0, !lines[at].starts { at -= 1 }
        guard lines[at].starts else { return false }
        var declaration: Int? = at
        while let current = declaration {
            if availability.unavailable(lines[current].text) { return true }
            declaration = lines[current].type
        }
        return false
    }

    /// The lines (indices) of the declaration that line `index` belongs to: from the line that
    /// starts it through its continuation lines (a multi-line initial value, attribute or case list).
    func declaration(holding index: Int) -> ClosedRange<Int> {
        var start = index
        while start > 0, lines[start].declaration, !lines[start].starts { start -= 1 }
        var end = start
        while end + 1 < lines.count, lines[end + 1].declaration, !lines[end + 1].starts { end += 1 }
        return start...max(end, index)
    }

    /// Whether the declaration holding line `index`, outside every member, runs code of its own
    /// that coverage places under another name, or in the callers: an initial value (a stored or
    /// static property's, a global's, run by a one-time initialiser), a default argument, an enum
    /// raw value, or a custom attribute (a property wrapper, a result builder, a macro, a global
    /// actor). A type alias's `=` names a type and runs nothing.
    func runsCode(declarationHolding index: Int) -> Bool {
        let text = declaration(holding: index).map { lines[$0].text }.joined(separator: " ")
        let alias = ["typealias", "associatedtype"].contains(
            lines[declaration(holding: index).lowerBound].keyword ?? "")
        return (text.contains("=") && !alias) || text.contains(#/@[A-Z_]/#)
    }

    /// Each member's header (its attributes, signature and any other declaration lines before its
    /// body, joined), by the member's lines.
    func memberHeaders() -> [ClosedRange<Int>: String] {
        var headers: [ClosedRange<Int>: String] = [:]
        for member in members {
            headers[member] = lines.filter { member.contains($0.number) && $0.declaration }.map(\.text).joined(
                separator: " ")
        }
        return headers
    }

    /// The file's imports, as their lines read (`@testable import Algorithms`).
    var imports: [String] { lines.filter(\.isImport).map(\.text) }

    /// The member holding line `number`, if any.
    func member(holding number: Int) -> ClosedRange<Int>? {
        members.filter { $0.contains(number) }.min { $0.count < $1.count }
    }

    /// The members of this (the older) version whose bodies hold the changed lines: `removed`
    /// indexes this version's `lines`, `added` the `newer` version's. Nil when a changed line is
    /// outside every member (top-level code), or when the two versions' members do not pair up one
    /// to one (as many, each starting with the same line), so an added line's member is unknown.
    func members(holding removed: [Int], _ added: [Int], in newer: SwiftSource) -> [ClosedRange<Int>]? {
        let (old, new) = (
            members.sorted { $0.lowerBound < $1.lowerBound }, newer.members.sorted { $0.lowerBound < $1.lowerBound }
        )
        func first(_ source: SwiftSource, _ member: ClosedRange<Int>) -> String? {
            source.lines.first { $0.number == member.lowerBound }?.text
        }
        guard old.count == new.count, zip(old, new).allSatisfy({ first(self, $0) == first(newer, $1) }) else {
            return nil
        }
        var found: Set<ClosedRange<Int>> = []
        for index in removed {
            guard let member = member(holding: lines[index].number) else { return nil }
            found.insert(member)
        }
        for index in added {
            guard let member = newer.member(holding: newer.lines[index].number), let at = new.firstIndex(of: member)
            else { return nil }
            found.insert(old[at])
        }
        return found.sorted { $0.lowerBound < $1.lowerBound }
    }

    // MARK: Scopes

    private enum Scope {
        case file
        /// A type's or extension's body; `header` indexes `lines`.
        case type(header: Int)
        /// Code: a member's body (which starts at line `member`), or anything inside one.
        case code(member: Int)
    }

    private mutating func build(_ scanned: [(code: String, braces: [Bool])]) {
        var stack: [Scope] = [.file]
        // Per scope: the declaration being read (an index into `lines`).
        var current: [Int?] = [nil]
        var owner: [Int: Int] = [:]
        var attributes: (number: Int, text: String)?
        for (index, raw) in scanned.enumerated() {
            let number = index + 1
            let text = raw.code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(
                separator: " ")
            guard !text.isEmpty else { continue }
            switch stack.last ?? .file {
            case .code:
                lines.append(Line(number: number, text: text, declaration: false, starts: false, names: nil))
            case .file, .type:
                var enclosing: Int?
                if case .type(let header) = stack.last { enclosing = header }
                // An attribute's arguments over several lines (`@available(\n *, unavailable,\n …\n )`,
                // as swift-format writes a long one) are one attribute.
                if raw.braces.isEmpty, let pending = attributes, Self.openParentheses(pending.text) > 0 {
                    attributes = (pending.number, pending.text + " " + text)
                    continue
                }
                if raw.braces.isEmpty, Self.isAttributesOnly(text) {
                    attributes = (attributes?.number ?? number, (attributes.map { $0.text + " " } ?? "") + text)
                    continue
                }
                let full = attributes.map { $0.text + " " + text } ?? text
                let first = attributes?.number ?? number
                attributes = nil
                if text.allSatisfy({ "})],; ".contains($0) }) {
                    lines.append(Line(number: number, text: text, declaration: false, starts: false, names: nil))
                } else if Self.startsDeclaration(full) {
                    lines.append(
                        Line(
                            number: first, text: full, declaration: true, starts: true, names: nil, type: enclosing,
                            keyword: Self.keyword(full)))
                    current[current.count - 1] = lines.count - 1
                } else if let declaration = current.last ?? nil {
                    owner[lines.count] = declaration
                    lines.append(
                        Line(number: number, text: full, declaration: true, starts: false, names: nil, type: enclosing))
                } else {
                    // Top-level code (main.swift, a script): statements, not declarations.
                    lines.append(Line(number: first, text: full, declaration: false, starts: false, names: nil))
                }
            }
            for open in raw.braces {
                if open {
                    switch stack.last ?? .file {
                    case .code(let member):
                        stack.append(.code(member: member))
                    case .file, .type:
                        let declaration = current.last ?? nil
                        if let declaration, Self.typeKeywords.contains(lines[declaration].keyword ?? "") {
                            stack.append(.type(header: declaration))
                        } else {
                            stack.append(.code(member: declaration.map { lines[$0].number } ?? number))
                        }
                    }
                    current.append(nil)
                } else if stack.count == 1 {
                    balanced = false
                } else {
                    let closed = stack.removeLast()
                    current.removeLast()
                    // A member's body closed (not a block inside one): the member's extent.
                    if case .code(let member) = closed, !Self.isCode(stack.last) { members.append(member...number) }
                }
            }
        }
        if stack.count != 1 { balanced = false }
        // Members before the types that hold them: an extension's names are its members'.
        for index in lines.indices.reversed() where lines[index].starts {
            let inside = lines[index].isExtension ? lines.filter { $0.starts && $0.type == index } : nil
            lines[index].names = Self.names(of: lines[index].text, members: inside)
        }
        for (index, declaration) in owner { lines[index].names = lines[declaration].names }
    }

    private static func isCode(_ scope: Scope?) -> Bool {
        if case .code = scope { return true }
        return false
    }
}
