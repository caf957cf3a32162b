import ChildProcesses
import Foundation
import TestCore

/// A package's targets and how they depend on each other, from `swift package describe --type json`:
/// what selective testing follows from changed files to the test targets that can see them.
public struct PackageGraph: Sendable, Decodable {
    public struct Target: Sendable, Decodable {
        public let name: String
        /// The module name, which test names start with.
        public let c99name: String
        /// Relative to the package.
        public let path: String
        public let type: String
        public let targetDependencies: [String]?
        /// The files and folders SwiftPM bundles for it (`Bundle.module`), absolute.
        public let resources: [Resource]?

        public init(
            name: String, c99name: String, path: String, type: String, targetDependencies: [String]? = nil,
            resources: [Resource]? = nil
        ) {
            (self.name, self.c99name, self.path, self.type) = (name, c99name, path, type)
            (self.targetDependencies, self.resources) = (targetDependencies, resources)
        }

        enum CodingKeys: String, CodingKey {
            case name, c99name, path, type, resources
            case targetDependencies = "target_dependencies"
        }
    }

    /// A resource: `copy` keeps a folder's layout in the bundle; the other rules place each file
    /// by its name.
    public struct Resource: Sendable, Decodable {
        public let path: String
        public let copies: Bool

        public init(path: String, copies: Bool) {
            (self.path, self.copies) = (path, copies)
        }

        enum CodingKeys: String, CodingKey { case path, rule }
        private struct Anything: Decodable {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decode(String.self, forKey: .path)
            let rule = try container.decodeIfPresent([String: Anything].self, forKey: .rule) ?? [:]
            copies = rule["copy"] != nil
        }
    }

    /// The package's name (resource bundles are named `<package>_<target>`).
    public let name: String?
    public let targets: [Target]

    public init(name: String? = nil, targets: [Target]) {
        self.name = name
        self.targets = targets
    }

    /// Asks SwiftPM (no build is needed).
    public static func describe(package: URL, scratch: URL) async throws(TestRunError) -> PackageGraph {
        try await swiftPackage(["describe", "--type", "json"], package: package, scratch: scratch)
    }

    /// What the manifest says of its targets beyond the graph, from `swift package dump-package`:
    /// the targets that use build-tool plugins, and each target's exclusions.
    public struct ManifestTargets: Sendable, Equatable {
        /// The names of the targets that use build-tool plugins (`plugins:`).
        public var pluginUsers: [String]
        /// Target name → its `exclude:` entries, relative to its folder.
        public var excluded: [String: [String]]
        /// Each trait the manifest declares → the traits it enables (`default` among them).
        public var traits: [String: [String]] = [:]
        /// The names of the command plugins (`capability: .command`), which no build runs.
        public var commandPlugins: [String] = []
    }

    public static func manifestTargets(package: URL, scratch: URL) async throws(TestRunError) -> ManifestTargets {
        struct Manifest: Decodable {
            struct Target: Decodable {
                let name: String
                let pluginUsages: [Usage]?
                let exclude: [String]?
                let pluginCapability: Capability?
            }
            struct Usage: Decodable {}
            struct Capability: Decodable {
                let command: Usage?
            }
            struct Trait: Decodable {
                let name: String
                let enabledTraits: [String]?
            }
            let targets: [Target]
            let traits: [Trait]?
        }
        let manifest: Manifest = try await swiftPackage(["dump-package"], package: package, scratch: scratch)
        return ManifestTargets(
            pluginUsers: manifest.targets.filter { !($0.pluginUsages ?? []).isEmpty }.map(\.name),
            excluded: Dictionary(
                manifest.targets.compactMap { target in target.exclude.map { (target.name, $0) } },
                uniquingKeysWith: { first, _ in first }),
            traits: Dictionary(
                (manifest.traits ?? []).map { ($0.name, $0.enabledTraits ?? []) },
                uniquingKeysWith: { first, _ in first }),
            commandPlugins: manifest.targets.filter { $0.pluginCapability?.command != nil }.map(\.name))
    }

