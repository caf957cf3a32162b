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
    /// (a suite or test the map does not know is new, and runs).
    public static func select(map: ImpactMap, changes: [ImpactChange], current: [String: [String]]) -> ImpactSelection {
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
                case .declarations(let line):
                    selection.fallback[path] =
                        "\(path) changes declarations (\(line)), whose effect elsewhere coverage cannot see"
                    for suite in executedBy[path] ?? [] { selection.add(suite, "executed \(path)") }
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
    /// The first changed line that declares something.
    case declarations(String)

    static func kind(old: String?, new: String?) -> SwiftChange {
        guard let old, let new else { return .declarations(old == nil ? "a new file" : "the file is gone") }
        let changed = changedLines(Self.code(old), Self.code(new))
        if changed.isEmpty { return .commentsOnly }
        if let line = changed.first(where: isDeclaration) {
            return .declarations(line.trimmingCharacters(in: .whitespaces))
        }
        return .bodies
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
