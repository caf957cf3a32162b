import Foundation

/// How a Swift file changed, judged line by line (`SwiftSource`): no code changed (comments,
/// blank lines, formatting); statements inside bodies only, which coverage sees through the suites
/// that executed those bodies; or declarations at file or type level (a function's signature, a type,
/// an extension, a conformance, a stored property, an import, an attribute, `#if`), whose effect
/// on other files (overloads chosen, conformances found, defaults) coverage cannot see.
enum SwiftChange: Equatable {
    case commentsOnly
    /// Statements inside bodies only: the members (line ranges in the older version) whose bodies
    /// changed, or nil when that cannot be told (see `SwiftSource.members(holding:_:in:)`).
    case bodies([ClosedRange<Int>]?)
    /// The first changed line that declares something; the names the changed declarations other
    /// than imports declare (nil when one of them declares no name: an initialiser, a subscript or
    /// `#if`); and the changed imports, as their lines read.
    case declarations(String, names: [String]?, imports: [String] = [])
    /// Only access levels changed, among `public`, `open`, `package` and `internal`, or inlining
    /// and interface attributes (the first such line): what the code does is the same for every
    /// caller that still compiles (with `@testable import`, tests see internal declarations too).
    case accessLevels(String)
    /// Nothing a compiled call does changed: only declarations unavailable on the platform the
    /// tests run on (no code that compiles calls them), or attributes without effect on a call
    /// (`Availability`); says which.
    case inert(String)

    /// A line with its `public`, `open`, `internal` and `package` modifiers and its inlining and
    /// interface attributes (`@inlinable`, `@usableFromInline`, `@_implementationOnly`) taken out.
    static func withoutAccess(_ line: String) -> String {
        line.replacing(
            #/\b(public|open|internal)\s+|\bpackage\s+(?=[a-z@])|@(inlinable|usableFromInline|_implementationOnly)\s*/#,
            with: "")
    }

    static func kind(old: String?, new: String?, availability: Availability = .here) -> SwiftChange {
        guard let old, let new else {
            // A new or deleted file: the names it declares, then and now.
            let source = SwiftSource(old ?? new ?? "")
            return .declarations(
                old == nil ? "a new file" : "the file is gone", names: source.balanced ? source.declaredNames : nil,
                imports: source.imports)
        }
        let (before, after) = (SwiftSource(old), SwiftSource(new))
        if before.tokens == after.tokens { return .commentsOnly }
        guard before.balanced, after.balanced else {
            return .declarations("its braces do not balance as read, so its scopes are unknown", names: nil)
        }
        // Lines that differ only in attributes without effect are the same line; a declaration
        // unavailable here, with its body, is code no compiled call reaches.
        let (changedOld, changedNew) = unmatched(
            before.lines.map { availability.withoutInertAttributes($0.text) },
            after.lines.map { availability.withoutInertAttributes($0.text) })
        let removed = changedOld.filter { !before.inUnavailable($0, availability) }
        let added = changedNew.filter { !after.inUnavailable($0, availability) }
        if removed.isEmpty, added.isEmpty {
            guard let first = (changedOld.map { before.lines[$0] } + changedNew.map { after.lines[$0] }).first else {
                return .inert("only attributes that change no compiled call changed")
            }
            return .inert(
                "only declarations unavailable on this platform changed (\(SwiftSource.display(first.text))), "
                    + "which no code that compiles calls")
        }
        let declarations = before.reachable(removed, other: after) + after.reachable(added, other: before)
        guard let first = declarations.first else { return .bodies(before.members(holding: removed, added, in: after)) }
        // Access levels other than private ones change who may call, not what a call does.
        let pairs = zip(removed.map { before.lines[$0].text }, added.map { after.lines[$0].text }).map {
            (availability.withoutInertAttributes($0), availability.withoutInertAttributes($1))
        }
        if removed.count == added.count, pairs.allSatisfy({ withoutAccess($0) == withoutAccess($1) }) {
            return .accessLevels(SwiftSource.display(first.text))
        }
        return .declarations(
            SwiftSource.display(first.text), names: SwiftSource.all(declarations.filter { !$0.isImport }),
            imports: Array(Set(declarations.filter(\.isImport).map(\.text))).sorted())
    }

    /// The indices of lines on either side that a longest common subsequence leaves unmatched.
    static func unmatched(_ old: [String], _ new: [String]) -> (old: [Int], new: [Int]) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(prefix..<(old.count - suffix))
        let b = Array(prefix..<(new.count - suffix))
        if a.isEmpty || b.isEmpty || a.count * b.count > 4_000_000 { return (a, b) }
        // Longest common subsequence lengths, then a walk back collecting the unmatched lines.
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] =
                    old[a[i]] == new[b[j]] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var (removed, added): ([Int], [Int]) = ([], [])
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if old[a[i]] == new[b[j]] {
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                removed.append(a[i])
                i += 1
            } else {
                added.append(b[j])
                j += 1
            }
        }
        return (removed + a[i...], added + b[j...])
    }
}
