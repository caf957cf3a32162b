import Foundation

/// The package's own declarations as the compiler resolved every use of them, from the index store
/// a debug build writes: for each declaration (by USR) its name, where it is declared, the
/// declarations that override or witness it and its accessors, and every place that refers to it.
/// Kept in the impact map, recorded with it from the same build, so its lines are the map's.
/// Its JSON form is documented in docs/test-runner.md.
public struct SymbolIndex: Codable, Sendable, Equatable {
    /// A declaration of the package.
    public struct Declaration: Codable, Sendable, Equatable {
        public var name: String
        /// Index into `files`, and the line of its name.
        public var file: Int
        public var line: Int
        /// The declarations that override it, or witness it as a protocol requirement.
        public var overriddenBy: [String]?
        /// A property's accessors, which uses may name instead of it.
        public var accessors: [String]?
        /// The declarations it holds (a type's members, an extension's): a removed or changed type
        /// reaches what uses them.
        public var members: [String]?
        /// Where it is referred to: pairs of an index into `files` and a line, flattened.
        public var references: [Int]?

        public init(name: String, file: Int, line: Int) {
            (self.name, self.file, self.line) = (name, file, line)
        }

        /// The references as (file index, line) pairs.
        public var uses: [(file: Int, line: Int)] {
            let flat = references ?? []
            return stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }
        }
    }

    /// The package's source files the index has a unit for, relative to the package.
    public var files: [String]
    /// USR → declaration.
    public var declarations: [String: Declaration]
    /// The base names (`map`, `==`, `init`) the package's files use of other modules' declarations:
    /// a new declaration of the package with one of these names may capture those uses, which the
    /// index cannot follow (it keeps the uses of the package's own declarations only).
    public var externalNames: [String]
    /// What the index could not see, by file: the macros a file expands (their expansions' uses are
    /// not in the index). A change there falls back to the name rule. (A call through a protocol
    /// requirement or a class method, "dynamic" to the index, is resolved to the requirement.)
    public var unseen: [String: String]?
    /// Files whose units were left out (edited but not committed when recorded).
    public var removed: [String]?

    public init(
        files: [String], declarations: [String: Declaration], externalNames: [String], unseen: [String: String]? = nil
    ) {
        (self.files, self.declarations, self.externalNames, self.unseen) = (files, declarations, externalNames, unseen)
    }

    /// A declaration's name without its argument labels: `init(side:)` → `init`.
    public static func baseName(_ name: String) -> String {
        name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name
    }

    /// The package's declarations whose base name is one of `names`, by USR: types, functions,
    /// properties, not the package's extensions of a type of that name (an extension's USR starts
    /// `s:e:`), which hold other declarations rather than being one.
    public func declarations(named names: Set<String>) -> [String] {
        declarations.filter { !$0.key.hasPrefix("s:e:") && names.contains(Self.baseName($0.value.name)) }.keys.sorted()
    }

    /// The declarations of `file` on lines `lines` (the lines of their names), by USR.
    public func declarations(in file: String, lines: ClosedRange<Int>) -> [String] {
        guard covers(file), let at = files.firstIndex(of: file) else { return [] }
        return declarations.filter { $0.value.file == at && lines.contains($0.value.line) }.keys.sorted()
    }

    /// The index without `dropped` files' units: their declarations and the uses in them go, so a
    /// change to one of them is judged by names.
    public mutating func drop(files dropped: Set<String>) {
        let gone = Set(files.indices.filter { dropped.contains(files[$0]) })
        guard !gone.isEmpty else { return }
        declarations = declarations.filter { !gone.contains($0.value.file) }
        for (usr, declaration) in declarations {
            let kept = declaration.uses.filter { !gone.contains($0.file) }.flatMap { [$0.file, $0.line] }
            declarations[usr]?.references = kept.isEmpty ? nil : kept
        }
        dropped.forEach { unseen?[$0] = nil }
        removed = (removed ?? []) + files.filter { dropped.contains($0) }
    }

    /// Whether the index has a unit for `file`, kept.
    public func covers(_ file: String) -> Bool { files.contains(file) && !(removed ?? []).contains(file) }

    /// `usrs` with what a change to them also changes: the declarations overriding or witnessing
    /// them, their accessors and members, to the end.
    public func closure(of usrs: [String]) -> [String] {
        var seen = Set(usrs)
        var queue = usrs
        while let usr = queue.popLast() {
            guard let declaration = declarations[usr] else { continue }
            for next in (declaration.overriddenBy ?? []) + (declaration.accessors ?? []) + (declaration.members ?? [])
            where seen.insert(next).inserted {
                queue.append(next)
            }
        }
        return seen.sorted()
    }
}
