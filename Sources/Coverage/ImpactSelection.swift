import Foundation

/// A changed file of the package, as impact selection sees it: its path relative to the package
/// and, for Swift sources, its text before and after (nil when it did not exist then).
public struct ImpactChange: Sendable, Equatable {
    public var path: String
    public var old: String?
    public var new: String?

    public init(path: String, old: String?, new: String?) {
        self.path = path
        self.old = old
        self.new = new
    }
}

/// Which suites a change can reach, by the impact map, and why. When in doubt it runs more: what
/// coverage cannot see goes to `fallback` (the target graph decides: the test targets that depend
/// on the file's target) or to `everything`.
public struct ImpactSelection: Sendable, Equatable {
    /// Why every test runs, when one does.
    public var everything: String?
    /// Suite → why it runs.
    public var suites: [String: String] = [:]
    /// Changed paths coverage cannot judge → why; their dependent test targets run.
    public var fallback: [String: String] = [:]
    /// Changes that run no test, and why (comments only).
    public var notes: [String] = []

    public init() {}

    /// The suites `changes` can reach. `current` is the suites the package has now, with their tests
    /// (a suite or test the map does not know is new, and runs); `sources` the package's Swift files
    /// now (path → text), where the names a changed declaration declares are looked for.
    public static func select(
        map: ImpactMap, changes: [ImpactChange], current: [String: [String]], sources: [String: String] = [:]
    ) -> ImpactSelection {
        var selection = ImpactSelection()
        var executedBy: [String: [String]] = [:]
        for (suite, files) in map.suites { for file in files { executedBy[file, default: []].append(suite) } }
        for change in changes.sorted(by: { $0.path < $1.path }) {
            let path = change.path
            let name = (path as NSString).lastPathComponent
            if !path.contains("/"),
                (name.hasPrefix("Package") && name.hasSuffix(".swift")) || name == "Package.resolved"
            {
                selection.everything = selection.everything ?? "\(path) changed: every test"
                continue
            }
            if path.hasSuffix(".swift") {
                switch SwiftChange.kind(old: change.old, new: change.new) {
                case .commentsOnly:
                    selection.notes.append("\(path): comments and blank lines only, no test runs for it")
                case .declarations(let line, let names):
                    for suite in executedBy[path] ?? [] { selection.add(suite, "executed \(path)") }
                    guard let names, !names.isEmpty else {
                        selection.fallback[path] =
                            "\(path) changes declarations (\(line)), whose effect elsewhere coverage cannot see"
                        break
                    }
                    // What a declaration changes elsewhere (an overload chosen, a conformance found) is in
                    // code that names it: the suites that executed a file naming it, or the file itself.
                    let naming = Self.files(naming: names, in: sources, old: change.old.map { [path: $0] } ?? [:])
                    for file in naming.sorted() {
                        for suite in executedBy[file] ?? [] {
                            selection.add(
                                suite,
                                "executed \(file), which names \(names.joined(separator: ", ")) (declared in \(path))")
                        }
                    }
                case .bodies:
                    let suites = executedBy[path] ?? []
                    if suites.isEmpty { selection.fallback[path] = "no suite executed \(path)" }
                    for suite in suites { selection.add(suite, "executed \(path)") }
                }
                continue
            }
            // A test's reference images: the suites named like the folder.
            let parts = path.split(separator: "/").map(String.init)
            if let at = parts.firstIndex(of: "__Snapshots__"), at + 1 < parts.count {
                let owners = current.keys.filter { $0.split(separator: ".").last.map(String.init) == parts[at + 1] }
                if owners.isEmpty { selection.fallback[path] = "no suite is named \(parts[at + 1])" }
                for suite in owners { selection.add(suite, "its references changed (\(path))") }
                continue
            }
            if Self.isDocumentation(path) {
                selection.notes.append("\(path): documentation or repository settings, no test runs for it")
                continue
            }
            selection.fallback[path] = "\(path) is not Swift source: coverage cannot see what it changes"
        }
        for (suite, tests) in current {
            guard let known = map.tests[suite] else {
                selection.add(suite, "new test suite")
                continue
            }
            if let new = Set(tests).subtracting(known).sorted().first { selection.add(suite, "new test \(new)") }
        }
        return selection
    }

