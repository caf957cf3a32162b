import ChildProcesses
import Foundation
import GitChanges
import TestCore

/// `--impacted`: the tests a change can reach, by the impact map kept beside the timings, with one
/// line per decision. The change runs from the map's commit (or `base`) to the working tree,
/// commits and uncommitted edits alike. Where the map cannot judge (none, another package or
/// configuration, a commit this clone lacks, a corrupt file), every test runs and a line says why.
public struct ImpactedTests: Sendable {
    /// The tests to run; nil for every test.
    public var tests: [TestID]?
    public var reasons: [String]

    /// Selects among `discovered` by the impact map `stored` (its bytes, and where they were
    /// read), nil when none was recorded beside the timings at `place`. `buildArguments` are the
    /// build's own (`-Xswiftc -DFLAG` makes FLAG unknown to `#if`). The repository's paths in
    /// `verified` are left out of the change: they hold what a verified run had there.
    public static func select(
        package: URL, configuration: String, buildArguments: [String] = [], base: String?,
        verified: Set<String> = [], stored: (data: Data, name: String)?, place: String, discovered: [TestID],
        estimates: [TestID: Double]
    ) async throws -> ImpactedTests {
        let started = ContinuousClock.now
        var map: ImpactMap
        do {
            guard let stored else {
                return everything("no impact map beside \(place) yet (record one with --record-impact)")
            }
            map = try ImpactMap.decode(stored.data, name: stored.name)
        } catch {
            return everything("\(error)")
        }
        let history = try CommitHistory(repositoryPath: package.path)
        let root = URL(fileURLWithPath: history.workTree).resolvingSymlinksInPath().path
        let packagePath = package.resolvingSymlinksInPath().path
        let relative = packagePath == root ? "." : String(packagePath.dropFirst(root.count + 1))
        if let unfit = map.unfit(
            package: relative, configuration: configuration, toolchain: await Toolchain.swiftVersion.value,
            arguments: buildArguments)
        {
            return everything(unfit)
        }
        let from = base.map { (try? history.sha($0)) ?? $0 } ?? map.commit
        guard try history.isAncestor(from, of: "HEAD") != nil else {
            return everything(
                "this clone lacks the impact map's commit \(from.prefix(12)) (a shallow clone? fetch enough history "
                    + "to reach it, e.g. git fetch --deepen=50)")
        }
        // The benchmarks compare the rules on the same map: PIPELINE_IMPACT_RULE=names sets the index aside.
        if ProcessInfo.processInfo.environment["PIPELINE_IMPACT_RULE"] == "names", map.index != nil {
            map.index = nil
            map.unindexed = "PIPELINE_IMPACT_RULE=names"
        }
        // The functions' lines are those of the map's commit: from another base, files read now may
        // differ from what was recorded without being among the changes, so files count whole.
        if from != map.commit { map.functions = nil }
        let outside = Set((map.reads ?? [:]).values.joined().filter { $0.hasPrefix("../") })
        let changes = try Self.changes(
            from: from, history: history, root: root, package: relative, outside: outside, verified: verified)
        var current: [String: [String]] = [:]
        for test in discovered { current[test.suite, default: []].append(test.name) }
        let sources = Self.swiftSources(of: package)
        var manifests: [String: ManifestChange] = [:]
        // Of a package with version-specific manifests, the toolchain reads one: the others change nothing.
        let manifestChanges = changes.filter {
            !$0.path.contains("/") && ($0.path == "Package.swift" || $0.path.hasPrefix("Package@swift-"))
        }
        let variants =
            ((try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []).contains {
                $0.hasPrefix("Package@swift-")
            } || manifestChanges.contains { $0.path.hasPrefix("Package@swift-") }
        let read =
            variants && !manifestChanges.isEmpty ? await ManifestChange.manifestRead(in: package) : "Package.swift"
        for change in manifestChanges where change.path != read {
            manifests[change.path] = .unread("this toolchain reads \(read), not \(change.path)")
        }
        for change in changes where change.path == read {
            guard let old = change.old, let new = change.new,
                SwiftChange.kind(old: old, new: new) != .commentsOnly
            else { continue }
            manifests[change.path] = await ManifestChange.read(old: old, new: new, arguments: buildArguments)
        }
        let resolved = changes.first { $0.path == "Package.resolved" }.flatMap {
            ResolvedChange.read(old: $0.old, new: $0.new, checkouts: package.appendingPathComponent(".build/checkouts"))
        }
        var conditions = CompilationConditions.here(
            configuration: configuration, manifest: sources["Package.swift"] ?? "", arguments: buildArguments)
        // The toolchain's modules and version are read from disk and `swift --version`: only when a
        // changed file has a condition that needs them.
        let versioned = #/#(else)?if\b.*\b(canImport|compiler|swift)\(/#
        if changes.contains(where: { [$0.old, $0.new].contains { $0?.contains(versioned) == true } }) {
            conditions.modules = ImportableModules.find(
                package: package, swift: Toolchain(variables: ProcessInfo.processInfo.environment).swift)
            conditions.compiler = await Toolchain.swiftVersion.value.map {
                $0.split(separator: ".").compactMap { Int($0) }
            }
        }
        var traitNotes: [String] = []
        if map.traits != nil || PackageTraits.mayDeclare(sources["Package.swift"] ?? "") {
            switch await Self.traits(of: package, arguments: buildArguments) {
            case .success(let traits):
                if let recorded = map.traits, recorded != traits.enabledList {
                    return everything(
                        "the impact map was recorded with the traits [\(recorded.joined(separator: ", "))], this build "
                            + "enables [\(traits.enabledList.joined(separator: ", "))]")
                }
                conditions.traits = traits
            case .failure(let error):
                traitNotes.append(
                    "the package's traits could not be read (\(error)): code under #if of a trait is judged as compiled"
                )
            }
        }
        let selection = ImpactSelection.select(
            map: map, changes: changes, current: current, sources: sources, manifests: manifests, resolved: resolved,
            conditions: conditions)
        var reasons = traitNotes + selection.notes
        if let everything = selection.everything { return Self.everything(everything, notes: reasons) }
        var selected = Set(selection.suites.keys)
        for (suite, why) in selection.suites.sorted(by: { $0.key < $1.key }) {
            reasons.append("impacted: \(suite), \(why)")
        }
        var tests = discovered.filter { selected.contains($0.suite) }
        if !selection.fallback.isEmpty || !selection.fallbackTargets.isEmpty {
            for (_, why) in selection.fallback.sorted(by: { $0.key < $1.key }) { reasons.append("fallback: \(why)") }
            for (target, why) in selection.fallbackTargets.sorted(by: { $0.key < $1.key }) {
                reasons.append("fallback: the target \(target): \(why)")
            }
            let prefix = relative == "." ? "" : relative + "/"
            let affected = try await AffectedTests.select(
                package: package, repository: root, changedPaths: selection.fallback.keys.map { prefix + $0 },
                changedTargets: selection.fallbackTargets, named: AffectedTests.namedInSources(Array(sources.values)))
            reasons += affected.reasons
            guard let filters = affected.filters else {
                return everything("a fallback runs every test", notes: reasons)
            }
            let patterns = try filters.map { try Regex($0) }
            let reached = discovered.filter { test in patterns.contains { test.name.contains($0) } }
            tests += reached
            selected.formUnion(reached.map(\.suite))
        }
        tests = Array(Set(tests)).sorted()
        let left = Set(discovered.map(\.suite)).subtracting(selected)
        let leftSeconds = discovered.filter { left.contains($0.suite) }.reduce(0) { $0 + (estimates[$1] ?? 0) }
        reasons.append(
            "impacted: \(selected.count) suite(s) run, \(left.count) left out (expected \(String(format: "%.1f", leftSeconds)) s), "
                + "against the impact map of \(map.commit.prefix(12)) recorded \(map.recordedAt); "
                + "selected in \(String(format: "%.2f", Self.seconds(ContinuousClock.now - started))) s")
        return ImpactedTests(tests: tests, reasons: reasons)
    }

    /// The traits the build of `package` with `arguments` enables, as SwiftPM reads the manifest.
    static func traits(of package: URL, arguments: [String]) async -> Result<PackageTraits, TestRunError> {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-traits-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let manifest = try await PackageGraph.manifestTargets(package: package, scratch: scratch)
            return .success(PackageTraits(declarations: manifest.traits, arguments: arguments))
        } catch {
            return .failure(error)
        }
    }

