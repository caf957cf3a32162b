import Foundation

/// The package's Swift files (path → text), each read as a `SwiftSource` once, when first needed:
/// several changed declarations look through the same files.
struct SourceFiles {
    let texts: [String: String]
    private var read: [String: SwiftSource] = [:]

    init(_ texts: [String: String]) { self.texts = texts }

    mutating func source(_ path: String) -> SwiftSource? {
        if let source = read[path] { return source }
        guard let text = texts[path] else { return nil }
        let source = SwiftSource(text)
        read[path] = source
        return source
    }

    /// Where the files name one of `names` as a whole word, in code: per file, the names it uses,
    /// and the members whose lines name one, or nil for the whole file (a use outside any member,
    /// or a file that changed since the map, whose recorded lines no longer match it).
    /// `within`, a folder, limits the search to its files (a test target's declarations are seen by
    /// its own files only).
    mutating func uses(of names: [String], changed: Set<String>, within folder: String? = nil)
        -> [String: (names: [String], members: [ClosedRange<Int>]?)]
    {
        var found: [String: (names: [String], members: [ClosedRange<Int>]?)] = [:]
        for (path, text) in texts
        where folder.map({ path.hasPrefix($0 + "/") }) ?? true
            && names.contains(where: { ImpactSelection.containsWord($0, in: text) })
        {
            guard let source = source(path) else { continue }
            var used: Set<String> = []
            var members: [ClosedRange<Int>?] = []
            for line in source.lines {
                let named = names.filter { ImpactSelection.containsWord($0, in: line.text) }
                guard !named.isEmpty else { continue }
                used.formUnion(named)
                members.append(source.member(holding: line.number))
            }
            guard !used.isEmpty else { continue }
            let whole = changed.contains(path) || members.contains { $0 == nil }
            found[path] = (used.sorted(), whole ? nil : members.compactMap { $0 })
        }
        return found
    }

    /// What kind of code the build runs `path` is, when it is: a build-tool or command plugin
    /// (under `Plugins/`, or its target imports PackagePlugin), or a macro implementation (its target
    /// imports SwiftCompilerPlugin or SwiftSyntaxMacros); nil for code the tests run.
    mutating func buildTimeCode(_ path: String) -> String? {
        if path.hasPrefix("Plugins/") { return "a package plugin" }
        let target = path.split(separator: "/").dropLast().prefix(2).joined(separator: "/") + "/"
        for (other, text) in texts where other.hasPrefix(target) {
            guard text.contains("import") else { continue }
            let imports = source(other)?.imports ?? []
            if imports.contains(where: { $0.hasSuffix(" PackagePlugin") }) { return "a package plugin" }
            if imports.contains(where: { $0.hasSuffix(" SwiftCompilerPlugin") || $0.hasSuffix(" SwiftSyntaxMacros") }) {
                return "a macro implementation"
            }
        }
        return nil
    }

    /// Whether another file of `path`'s target (the same first two folders, `Sources/App/`) has
    /// the import `line` too.
    mutating func has(_ line: String, elsewhere path: String) -> Bool {
        let target = path.split(separator: "/").dropLast().prefix(2).joined(separator: "/") + "/"
        let module = line.split(separator: " ").last.map(String.init) ?? line
        for (other, text) in texts where other != path && other.hasPrefix(target) && text.contains(module) {
            if source(other)?.imports.contains(line) == true { return true }
        }
        return false
    }
}