    /// Files of `sources` (and `old`) that contain one of `names` as a whole word.
    static func files(naming names: [String], in sources: [String: String], old: [String: String]) -> Set<String> {
        var found: Set<String> = []
        for (path, text) in sources.merging(old, uniquingKeysWith: { $0 + "\n" + $1 }) {
            if names.contains(where: { Self.containsWord($0, in: text) }) { found.insert(path) }
        }
        return found
    }

    static func containsWord(_ word: String, in text: String) -> Bool {
        var searched = text[...]
        while let range = searched.range(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let isIdentifier = word.first.map { $0.isLetter || $0 == "_" } ?? false
            func part(_ character: Character?) -> Bool {
                guard let character else { return false }
                return character.isLetter || character.isNumber || character == "_"
            }
            if !isIdentifier || (!part(before) && !part(after)) { return true }
            searched = text[range.upperBound...]
        }
        return false
    }

    /// Documentation and repository settings: Markdown and DocC pages, `.github/`, dotfiles at the
    /// top, licences. No test is built from them.
    static func isDocumentation(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        return ["md", "markdown", "rst", "adoc"].contains(ext) || path.contains(".docc/") || path.hasPrefix(".github/")
            || (!path.contains("/") && name.hasPrefix("."))
            || ["LICENSE", "NOTICE", "CODEOWNERS", "CONTRIBUTORS"].contains { name.uppercased().hasPrefix($0) }
    }

    private mutating func add(_ suite: String, _ reason: String) {
        if suites[suite] == nil { suites[suite] = reason }
    }
}

/// How a Swift file changed, judged line by line: comments only; statements inside bodies only,
/// which coverage sees through the suites that executed the file; or declarations (a function,
/// type, extension, conformance, property, import, attribute or `#if`), whose effect on other
/// files (overloads chosen, conformances found, defaults) coverage cannot see.
enum SwiftChange: Equatable {
    case commentsOnly
    case bodies
    /// The first changed line that declares something, and the names the changed declarations
    /// declare (nil when one of them declares no name: an initialiser, a subscript, an import, an
    /// attribute or `#if`).
    case declarations(String, names: [String]?)

    static func kind(old: String?, new: String?) -> SwiftChange {
        guard let old, let new else {
            // A new or deleted file: the names it declares, then and now.
            let lines = code(old ?? new ?? "").filter(isDeclaration)
            let names = lines.map(declaredNames)
            return .declarations(
                old == nil ? "a new file" : "the file is gone",
                names: names.contains { $0 == nil } ? nil : Array(Set(names.compactMap { $0 }.flatMap { $0 })).sorted())
        }
        let changed = changedLines(Self.code(old), Self.code(new))
        if changed.isEmpty { return .commentsOnly }
        let declarations = changed.filter(isDeclaration)
        guard let first = declarations.first else { return .bodies }
        let names = declarations.map(declaredNames)
        return .declarations(
            first.trimmingCharacters(in: .whitespaces),
            names: names.contains { $0 == nil } ? nil : Array(Set(names.compactMap { $0 }.flatMap { $0 })).sorted())
    }

    /// The lines that count: without blank lines and comments (`//` lines and `/* … */` blocks).
    static func code(_ text: String) -> [String] {
        var lines: [String] = []
        var inBlock = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if inBlock {
                guard let end = line.range(of: "*/") else { continue }
                line = String(line[end.upperBound...])
                inBlock = false
            }
            if let start = line.range(of: "/*"), !line[..<start.lowerBound].contains("\"") {
                if let end = line[start.upperBound...].range(of: "*/") {
                    line = String(line[..<start.lowerBound]) + String(line[end.upperBound...])
                } else {
                    line = String(line[..<start.lowerBound])
                    inBlock = true
                }
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("//") { continue }
            lines.append(line)
        }
        return lines
    }

