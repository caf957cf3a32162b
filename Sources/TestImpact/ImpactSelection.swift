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
    /// Targets whose manifest entry changed → what changed; they and their dependent test targets run.
    public var fallbackTargets: [String: String] = [:]
    /// Changes that run no test, and why (comments only).
    public var notes: [String] = []

    public init() {}

    /// The suites `changes` can reach. `current` is the suites the package has now, with their tests
    /// (a suite or test the map does not know is new, and runs); `sources` the package's Swift files
    /// now (path → text), where the names a changed declaration declares are looked for;
    /// `manifests` what SwiftPM read changed in a changed `Package.swift` (`ManifestChange`; without
    /// it, any change of its code runs everything); `resolved` the pins a changed `Package.resolved`
    /// moved (without it, such a change runs everything); `conditions` what this platform compiles
    /// of `#if` branches (without it, every branch counts).
    public static func select(
        map: ImpactMap, changes: [ImpactChange], current: [String: [String]], sources: [String: String] = [:],
        manifests: [String: ManifestChange] = [:], resolved: ResolvedChange? = nil,
        conditions: CompilationConditions? = nil
    ) -> ImpactSelection {
        var selection = ImpactSelection()
        var executedBy: [String: [String]] = [:]
        for (suite, files) in map.suites { for file in files { executedBy[file, default: []].append(suite) } }
        let changed = Set(changes.map(\.path))
        var files = SourceFiles(sources)
        let layout = PackageLayout(sources: sources)
        for change in changes.sorted(by: { $0.path < $1.path }) {
            let path = change.path
            let name = (path as NSString).lastPathComponent
            // What a suite read while it ran reaches it, whatever the file is.
            let readers = map.readers(of: path)
            for (suite, read) in readers {
                selection.add(suite, read == path ? "it read \(path)" : "it listed \(read), which holds \(path)")
            }
            if path.hasPrefix("../") { continue }
            if !path.contains("/"),
                (name.hasPrefix("Package") && name.hasSuffix(".swift")) || name == "Package.resolved"
            {
                if name == "Package.resolved" {
                    selection.resolved(path, resolved, map: map)
                    continue
                }
                if SwiftChange.kind(old: change.old, new: change.new) == .commentsOnly {
                    selection.notes.append("\(path): comments, blank lines or formatting only, no test runs for it")
                    continue
                }
                switch manifests[path] {
                case .nothing:
                    selection.notes.append(
                        "\(path): SwiftPM reads the same package before and after (swift package dump-package), "
                            + "no test runs for it")
                case .targets(let targets):
                    for (target, why) in targets { selection.fallbackTargets[target] = why }
                case .everything(let why):
                    selection.everything = selection.everything ?? "\(why): every test"
                case nil:
                    selection.everything = selection.everything ?? "\(path) changed: every test"
                }
                continue
            }
            // Swift the manifest excludes from its target is not compiled (other files it excludes may
            // still be read by a test, which the traced reads tell).
            if path.hasSuffix(".swift"),
                let entry = map.excluded?.first(where: { path == $0 || path.hasPrefix($0 + "/") })
            {
                if readers.isEmpty {
                    selection.notes.append(
                        "\(path): excluded from its target (exclude: \(entry) in Package.swift), no test runs for it")
                }
                continue
            }
            if let why = layout.buildsNothing(path) {
                if readers.isEmpty { selection.notes.append("\(path): \(why), no test runs for it") }
                continue
            }
            if path.hasSuffix(".swift") {
                var (old, new) = (change.old, change.new)
                if let conditions {
                    // What this platform compiles: a change only in branches it never compiles is none.
                    let active = (old.map(conditions.active), new.map(conditions.active))
                    if active != (old, new) {
                        if SwiftChange.kind(old: active.0, new: active.1) == .commentsOnly,
                            SwiftChange.kind(old: old, new: new) != .commentsOnly
                        {
                            selection.notes.append(
                                "\(path): only code in #if branches \(conditions.os) (\(conditions.configuration)) "
                                    + "does not compile changed, no test runs for it")
                            continue
                        }
                        (old, new) = active
                    }
                }
                switch SwiftChange.kind(old: old, new: new) {
                case .commentsOnly:
                    selection.notes.append("\(path): comments, blank lines or formatting only, no test runs for it")
                case .declarations(let line, let names, let imports):
                    for suite in executedBy[path] ?? [] { selection.add(suite, "executed \(path)") }
                    // An import another file of the target has too changes nothing beyond this file.
                    if let lone = imports.first(where: { !files.has($0, elsewhere: path) }) {
                        selection.fallback[path] =
                            "\(path) changes an import no other file of its target has (\(lone)), whose effect "
                            + "elsewhere coverage cannot see"
                        break
                    }
                    guard let names else {
                        selection.fallback[path] =
                            "\(path) changes declarations (\(line)), whose effect elsewhere coverage cannot see"
                        break
                    }
                    // What a declaration changes elsewhere (an overload chosen, a conformance found) is in
                    // code that names it: the suites that executed a file naming it, or the file itself.
                    // No target depends on a test target: what its files declare only its files see;
                    // but a conformance it adds to another module's type is found at run time by any
                    // code's dynamic casts, so a file with one is searched everywhere.
                    let conformance = [old, new].contains { $0?.contains(#/extension\s+[\w.]+(<[^>]*>)?\s*:/#) == true }
                    let scope = conformance ? nil : map.testTargets?.first { path.hasPrefix($0 + "/") }
                    let uses = files.uses(of: names, changed: changed, within: scope)
                    for (file, use) in uses.sorted(by: { $0.key < $1.key }) {
                        for suite in executedBy[file] ?? [] where map.executed(suite, in: file, within: use.members) {
                            selection.add(
                                suite,
                                "executed \(file), which names \(use.names.joined(separator: ", ")) (declared in \(path))"
                            )
                        }
                    }
                case .accessLevels(let line):
                    for suite in executedBy[path] ?? [] {
                        selection.add(suite, "executed \(path) (only access levels changed: \(line))")
                    }
                    if executedBy[path] == nil {
                        selection.notes.append(
                            "\(path): only access levels changed (\(line)) in code no suite executed, no test runs for it"
                        )
                    }
                case .bodies(let members):
                    // The suites that executed a changed body, by the functions the map recorded there;
                    // where the map has no functions for a suite, or the bodies are unknown, every suite
                    // that executed the file.
                    let ran = (executedBy[path] ?? []).filter { map.executed($0, in: path, within: members) }
                    let starts = (members ?? []).map { String($0.lowerBound) }
                    let lines =
                        starts.count == 1
                        ? "function at line \(starts[0])" : "functions at lines " + starts.joined(separator: ", ")
                    guard !ran.isEmpty else {
                        // A body no suite executed adds no caller: nothing can reach it, unless the
                        // compiler or the build runs it, which coverage never shows.
                        if let code = files.buildTimeCode(path) {
                            selection.fallback[path] =
                                "\(path) is \(code), which runs while building and no suite's coverage shows"
                        } else {
                            let what = executedBy[path] == nil ? "any of \(path)" : "the changed \(lines) of \(path)"
                            selection.notes.append(
                                "\(path): no suite executed \(what), so the changed bodies reach no test, no test runs for it"
                            )
                        }
                        break
                    }
                    for suite in ran {
                        let known = members != nil && map.functions?[suite]?[path] != nil
                        selection.add(suite, "executed \(path)" + (known ? " (the changed \(lines))" : ""))
                    }
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
                if readers.isEmpty {
                    selection.notes.append(
                        "\(path): documentation or settings swift test does not read, no test runs for it")
                }
                continue
            }
            if let input = Self.buildInput(path, map: map) {
                selection.fallback[path] = "\(path) \(input)"
                continue
            }
            guard map.reads != nil else {
                let why = map.untraced.map { ", and reads were not traced (\($0))" } ?? ""
                selection.fallback[path] = "\(path) is not Swift source: coverage cannot see what it changes\(why)"
                continue
            }
            // Reads were traced: a file no target compiles reaches the suites that read it, and
            // those whose reads are unknown.
            for (suite, why) in (map.unknownReads ?? [:]).sorted(by: { $0.key < $1.key }) {
                selection.add(suite, "its reads are unknown (\(why)), and \(path) changed")
            }
            if readers.isEmpty, map.unknownReads?.isEmpty ?? true {
                selection.notes.append(
                    "\(path): no target compiles it and no suite read it while the impact map was recorded, "
                        + "no test runs for it")
            }
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

    /// Why `path` (not Swift source) is read by the build rather than by tests, when it is: source
    /// a C-family target compiles, or a file of a package plugin or of a target that uses a
    /// build-tool plugin (the plugin reads it while building; no coverage or trace of a test shows it).
    static func buildInput(_ path: String, map: ImpactMap) -> String? {
        let compiled = ["c", "cc", "cpp", "cxx", "c++", "m", "mm", "h", "hh", "hpp", "hxx", "inc", "s", "modulemap"]
        let ext = (path as NSString).pathExtension.lowercased()
        if compiled.contains(ext) || (path as NSString).lastPathComponent == "module.modulemap" {
            return
                "is \(ext) source a target compiles, whose effect coverage cannot place: its dependent test targets run"
        }
        if path.hasPrefix("Plugins/") { return "is part of a package plugin, which runs while building" }
        if let target = map.pluginTargets?.first(where: { path.hasPrefix($0 + "/") }) {
            return "is in \(target), whose build-tool plugin reads its files while building, which neither "
                + "coverage nor a read trace shows: its dependent test targets run"
        }
        return nil
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

    /// Documentation and settings `swift test` does not read: Markdown and DocC pages, `.github/`,
    /// dotfiles at the top, licences, and Xcode's projects, workspaces, schemes, test plans and
    /// build settings (`.xcconfig`). No test is built from them.
    static func isDocumentation(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        let folders = path.split(separator: "/").dropLast()
        return ["md", "markdown", "rst", "adoc", "xcconfig", "xctestplan", "xcscheme"].contains(ext)
            || path.contains(".docc/") || path.hasPrefix(".github/") || path.hasPrefix(".swiftpm/xcode/")
            || folders.contains { $0.hasSuffix(".xcodeproj") || $0.hasSuffix(".xcworkspace") }
            || (!path.contains("/") && name.hasPrefix("."))
            || ["LICENSE", "NOTICE", "CODEOWNERS", "CONTRIBUTORS"].contains { name.uppercased().hasPrefix($0) }
    }

    /// `Package.resolved`: the suites that executed code of the dependencies whose pins moved;
    /// every test when a moved dependency's code runs while building (macros, plugins), or the map
    /// does not know which dependencies each suite executed.
    private mutating func resolved(_ path: String, _ change: ResolvedChange?, map: ImpactMap) {
        guard let change, let executed = map.dependencies else {
            everything = everything ?? "\(path) changed: every test"
            return
        }
        if let first = change.buildTime.first {
            everything =
                everything ?? "\(path) moves \(first), whose macros or plugins run while building: every test"
            return
        }
        var reached: Set<String> = []
        for (suite, dependencies) in executed.sorted(by: { $0.key < $1.key }) {
            let lowered = Set(dependencies.map { $0.lowercased() })
            if let pin = change.moved.first(where: lowered.contains) {
                reached.insert(pin)
                add(suite, "executed \(pin), whose pin moved in \(path)")
            }
        }
        let unexecuted = change.moved.filter { !reached.contains($0) }
        if !unexecuted.isEmpty {
            notes.append(
                "\(path): no suite executed \(unexecuted.joined(separator: ", ")), whose pins moved, no test runs for them"
            )
        }
    }

    private mutating func add(_ suite: String, _ reason: String) {
        if suites[suite] == nil { suites[suite] = reason }
    }
}

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

    /// A line with its `public`, `open`, `internal` and `package` modifiers and its inlining and
    /// interface attributes (`@inlinable`, `@usableFromInline`, `@_implementationOnly`) taken out.
    static func withoutAccess(_ line: String) -> String {
        line.replacing(
            #/\b(public|open|internal)\s+|\bpackage\s+(?=[a-z@])|@(inlinable|usableFromInline|_implementationOnly)\s*/#,
            with: "")
    }

    static func kind(old: String?, new: String?) -> SwiftChange {
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
        let (removed, added) = unmatched(before.lines.map(\.text), after.lines.map(\.text))
        let declarations = before.reachable(removed, other: after) + after.reachable(added, other: before)
        guard let first = declarations.first else { return .bodies(before.members(holding: removed, added, in: after)) }
        // Access levels other than private ones change who may call, not what a call does.
        let pairs = zip(removed.map { before.lines[$0].text }, added.map { after.lines[$0].text })
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

/// What the package's files say of its layout without SwiftPM: the packages nested in it (a folder
/// with a `Package.swift` of its own) and which of them the root manifest depends on by path.
struct PackageLayout {
    /// Nested packages' folders, relative to the package.
    let nested: [String]
    /// The folders the root manifest names in `.package(path:)`, relative to the package.
    let pathDependencies: Set<String>
    /// The package's Swift files, for templates' generated files.
    let swiftFiles: Set<String>

    init(sources: [String: String]) {
        nested = sources.keys.compactMap { path in
            let name = (path as NSString).lastPathComponent
            guard path.contains("/"),
                name == "Package.swift" || (name.hasPrefix("Package@swift") && name.hasSuffix(".swift"))
            else { return nil }
            return (path as NSString).deletingLastPathComponent
        }.sorted()
        let manifest = sources["Package.swift"] ?? ""
        pathDependencies = Set(
            manifest.matches(of: #/\.package\s*\([^)]*?path:\s*"([^"]+)"/#).map { match in
                String(match.output.1).split(separator: "/").filter { $0 != "." }.joined(separator: "/")
            })
        swiftFiles = Set(sources.keys)
    }

    /// Why no target of the package builds `path` (nor SwiftPM bundles it as a resource): a hidden
    /// file or folder, a nested package the root does not depend on, or a template whose generated
    /// Swift is committed beside it (whose own change is judged); nil otherwise.
    func buildsNothing(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        if let hidden = parts.first(where: { $0.hasPrefix(".") }) {
            return "hidden (\(hidden)), which SwiftPM neither builds nor bundles"
        }
        if let package = nested.last(where: { path.hasPrefix($0 + "/") }), !pathDependencies.contains(package) {
            return "in the package nested at \(package)/, which the root does not depend on by path"
        }
        let generated = (path as NSString).deletingPathExtension
        if generated != path, generated.hasSuffix(".swift"), swiftFiles.contains(generated) {
            return "a template whose generated \((generated as NSString).lastPathComponent) is committed beside it "
                + "(a change there is judged on its own)"
        }
        return nil
    }
}
