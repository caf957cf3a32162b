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

    /// Whether what a compiled call does may differ.
    var changesCode: Bool {
        switch self {
        case .commentsOnly, .inert: false
        case .bodies, .declarations, .accessLevels: true
        }
    }

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
        let (changedOld, changedNew) = changedLines(before, after, availability)
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
        if let modules = importFormsOnly(before, after, removed: removed, added: added) {
            return .inert("only the form of its imports of \(modules) changed, not what it sees")
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

    /// The modules, when every changed line is an import of a module the file imports in both
    /// versions (in another form: `internal`, `@_implementationOnly`, under `#if` branches that all
    /// import it) or a `#if` directive around imports only: what the file's code sees is the same.
    /// `@_exported` and `@testable` imports are another matter (what clients see, internals).
    static func importFormsOnly(_ before: SwiftSource, _ after: SwiftSource, removed: [Int], added: [Int]) -> String? {
        let changed = removed.map { before.lines[$0] } + added.map { after.lines[$0] }
        guard changed.contains(where: \.isImport),
            changed.allSatisfy({
                ($0.isImport && !$0.text.contains("@_exported") && !$0.text.contains("@testable"))
                    || $0.text.hasPrefix("#")
            })
        else { return nil }
        func modules(_ source: SwiftSource) -> Set<String> {
            Set(source.imports.compactMap { $0.split(separator: " ").last.map(String.init) })
        }
        // Code under `#if` in either version may be what the directives changed around.
        func importsOnlyUnderIf(_ source: SwiftSource) -> Bool {
            var depth = 0
            for line in source.lines {
                if line.text.hasPrefix("#if") { depth += 1 } else if line.text.hasPrefix("#endif") { depth -= 1 }
                if depth > 0, !line.text.hasPrefix("#"), !line.isImport { return false }
            }
            return true
        }
        let seen = modules(before)
        guard seen == modules(after), importsOnlyUnderIf(before), importsOnlyUnderIf(after) else { return nil }
        let named = Set(changed.filter(\.isImport).compactMap { $0.text.split(separator: " ").last.map(String.init) })
        return named.sorted().joined(separator: ", ")
    }

    /// For a change of declarations, the members of the older version (line ranges) whose code it
    /// touches: the suites that executed them are the file's own to run. A removed member's suites
    /// executed it; a changed member's (its header the same in both versions) executed the old
    /// one; an added member, or one whose header changed, is code no suite has run (the index and
    /// name rules judge what it captures). Nil, every suite that executed the file, when a changed
    /// line can run code outside every member (an initial value on any of its declaration's lines,
    /// a default argument, a raw value, a custom attribute, top-level code, `#if`), changes
    /// what the file's code resolves to (an import) or a kept type's header, or when an added line's
    /// member shares its header with another.
    static func changedMembers(old: String, new: String, availability: Availability = .here) -> [ClosedRange<Int>]? {
        let (before, after) = (SwiftSource(old), SwiftSource(new))
        guard before.balanced, after.balanced else { return nil }
        let (removed, added) = changedLines(before, after, availability)
        // The older version's members by header; a header two members share pairs with neither.
        var olds: [String: ClosedRange<Int>?] = [:]
        for (member, header) in before.memberHeaders() { olds[header] = olds[header] == nil ? member : .some(nil) }
        let news = after.memberHeaders()
        var found: Set<ClosedRange<Int>> = []
        for (source, index, isNew) in removed.map({ (before, $0, false) }) + added.map({ (after, $0, true) }) {
            if source.inUnavailable(index, availability) { continue }
            let line = source.lines[index]
            guard let member = source.member(holding: line.number) else {
                // Outside every member: a declaration that runs no code of its own. An import
                // changes what the file's calls resolve to, and a type's header (its superclass,
                // its conformances) what its members do, unless the type is added or removed whole.
                if line.text.allSatisfy({ "})],; ".contains($0) }) { continue }  // a scope's end
                if !line.declaration || line.text.hasPrefix("#") || line.isImport
                    || source.runsCode(declarationHolding: index)
                {
                    return nil
                }
                // A type's header over several lines: its first line says whose.
                let header = source.lines[source.declaration(holding: index).lowerBound]
                if header.declaresType, (isNew ? before : after).declaresType(header) { return nil }
                continue
            }
            guard isNew else {
                found.insert(member)
                continue
            }
            guard let header = news[member], let paired = olds[header] else { continue }
            guard let paired else { return nil }
            found.insert(paired)
        }
        return found.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// The lines (indices) of each version the other lacks, attributes without effect on a call
    /// left out of the comparison: the one reading of what changed, for every rule.
    static func changedLines(_ before: SwiftSource, _ after: SwiftSource, _ availability: Availability) -> (
        old: [Int], new: [Int]
    ) {
        unmatched(
            before.lines.map { availability.withoutInertAttributes($0.text) },
            after.lines.map { availability.withoutInertAttributes($0.text) })
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
