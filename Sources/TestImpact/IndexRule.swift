import Foundation
import SymbolIndex

/// Selection by what each use resolves to (the impact map's `SymbolIndex`, recorded from the
/// compiler's index store with the map): a changed declaration reaches the suites that executed a
/// function referring to it, or to what changes with it (its overrides and witnesses, accessors,
/// members), not every file naming the same identifier. Where the index cannot see, the change is
/// judged by names as before, and the reason says why.
struct IndexRule {
    let index: SymbolIndex
    let map: ImpactMap
    /// What compiles on the platform the tests run on.
    var availability = Availability.here

    /// What the index makes of a declaration change in one file.
    struct Reach {
        /// Suite → why it runs.
        var suites: [String: String] = [:]
        /// Names the index cannot follow (a new declaration that may capture other modules' uses):
        /// judged by names.
        var byNames: [String] = []
    }

    /// The suites the declarations changed from `old` to `new` in `path` reach through their
    /// resolved uses; a string saying why the index cannot judge the change instead.
    func reach(
        _ path: String, old: String?, new: String?, executedBy: [String: [String]], files: inout SourceFiles,
        changed: Set<String>
    ) -> Result<Reach, Refusal> {
        if old != nil, !index.covers(path) {
            return .failure(
                Refusal(
                    "the index has no unit for \(path) (it was not compiled, or was edited when the map was recorded)"))
        }
        if let why = index.unseen?[path] { return .failure(Refusal("in \(path), \(why)")) }
        let (before, after) = (SwiftSource(old ?? ""), SwiftSource(new ?? ""))
        guard before.balanced, after.balanced else {
            return .failure(Refusal("\(path)'s braces do not balance as read, so its declarations are unknown"))
        }
        // As `SwiftChange` reads it: attributes without effect on a call are no change, and a
        // declaration unavailable here is reached by no compiled code (made available, it is new).
        let (removed, added) = SwiftChange.changedLines(before, after, availability)
        // The declarations other code reaches by their own names: a type added or removed whole
        // takes its members with it (reached through the type, and its members in the index).
        let changedOld = Self.starts(of: before.reachable(removed, other: after), in: before).filter {
            !before.inUnavailable($0, availability)
        }
        let changedNew = Self.starts(of: after.reachable(added, other: before), in: after).filter {
            !after.inUnavailable($0, availability)
        }
        // Extensions adding conformances to protocols code finds only by naming them
        // (`Conformances.namedOnly`, the package's own): judged below by what they can change.
        let conforming = Dictionary(
            uniqueKeysWithValues: changedNew.filter { after.lines[$0].isExtension }.compactMap { line in
                Conformances.added(by: after.lines[line].text, before: before, index: index).map { (line, $0) }
            })
        for (source, line, isNew) in changedOld.map({ (before, $0, false) }) + changedNew.map({ (after, $0, true) }) {
            let text = source.lines[line].text
            // A conformance of a type this file declares (now or before) is found through the type's uses.
            let ownType =
                SwiftSource.extendedType(text).map { type in
                    [before, after].contains { $0.lines.contains { $0.declaresType && $0.names == [type] } }
                } ?? false
            if source.lines[line].isExtension, !ownType, !(isNew && conforming[line] != nil),
                text.firstMatch(of: #/^[^{]*\bextension\s+[\w.]+(<[^>]*>)?\s*:/#) != nil
            {
                return .failure(
                    Refusal(
                        "\(path) changes a conformance (\(SwiftSource.display(text))), which dynamic casts find without naming it"
                    ))
            }
            if text.contains("@dynamicMemberLookup") || text.contains("@objc") || text.contains("dynamic ") {
                return .failure(
                    Refusal(
                        "\(path) changes \(SwiftSource.display(text)), reached by dynamic dispatch the index does not resolve"
                    ))
            }
        }
        var reach = Reach()
        var usrs: [String] = []
        var bases: Set<String> = []
        // The declarations the change touches in the older version: found by their names' lines.
        for line in changedOld {
            let start = before.lines[line]
            let names = Set((start.names ?? ["init", "subscript", "deinit"]).map(SymbolIndex.baseName))
            let found = index.declarations(
                in: path, lines: start.number...(start.number + max(6, Self.header(line, in: before)))
            )
            .filter { names.contains(SymbolIndex.baseName(index.declarations[$0]!.name)) }
            guard !found.isEmpty else {
                if let names = start.names {
                    reach.byNames += names
                    continue
                }
                return .failure(
                    Refusal(
                        "the index has no declaration at \(path):\(start.number) (\(SwiftSource.display(start.text)))"))
            }
            usrs += found
            bases.formUnion(names)
        }
        // A new declaration, or one given a default value it did not have, may capture uses of the
        // package's other declarations of its base name (overload resolution); other modules' uses,
        // which the index does not keep, are judged by names. A changed declaration keeps its uses.
        var capturing: Set<String> = []
        // Declarations whose own uses are reached, not their members': a type given a conformance.
        var direct: [String] = []
        let defaults = Dictionary(
            changedOld.map { (before.lines[$0].names?.first ?? "", before.lines[$0].text.count { $0 == "=" }) },
            uniquingKeysWith: max)
        for line in changedNew {
            let declaration = after.lines[line]
            // The members of an extension adding a conformance are judged with it.
            if let type = declaration.type, conforming[type] != nil { continue }
            // A member of one of the package's types captures only what is looked up on that type:
            // the type's uses reach it (extension ↔ type), other modules' names do not.
            let owner =
                declaration.isExtension
                ? SwiftSource.extendedType(declaration.text) : Self.enclosingType(of: line, in: after)
            // The owner as the index knows it: of the package's types of that name (nested `Index`
            // types abound), this file's when it declares the type; a type the change adds has no
            // uses yet to capture.
            let ownType = owner.map { type in after.lines.contains { $0.declaresType && $0.names == [type] } } ?? false
            let named = owner.map { index.declarations(named: [$0]) } ?? []
            let owners = ownType ? named.filter { index.files[index.declarations[$0]!.file] == path } : named
            if ownType, owners.isEmpty { continue }
            // A private declaration is seen by its own file only, whose suites run anyway; an
            // extension declares its members' names, each private or not.
            let members =
                declaration.isExtension
                ? after.lines.indices.filter { after.lines[$0].type == line && after.lines[$0].starts } : [line]
            // An initialiser or subscript has no name of its own: it is looked up as `init`/`subscript`.
            let names = members.filter { !after.lines[$0].text.contains("private ") }.flatMap { member in
                after.lines[member].names
                    ?? after.lines[member].keyword.flatMap { ["init", "subscript"].contains($0) ? [$0] : nil } ?? []
            }
            // A conformance to protocols found only where named: the members it adds are new to
            // the type, so they reach the places that name the type or the protocol, and the calls
            // of functions overloaded on either, where resolution can change; not every use of
            // the type's other members. Their names other modules use are judged by names.
            if let conformance = conforming[line], !owners.isEmpty {
                direct += owners + conformance.protocols
                usrs += conformance.overloads(in: files.texts, index: index, type: owner ?? "")
                reach.byNames += names.map(SymbolIndex.baseName).filter {
                    index.externalNames.contains($0) && !bases.contains($0)
                }
                continue
            }
            for name in names.map(SymbolIndex.baseName) {
                let added = !bases.contains(name)
                let defaulted = defaults[name].map { declaration.text.count { $0 == "=" } > $0 } ?? false
                guard added || defaulted else { continue }
                if !owners.isEmpty {
                    usrs += owners
                    continue
                }
                capturing.insert(name)
                if index.externalNames.contains(name) { reach.byNames.append(name) }
            }
        }
        usrs += index.declarations(named: capturing)
        for usr in index.closure(of: usrs) + direct {
            guard let declaration = index.declarations[usr] else { continue }
            let declared = index.files[declaration.file]
            for use in declaration.uses {
                let file = index.files[use.file]
                guard let suites = executedBy[file] else { continue }
                let member = changed.contains(file) ? nil : files.source(file)?.member(holding: use.line)
                for suite in suites
                where reach.suites[suite] == nil && map.executed(suite, in: file, within: member.map { [$0] }) {
                    let function = member.map { "the function at line \($0.lowerBound) of \(file)" } ?? file
                    reach.suites[suite] =
                        "executed \(function), which refers to \(declaration.name) (declared in \(declared):\(declaration.line))"
                }
            }
        }
        reach.byNames = Array(Set(reach.byNames)).sorted()
        return .success(reach)
    }

    /// Why the index cannot judge a change.
    struct Refusal: Error {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// The name of the type or extended type whose body holds the declaration at `line`.
    static func enclosingType(of line: Int, in source: SwiftSource) -> String? {
        guard let owner = source.lines[line].type else { return nil }
        let holder = source.lines[owner]
        return holder.isExtension ? SwiftSource.extendedType(holder.text) : holder.names?.first
    }

    /// The lines (indices into `source.lines`) starting the declarations that hold `changed`'s lines.
    static func starts(of changed: [SwiftSource.Line], in source: SwiftSource) -> [Int] {
        var found: Set<Int> = []
        let indices = changed.compactMap { line in
            source.lines.firstIndex { $0.number == line.number && $0.text == line.text }
        }
        for index in indices where source.lines[index].declaration {
            var at = index
            while at > 0, !source.lines[at].starts { at -= 1 }
            if source.lines[at].starts, !source.lines[at].isImport { found.insert(at) }
        }
        return found.sorted()
    }

    /// How many lines after its start the header of the declaration at `line` runs: to the line
    /// before the next declaration or body line, at most 10 (a name is on the header's lines; the
    /// caller looks at least 6 lines on, past attributes on lines of their own).
    static func header(_ line: Int, in source: SwiftSource) -> Int {
        let start = source.lines[line].number
        var end = start
        var at = line + 1
        while at < source.lines.count, source.lines[at].declaration, !source.lines[at].starts,
            source.lines[at].number - start <= 10
        {
            end = source.lines[at].number
            at += 1
        }
        return end - start
    }
}
