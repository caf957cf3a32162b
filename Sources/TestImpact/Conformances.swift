import Foundation
import SymbolIndex

/// A conformance a change adds to one of the package's types, to protocols that code reaches only
/// by naming them: a literal's type, a generic constraint, a cast to the package's own protocol.
/// Old code that compiled could not use the conformance, so what it can change is where the type
/// or the protocol is named and calls of functions overloaded on either (where resolution may now
/// choose another overload); not every use of the type's members. A protocol the standard library
/// or the runtime finds without being named (`CustomStringConvertible` for `print`, `Error`,
/// mirrors) or another module's protocol (its code may cast to it) keeps the rule for any member.
struct Conformances {
    /// The added protocols' declarations in the package, by USR: their uses name them.
    var protocols: [String]
    /// The added protocols' names.
    var names: [String]

    /// The standard library's protocols code reaches only by naming them.
    static let namedOnly: Set<String> = [
        "ExpressibleByStringLiteral", "ExpressibleByUnicodeScalarLiteral",
        "ExpressibleByExtendedGraphemeClusterLiteral",
        "ExpressibleByStringInterpolation", "ExpressibleByIntegerLiteral", "ExpressibleByFloatLiteral",
        "ExpressibleByBooleanLiteral", "ExpressibleByArrayLiteral", "ExpressibleByDictionaryLiteral",
        "ExpressibleByNilLiteral", "Equatable", "Hashable", "Comparable", "Identifiable", "CaseIterable",
        "RawRepresentable", "Sendable", "Strideable", "Sequence", "Collection", "BidirectionalCollection",
        "RandomAccessCollection", "MutableCollection", "RangeReplaceableCollection", "IteratorProtocol",
        "AdditiveArithmetic", "Numeric", "SignedNumeric", "BinaryInteger", "FixedWidthInteger",
        "LosslessStringConvertible",
    ]

    /// The conformances the extension `text` adds to a type the index knows, beyond those `before`
    /// declared for it; nil when it adds none, or one to a protocol found without being named.
    static func added(by text: String, before: SwiftSource, index: SymbolIndex) -> Conformances? {
        guard let type = SwiftSource.extendedType(text), !index.declarations(named: [type]).isEmpty else { return nil }
        let had = Set(
            before.lines.filter {
                ($0.isExtension && SwiftSource.extendedType($0.text) == type) || ($0.declaresType && $0.names == [type])
            }.flatMap { inherited($0.text) })
        let new = inherited(text).filter { !had.contains($0) }
        guard !new.isEmpty else { return nil }
        var protocols: [String] = []
        for name in new where !namedOnly.contains(name) {
            let declared = index.declarations(named: [name])
            guard !declared.isEmpty else { return nil }
            protocols += declared
        }
        return Conformances(protocols: protocols, names: new)
    }

    /// The protocols a type or extension declaration lists after its colon (without generic
    /// arguments or a `where` clause).
    static func inherited(_ text: String) -> [String] {
        guard
            let colon = text.firstMatch(of: #/^[^{]*?\b(?:extension|struct|class|enum|actor)\s+[\w.]+(?:<[^>]*>)?\s*:/#)
        else { return [] }
        var list = text[colon.range.upperBound...]
        if let end = list.firstIndex(where: { $0 == "{" }) { list = list[..<end] }
        if let clause = list.range(of: " where ") { list = list[..<clause.lowerBound] }
        return list.split(separator: ",").compactMap {
            let name = $0.trimmingCharacters(in: .whitespaces).split(separator: "<").first.map(String.init) ?? ""
            return name.isEmpty ? nil : String(name.split(separator: ".").last ?? "")
        }
    }

    /// The package's functions overloaded on `type` or the added protocols: every function (an
    /// initialiser, a subscript) of a base name declared more than once, one of which names either
    /// in its parameters.
    func overloads(in texts: [String: String], index: SymbolIndex, type: String) -> [String] {
        var byName: [String: [String]] = [:]
        for (usr, declaration) in index.declarations where !usr.hasPrefix("s:e:") && declaration.name.contains("(") {
            byName[SymbolIndex.baseName(declaration.name), default: []].append(usr)
        }
        let words = [type] + names
        var found: [String] = []
        var lines: [String: [Substring]] = [:]
        for (_, usrs) in byName where usrs.count > 1 {
            let named = usrs.contains { usr in
                let declaration = index.declarations[usr]!
                let file = index.files[declaration.file]
                if lines[file] == nil {
                    lines[file] = texts[file]?.split(separator: "\n", omittingEmptySubsequences: false)
                }
                guard let text = lines[file]?[safe: declaration.line - 1],
                    let parameters = text.firstRange(of: SymbolIndex.baseName(declaration.name) + "(").map({
                        text[$0.upperBound...]
                    }) ?? text.firstRange(of: "(").map({ text[$0.upperBound...] })
                else { return false }
                return words.contains { ImpactSelection.containsWord($0, in: String(parameters)) }
            }
            if named { found += usrs }
        }
        return found
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