    /// The package's Swift files now, by path relative to it (`.build` and hidden folders left out).
    static func swiftSources(of package: URL) -> [String: String] {
        var sources: [String: String] = [:]
        let root = package.resolvingSymlinksInPath().path + "/"
        let walker = FileManager.default.enumerator(
            at: package.resolvingSymlinksInPath(), includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == ".build" {
                walker?.skipDescendants()
                continue
            }
            guard url.pathExtension == "swift", let data = FileManager.default.contents(atPath: url.path) else {
                continue
            }
            let path = url.resolvingSymlinksInPath().path
            if path.hasPrefix(root) {
                sources[String(path.dropFirst(root.count))] = String(decoding: data, as: UTF8.self)
            }
        }
        return sources
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func everything(_ why: String, notes: [String] = []) -> ImpactedTests {
        ImpactedTests(tests: nil, reasons: notes + ["impacted: every test runs, since \(why)"])
    }

    /// The package's changed files from `from` to the working tree, with their text then and now;
    /// and the repository's outside the package that the map's `outside` reads cover (`../…`);
    /// the repository's paths in `verified` left out.
    static func changes(
        from: String, history: CommitHistory, root: String, package: String, outside: Set<String> = [],
        verified: Set<String> = []
    ) throws -> [ImpactChange] {
        let committed = try ChangeDetector(repositoryPath: root).changes(.range(base: from, head: "HEAD")).files
        var paths: Set<String> = []
        for file in committed + (try history.uncommittedChanges()) { paths.formUnion(file.touchedPaths) }
        let prefix = package == "." ? "" : package + "/"
        var changes: [ImpactChange] = []
        let up = String(repeating: "../", count: prefix.split(separator: "/").count)
        for path in paths.sorted() where !verified.contains(path) {
            let relative: String
            if path.hasPrefix(prefix) {
                relative = String(path.dropFirst(prefix.count))
            } else if outside.contains(where: { TracedReads.covers($0, up + path) }) {
                relative = up + path
            } else {
                continue
            }
            let old = try history.contents(of: path, at: from).map { Data($0) }
            let new = FileManager.default.contents(atPath: root + "/" + path)
            if old == new { continue }
            changes.append(
                ImpactChange(
                    path: relative, old: old.map { String(decoding: $0, as: UTF8.self) },
                    new: new.map { String(decoding: $0, as: UTF8.self) }))
        }
        return changes
    }
}
