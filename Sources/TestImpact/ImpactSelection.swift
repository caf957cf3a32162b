import Foundation
import SnapshotConventions

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
            // Every changed file gets suites, a fallback or a note saying why none: never silence.
            let answers = selection.answers(path)
            defer {
                if selection.answers(path) == answers {
                    selection.notes.append(
                        "\(path): no suite executed or read what changed, nor code that uses what it declares, "
                            + "no test runs for it")
                }
            }
            // What a suite read while it ran reaches it, whatever the file is.
            let readers = map.readers(of: path)
            for (suite, read) in readers {
                selection.add(suite, read == path ? "it read \(path)" : "it listed \(read), which holds \(path)")
            }
            if path.hasPrefix("../") { continue }
            if let why = Self.commandPluginOnly(path, map: map) {
                if readers.isEmpty { selection.notes.append("\(path): \(why), no test runs for it") }
                continue
            }
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
                case .unread(let why):
                    selection.notes.append("\(path): \(why), no test runs for it")
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
                        // A file added or removed whose code is all in such branches is none too.
                        if SwiftChange.kind(old: active.0 ?? "", new: active.1 ?? "") == .commentsOnly,
                            SwiftChange.kind(old: old, new: new) != .commentsOnly
                        {
                            selection.notes.append(
                                "\(path): only code in #if branches \(conditions.build) does not compile changed, "
                                    + "no test runs for it")
                            continue
                        }
                        (old, new) = active
                    }
                }
                let kind = SwiftChange.kind(old: old, new: new)
                // Children whose profiles were lost may have run any code but the tests' own; so may a
                // suite's process cut short (killed: it wrote no profile), which its trace tells.
                if kind.changesCode, map.testTargets?.contains(where: { path.hasPrefix($0 + "/") }) != true {
                    if let lost = map.lostProfiles {
                        selection.everything =
                            selection.everything
                            ?? "\(path) changed, and the impact map lost the profiles of child processes (\(lost)), "
                            + "so which suites run it is unknown: every test"
                        continue
                    }
                    for (suite, why) in (map.unknownReads ?? [:]).sorted(by: { $0.key < $1.key }) {
                        selection.add(
                            suite,
                            "a process of its was cut short while the map was recorded (\(why)), so what it executed "
                                + "is unknown, and \(path) changed")
                    }
                }
                // Code the build runs (a plugin, a macro) changes what the targets built with it are.
                if kind.changesCode, let code = files.buildTimeCode(path) {
                    selection.buildTime(path, code, map: map)
                }
                switch kind {
                case .commentsOnly:
                    selection.notes.append("\(path): comments, blank lines or formatting only, no test runs for it")
                case .declarations(let line, let names, let imports):
                    // The suites that executed the members it changes or removes; every suite that
                    // executed the file where a change may run code outside them.
                    let members = old.flatMap { old in new.flatMap { SwiftChange.changedMembers(old: old, new: $0) } }
                    let lines = (members ?? []).map { String($0.lowerBound) }.joined(separator: ", ")
                    for suite in executedBy[path] ?? []
                    where members?.isEmpty != true && map.executed(suite, in: path, within: members) {
                        selection.add(
                            suite,
                            "executed \(path)" + (members == nil ? "" : " (the changed declarations at lines \(lines))")
                        )
                    }
                    // An import another file of the target has too changes nothing beyond this file; nor
                    // does a module imported before and after in another form (an access level,
                    // `@_implementationOnly`), unless re-exported.
                    let both = Self.importedModules(old).intersection(Self.importedModules(new))
                    let reformed = { (line: String) in
                        !line.contains("@_exported")
                            && both.contains(line.split(separator: " ").last.map(String.init) ?? "")
                    }
                    if let lone = imports.first(where: { !files.has($0, elsewhere: path) && !reformed($0) }) {
                        selection.fallback[path] =
                            "\(path) changes an import no other file of its target has (\(lone)), whose effect "
                            + "elsewhere coverage cannot see"
                        break
                    }
                    // What each use resolves to, where the map keeps the compiler's index; names otherwise.
                    var names = names
                    if let index = map.index {
                        switch IndexRule(index: index, map: map).reach(
                            path, old: old, new: new, executedBy: executedBy, files: &files, changed: changed)
                        {
                        case .success(let reach):
                            for (suite, why) in reach.suites.sorted(by: { $0.key < $1.key }) {
                                selection.add(suite, why)
                            }
                            if !reach.byNames.isEmpty {
                                selection.notes.append(
                                    "\(path): by names for \(reach.byNames.joined(separator: ", ")) (a new declaration "
                                        + "with another module's name may capture its uses, which the index does not keep)"
                                )
                            }
                            names = reach.byNames
                        case .failure(let refusal):
                            selection.notes.append("\(path): by names: \(refusal.why)")
                        }
                    } else {
                        selection.byNames(
                            map.unindexed.map { "the impact map kept no index: \($0)" }
                                ?? "the impact map was recorded before it kept the compiler's index")
                    }
                    if names?.isEmpty == true { break }
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
                case .inert(let why):
                    selection.notes.append("\(path): \(why), no test runs for it")
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
                        // compiler or the build runs it (its fallback is set above).
                        if files.buildTimeCode(path) == nil {
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
            if let at = parts.firstIndex(of: SnapshotFile.folderName), at + 1 < parts.count {
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
                if path.hasPrefix("Plugins/") { selection.buildTime(path, "a package plugin", map: map) }
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
        // A package's executable runs in a test only as a child process: what coverage cannot judge
        // of it reaches the suites that ran it.
        for path in selection.fallback.keys.sorted() {
            guard let folder = map.executableTargets?.first(where: { path.hasPrefix($0 + "/") }) else { continue }
            for (suite, files) in map.suites.sorted(by: { $0.key < $1.key })
            where files.contains(where: { $0.hasPrefix(folder + "/") }) {
                selection.add(suite, "it ran the executable of \(folder), and \(path) changed")
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

    /// Code the build runs changed (`code`: a package plugin, a macro implementation): its dependent
    /// test targets run, and a plugin's, the targets built with a build-tool plugin (by folder).
    private mutating func buildTime(_ path: String, _ code: String, map: ImpactMap) {
        fallback[path] = "\(path) is \(code), which runs while building and no suite's coverage shows"
        guard code == "a package plugin" else { return }
        for folder in map.pluginTargets ?? [] {
            fallback[folder + "/"] = "\(folder) is built with a build-tool plugin, and \(path) changed"
        }
    }

    /// Says once why declarations are judged by the names files use.
    private mutating func byNames(_ why: String) {
        let note = "declarations are judged by names: \(why)"
        if !notes.contains(note) { notes.append(note) }
    }

    private mutating func add(_ suite: String, _ reason: String) {
        reached += 1
        if suites[suite] == nil { suites[suite] = reason }
    }

    /// How many times a suite was reached, a fallback set or a note on `path` given: what one
    /// changed file answered is the difference.
    private var reached = 0
    private func answers(_ path: String) -> [Int] {
        [
            reached, fallback.count, fallbackTargets.count, notes.filter { $0.hasPrefix(path + ":") }.count,
            everything == nil ? 0 : 1,
        ]
    }
}