    /// Lines on either side that a longest common subsequence leaves unmatched.
    static func changedLines(_ old: [String], _ new: [String]) -> [String] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        if a.isEmpty || b.isEmpty || a.count * b.count > 4_000_000 { return a + b }
        // Longest common subsequence lengths, then a walk back collecting the unmatched lines.
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var changed: [String] = []
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                changed.append(a[i])
                i += 1
            } else {
                changed.append(b[j])
                j += 1
            }
        }
        return changed + a[i...] + b[j...]
    }

    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "open", "package", "static", "class", "final", "override",
        "mutating", "nonmutating", "lazy", "weak", "unowned", "dynamic", "required", "convenience", "indirect",
        "nonisolated", "isolated", "consuming", "borrowing", "prefix", "postfix", "infix", "optional",
    ]
    static let declarers: Set<String> = [
        "func", "init", "init?", "init!", "deinit", "subscript", "extension", "protocol", "class", "struct", "enum",
        "actor", "typealias", "associatedtype", "operator", "precedencegroup", "macro", "import",
    ]

    /// The names a declaration line declares (`func chunked(` → chunked, `extension Foo:` → Foo,
    /// `case a, b` → a and b, `func ==` → ==); nil for a declaration without a name of its own.
    static func declaredNames(_ line: String) -> [String]? {
        var words = line.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first), words.count > 1 {
            if first == "class", words.count > 1, !declarers.contains(words[1]), !modifiers.contains(words[1]),
                !["var", "let"].contains(words[1])
            {
                break
            }
            words.removeFirst()
        }
        guard let keyword = words.first, words.count > 1 else { return nil }
        let rest = words.dropFirst().joined(separator: " ")
        let named = [
            "func", "var", "let", "class", "struct", "enum", "protocol", "typealias", "actor",
            "associatedtype", "macro", "extension", "precedencegroup", "operator",
        ]
        if keyword == "case" {
            let names = rest.split(separator: ",").compactMap {
                identifier(in: $0.trimmingCharacters(in: .whitespaces))
            }
            return names.isEmpty ? nil : names
        }
        guard named.contains(keyword) else { return nil }
        if let name = identifier(in: rest) { return [name] }
        // An operator function: the operator itself.
        let symbol = rest.prefix { "=-+!*%<>&|^~?/.".contains($0) }
        return symbol.isEmpty ? nil : [String(symbol)]
    }

    /// The identifier `text` starts with (backticks dropped).
    private static func identifier(in text: String) -> String? {
        let trimmed = text.hasPrefix("`") ? String(text.dropFirst()) : text
        let name = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard let first = name.first, first.isLetter || first == "_" else { return nil }
        return String(name)
    }

    /// Whether a line declares something (see the type's comment). `var`/`let` count when they have
    /// a modifier or sit at most one level deep (a property); deeper ones are local variables.
    static func isDeclaration(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("@") || trimmed.hasPrefix("#if") || trimmed.hasPrefix("#else")
            || trimmed.hasPrefix("#elseif") || trimmed.hasPrefix("#endif")
        {
            return true
        }
        var words = trimmed.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "<" || $0 == ":" }).map(String.init)
        // `class Parser` declares a class; `class func` and `class var` are a modifier.
        if words.first == "class", words.count > 1, !declarers.contains(words[1]), !modifiers.contains(words[1]),
            !["var", "let"].contains(words[1])
        {
            return true
        }
        var modified = false
        while let first = words.first, modifiers.contains(first.split(separator: "(").first.map(String.init) ?? first),
            words.count > 1
        {
            words.removeFirst()
            modified = true
        }
        guard let keyword = words.first else { return false }
        if declarers.contains(keyword) { return true }
        if keyword == "case" { return !trimmed.hasSuffix(":") }
        if keyword == "var" || keyword == "let" {
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            return modified || indent <= 4
        }
        return false
    }
}