    /// `swift package <arguments>`'s JSON, decoded; its log in `scratch`.
    private static func swiftPackage<Value: Decodable>(_ arguments: [String], package: URL, scratch: URL)
        async throws(TestRunError) -> Value
    {
        let log = scratch.appendingPathComponent("\(arguments[0]).log")
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(
                ["swift", "package", "--package-path", package.path] + arguments,
                variables: ProcessInfo.processInfo.environment, log: log)
        } catch {
            throw .cannotStart(command: error.command, reason: error.reason)
        }
        // Warnings may come before the JSON in the same log: it starts at the first line that is "{".
        let start = result.output.hasPrefix("{") ? result.output.startIndex : result.output.range(of: "\n{")?.lowerBound
        guard result.termination == .exited(0), let start,
            let value = try? JSONDecoder().decode(Value.self, from: Data(result.output[start...].utf8))
        else {
            throw .listingFailed(
                command: (["swift", "package"] + arguments).joined(separator: " "), output: result.output)
        }
        return value
    }

    /// Which test targets a change can affect, and why.
    public enum Selection: Sendable, Equatable {
        /// Every test: the manifest or a file outside every target changed.
        case everything(reason: String)
        /// These test targets (module name → why), possibly none.
        case targets([String: String])
    }

    /// The test targets that are, or depend directly or transitively on, a target holding one of
    /// `paths` (relative to the package), or one of `targets` (name → what changed in it).
    public func affected(by paths: [String], targets changedTargets: [String: String] = [:]) -> Selection {
        var changed = changedTargets  // target name → what changed: the first changed file in it
        for path in paths.sorted() {
            let file = (path as NSString).lastPathComponent
            if file == "Package.swift" || file == "Package.resolved"
                || (file.hasPrefix("Package@swift-") && file.hasSuffix(".swift"))
            {
                if !path.contains("/") { return .everything(reason: "\(path) changed") }
            }
            guard let target = target(holding: path) else {
                return .everything(reason: "\(path) is outside every target")
            }
            changed[target.name] = changed[target.name] ?? path
        }
        var selected: [String: String] = [:]
        for test in targets where test.type == "test" {
            if let file = changed[test.name] {
                selected[test.c99name] = "it changed (\(file))"
            } else if let (target, chain) = dependencyPath(from: test.name, toAnyOf: Set(changed.keys)) {
                selected[test.c99name] =
                    "it depends on \(chain.joined(separator: " → ")), which changed (\(changed[target]!))"
            }
        }
        return .targets(selected)
    }

    /// Of `paths`, those outside every target whose file name no Swift file names (`named`): no
    /// target builds them and no test can open them by name, so they run nothing. Returns the
    /// other paths, to be judged by the graph, and a line for each left out.
    public func unread(_ paths: [String], named: (String) -> Bool) -> (judged: [String], reasons: [String]) {
        var reasons: [String] = []
        let judged = paths.filter { path in
            let name = (path as NSString).lastPathComponent
            guard target(holding: path) == nil, !named(name) else { return true }
            reasons.append(
                "affected: \(path) is outside every target and no Swift file of the package names \(name): "
                    + "no test builds or opens it, so none runs for it")
            return false
        }
        return (judged, reasons)
    }

    /// The target whose folder holds `path` (the innermost); nil outside every target.
    public func target(holding path: String) -> Target? {
        targets.filter { path.hasPrefix($0.path + "/") }.max { $0.path.count < $1.path.count }
    }

    /// The shortest chain of dependencies from `start` to a target in `goals`.
    private func dependencyPath(from start: String, toAnyOf goals: Set<String>) -> (String, [String])? {
        let byName = Dictionary(targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var queue: [(String, [String])] = [(start, [])]
        var seen: Set<String> = [start]
        while !queue.isEmpty {
            let (name, chain) = queue.removeFirst()
            for dependency in byName[name]?.targetDependencies ?? [] where !seen.contains(dependency) {
                seen.insert(dependency)
                let next = chain + [dependency]
                if goals.contains(dependency) { return (dependency, next) }
                queue.append((dependency, next))
            }
        }
        return nil
    }

    /// Test filters running only `modules`' tests.
    public static func filters(for modules: [String]) -> [String] {
        modules.sorted().map { "^" + NSRegularExpression.escapedPattern(for: $0) + "\\." }
    }
}

/// What selective testing picks for a change: every test (`filters` nil), or the test targets
/// that can see a changed file through the package's target graph (none: nothing to run), with
/// one line per decision saying why.
public struct AffectedTests: Sendable {
    public let filters: [String]?
    public let reasons: [String]

    /// Whether a Swift file of the package (its text, `sources`; by default read now) names a
    /// file name: the `named` of `select` that `--impacted`'s fallback and a verified change use.
    public static func namedInSources(_ sources: [String]) -> @Sendable (String) -> Bool {
        { name in sources.contains { $0.contains(name) } }
    }

    /// `namedInSources` of the package's Swift files now.
    public static func namedInSources(of package: URL) -> @Sendable (String) -> Bool {
        namedInSources(Array(ImpactedTests.swiftSources(of: package).values))
    }

    /// `changedPaths` are relative to `repository` (the work tree); the package may be in a subfolder.
    /// With `named` (a file name → whether a Swift file of the package names it), a file outside
    /// every target that no Swift file names runs nothing: no target builds it, and no test can open
    /// it by its name; without, such a file runs every test.
    public static func select(
        package: URL, repository: String, changedPaths: [String], changedTargets: [String: String] = [:],
        named: ((String) -> Bool)? = nil
    ) async throws(TestRunError) -> AffectedTests {
        let prefix = String(package.standardizedFileURL.path.dropFirst(repository.count))
            .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let inPackage = changedPaths.compactMap { path -> String? in
            if prefix.isEmpty { return path }
            return path.hasPrefix(prefix + "/") ? String(path.dropFirst(prefix.count + 1)) : nil
        }
        guard !inPackage.isEmpty || !changedTargets.isEmpty else {
            return AffectedTests(
                filters: [], reasons: ["affected: nothing in \(prefix.isEmpty ? "the package" : prefix) changed"])
        }
        // SwiftPM's log goes to a temporary folder: a dry run writes nothing in the package.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-describe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let graph = try await PackageGraph.describe(package: package, scratch: scratch)
        let (judged, unread) = named.map { graph.unread(inPackage, named: $0) } ?? (inPackage, [])
        switch graph.affected(by: judged, targets: changedTargets) {
        case .everything(let reason):
            return AffectedTests(filters: nil, reasons: unread + ["affected: every test target, since \(reason)"])
        case .targets(let targets):
            let reasons =
                unread
                + (targets.isEmpty
                    ? ["affected: no test target depends on what changed"]
                    : targets.sorted { $0.key < $1.key }.map { "affected: \($0.key), because \($0.value)" })
            return AffectedTests(filters: PackageGraph.filters(for: Array(targets.keys)), reasons: reasons)
        }
    }
}
