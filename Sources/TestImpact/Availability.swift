import Foundation

/// What a declaration's attributes mean for the code that compiles on the platform the tests run
/// on, read without a compiler: whether the declaration is unavailable there (no code that
/// compiles can call it, so adding, changing or removing it changes no compiled call), and which
/// attributes change nothing a compiled call does (`@discardableResult`, deprecations and their
/// messages, other platforms' availability, `@inline`), so a change of those alone is none.
///
/// Attributes that can change which declaration a call chooses (`@_disfavoredOverload`,
/// `@_implements`, `@objc`, availability on this platform with a version, `swift` or `noasync`
/// aside) are never dropped: a change of them is judged as a declaration's change.
struct Availability: Sendable, Equatable {
    /// The platform as `@available` names it (`macOS`), or nil where `@available` names none
    /// (Linux, Windows): there only `*` applies.
    let platform: String?

    /// The platform this process runs on.
    static let here: Availability = {
        #if os(macOS)
            Availability(platform: "macOS")
        #else
            Availability(platform: nil)
        #endif
    }()

    /// The names `@available` gives this platform, application extensions included.
    private var names: Set<String> {
        guard let platform else { return [] }
        return platform == "macOS"
            ? ["macOS", "OSX", "macOSApplicationExtension", "OSXApplicationExtension"]
            : [platform, platform + "ApplicationExtension"]
    }

    /// Whether the declaration `text` (its attributes merged into its first line, as `SwiftSource`
    /// reads it) is unavailable here: `@available(*, unavailable…)`, or this platform's.
    func unavailable(_ text: String) -> Bool {
        Self.attributes(of: text).contains { attribute in
            guard attribute.name == "available", let arguments = attribute.arguments else { return false }
            let parts = Self.split(arguments)
            guard let first = parts.first, parts.contains("unavailable") else { return false }
            return first == "*" || names.contains(first)
        }
    }

    /// `text` with the attributes that change nothing a compiled call does taken out.
    func withoutInertAttributes(_ text: String) -> String {
        let attributes = Self.attributes(of: text)
        guard attributes.contains(where: inert) else { return text }
        var result = text
        for attribute in attributes.reversed() where inert(attribute) {
            result.removeSubrange(attribute.range)
        }
        return result.split(separator: " ").joined(separator: " ")
    }

    /// Whether an attribute changes nothing a call that compiles does here.
    private func inert(_ attribute: Attribute) -> Bool {
        switch attribute.name {
        case "discardableResult", "inline", "_documentation", "_semantics", "warn_unqualified_access",
            "_effects", "_optimize":
            return true
        case "available":
            let parts = Self.split(attribute.arguments ?? "")
            guard let first = parts.first else { return false }
            let platforms = parts.filter { !$0.contains(":") && $0 != "unavailable" && $0 != "deprecated" }
            // The short form (`macOS 10.15, iOS 13, *`): versions of platforms; here only this
            // platform's can matter.
            if parts.allSatisfy({ !$0.contains(":") && $0 != "unavailable" && $0 != "deprecated" }) {
                return platforms.allSatisfy { $0 == "*" || !names.contains(String($0.split(separator: " ")[0])) }
            }
            // The long form: another platform's says nothing here; for this one or `*`, only a
            // deprecation and its message, rename or `noasync` leave every compiled call as it was.
            if first != "*", first != "swift", !names.contains(first) { return true }
            guard first != "swift", !parts.contains("unavailable") else { return false }
            return parts.dropFirst().allSatisfy {
                $0 == "deprecated" || $0 == "noasync" || $0.hasPrefix("message:") || $0.hasPrefix("renamed:")
                    || ($0.hasPrefix("deprecated:") && first != "*")
            }
        default:
            return false
        }
    }

    struct Attribute: Equatable {
        var name: String
        var arguments: String?
        /// Where it is in the text, with the space after it.
        var range: Range<String.Index>
    }

    /// The attributes `text` starts with (after none or some modifiers: `public @inlinable` is
    /// not Swift, so attributes come first).
    static func attributes(of text: String) -> [Attribute] {
        var found: [Attribute] = []
        var at = text.startIndex
        while at < text.endIndex, text[at] == "@" {
            let start = at
            var end = text.index(after: at)
            while end < text.endIndex, text[end].isLetter || text[end].isNumber || text[end] == "_" {
                end = text.index(after: end)
            }
            let name = String(text[text.index(after: start)..<end])
            var arguments: String?
            if end < text.endIndex, text[end] == "(" {
                var depth = 0
                var inString = false
                let open = end
                while end < text.endIndex {
                    let character = text[end]
                    if character == "\"" { inString.toggle() }
                    if !inString, character == "(" { depth += 1 }
                    if !inString, character == ")" { depth -= 1 }
                    end = text.index(after: end)
                    if depth == 0 { break }
                }
                arguments = String(text[text.index(after: open)..<text.index(before: end)])
            }
            while end < text.endIndex, text[end] == " " { end = text.index(after: end) }
            found.append(Attribute(name: name, arguments: arguments, range: start..<end))
            at = end
        }
        return found
    }

    /// An attribute's arguments split at top-level commas, each trimmed (strings kept whole).
    static func split(_ arguments: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var inString = false
        for character in arguments {
            if character == "\"" { inString.toggle() }
            if !inString, character == "(" { depth += 1 }
            if !inString, character == ")" { depth -= 1 }
            if !inString, depth == 0, character == "," {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts.filter { !$0.isEmpty }
    }
}
