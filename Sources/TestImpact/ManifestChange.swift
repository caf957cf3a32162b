import ChildProcesses
import Foundation

/// What a change of `Package.swift` changes, by SwiftPM's own reading of it before and after
/// (`swift package dump-package`), not by its text: the same package (formatting, comments, code
/// that computes the same thing) runs nothing; one target's settings, resources, exclusions or
/// dependencies run that target's graph; anything else (the package's dependencies, tools version,
/// platforms, name, language standards) runs everything.
public enum ManifestChange: Sendable, Equatable {
    case nothing
    /// Target name → what changed in it.
    case targets([String: String])
    case everything(String)
    /// A manifest this toolchain does not read (`Package@swift-5.8.swift` beside the one it reads).
    case unread(String)

    /// Reads both manifests with SwiftPM, one after the other in one temporary folder (so paths
    /// they compute come out alike); a manifest SwiftPM cannot read runs everything, saying why.
    /// `arguments`, the build's: with traits of its own (`--traits`, `--enable-all-traits`,
    /// `--disable-default-traits`) a change of the traits' declarations is not judged by the
    /// default ones; the traits they enable decide which trait-conditioned settings count.
    public static func read(old: String, new: String, arguments: [String] = []) async -> ManifestChange {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var dumped: [Any] = []
        for (text, when) in [(old, "before"), (new, "now")] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: folder.appendingPathComponent("Package.swift"))
                let result = try await ChildProcess.run(
                    ["swift", "package", "--package-path", folder.path, "dump-package"],
                    variables: ProcessInfo.processInfo.environment, log: folder.appendingPathComponent("dump.log"),
                    errors: folder.appendingPathComponent("dump.errors"), timeout: .seconds(300))
                guard result.termination == .exited(0),
                    let json = try? JSONSerialization.jsonObject(with: Data(result.output.utf8))
                else {
                    let why = (result.errors ?? "").split(separator: "\n").first.map(String.init) ?? "no output"
                    return .everything("SwiftPM cannot read Package.swift as it was \(when) (\(why))")
                }
                dumped.append(json)
            } catch {
                return .everything("SwiftPM could not read Package.swift as it was \(when) (\(error))")
            }
        }
        return compare(old: dumped[0], new: dumped[1], arguments: arguments)
    }

    /// The manifest SwiftPM reads in `package` with the `swift` on PATH: the version-specific one
    /// (`Package@swift-X[.Y[.Z]].swift`) of the highest version not above the toolchain's, else
    /// `Package.swift`.
    public static func manifestRead(in package: URL) async -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []
        guard let version = await Toolchain.swiftVersion.value else { return "Package.swift" }
        let toolchain = (version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 } + [0, 0, 0]).prefix(
            3
        )
        .map { $0 }
        return chosen(among: names, toolchain: toolchain)
    }

    /// Of the files `names`, the manifest a toolchain of version `toolchain` (`[6, 3, 1]`) reads.
    static func chosen(among names: [String], toolchain: [Int]) -> String {
        var best: (version: [Int], name: String)?
        for name in names where name.hasPrefix("Package@swift-") && name.hasSuffix(".swift") {
            let text = name.dropFirst("Package@swift-".count).dropLast(".swift".count)
            let parts = text.split(separator: ".").map { Int($0) }
            guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { continue }
            let version = (parts.map { $0! } + [0, 0, 0]).prefix(3).map { $0 }
            guard version.lexicographicallyPrecedes(toolchain) || version == toolchain else { continue }
            if best.map({ $0.version.lexicographicallyPrecedes(version) }) ?? true { best = (version, name) }
        }
        return best?.name ?? "Package.swift"
    }

    /// The traits a manifest's reading enables by default: its `default` trait's, and theirs in turn.
    static func defaultTraits(_ manifest: [String: Any]) -> Set<String> {
        var enables: [String: [String]] = [:]
        for trait in manifest["traits"] as? [[String: Any]] ?? [] {
            if let name = trait["name"] as? String { enables[name] = trait["enabledTraits"] as? [String] ?? [] }
        }
        var enabled: Set<String> = []
        var queue = enables["default"] ?? []
        while let trait = queue.popLast() {
            guard enabled.insert(trait).inserted else { continue }
            queue += (enables[trait] ?? []).filter { !enabled.contains($0) }
        }
        return enabled
    }

    /// Compares two `dump-package` readings (JSON objects).
    static func compare(old: Any, new: Any, arguments: [String] = []) -> ManifestChange {
        let askedTraits = arguments.contains {
            $0.hasPrefix("--traits") || $0 == "--enable-all-traits" || $0 == "--disable-default-traits"
        }
        guard let old = old as? [String: Any], let new = new as? [String: Any] else {
            return .everything("Package.swift reads as no package")
        }
        // Products name what other packages can use; this package's tests use its targets. Traits
        // change the build only through those enabled: declaring one the build does not enable
        // changes nothing (its conditions in targets' settings are judged with the targets).
        var ignored: Set<String> = ["targets", "products"]
        if !askedTraits, !same(old["traits"], new["traits"]) {
            let (was, now) = (defaultTraits(old), defaultTraits(new))
            guard was == now else {
                let changed = was.symmetricDifference(now).sorted().joined(separator: ", ")
                return .everything("Package.swift changes the traits the build enables by default (\(changed))")
            }
            ignored.insert("traits")
        }
        let keys = Set(old.keys).union(new.keys).subtracting(ignored).sorted()
        if let key = keys.first(where: { !same(old[$0], new[$0]) }) {
            return .everything("Package.swift changes the package's \(key)")
        }
        func byName(_ manifest: [String: Any]) -> [String: Any] {
            var targets: [String: Any] = [:]
            for target in manifest["targets"] as? [[String: Any]] ?? [] {
                if let name = target["name"] as? String { targets[name] = target }
            }
            return targets
        }
        let (before, after) = (byName(old), byName(new))
        // A setting or dependency conditioned on traits the build does not enable is not built.
        let (traitsBefore, traitsNow) = (traits(of: old, arguments: arguments), traits(of: new, arguments: arguments))
        func built(_ target: [String: Any], _ traits: PackageTraits) -> [String: Any] {
            var target = target
            for key in ["settings", "dependencies"] {
                guard let list = target[key] as? [Any] else { continue }
                target[key] = list.filter { element in
                    guard let conditioned = conditionTraits(element), !conditioned.isEmpty else { return true }
                    return conditioned.contains { traits.value(of: $0) != false }
                }
            }
            return target
        }
        var changed: [String: String] = [:]
        for name in Set(before.keys).union(after.keys) {
            switch (before[name] as? [String: Any], after[name] as? [String: Any]) {
            case (nil, _): changed[name] = "it is new in Package.swift"
            case (_, nil): continue  // gone: its tests are gone with it
            case (let was?, let now?):
                let (was, now) = (built(was, traitsBefore), built(now, traitsNow))
                let fields = Set(was.keys).union(now.keys).filter { !same(was[$0], now[$0]) }.sorted()
                if !fields.isEmpty { changed[name] = "Package.swift changes its \(fields.joined(separator: ", "))" }
            }
        }
        return changed.isEmpty ? .nothing : .targets(changed)
    }

    /// The traits a `dump-package` reading declares, and those a build with `arguments` enables.
    static func traits(of manifest: [String: Any], arguments: [String]) -> PackageTraits {
        var declarations: [String: [String]] = [:]
        for trait in manifest["traits"] as? [[String: Any]] ?? [] {
            if let name = trait["name"] as? String { declarations[name] = trait["enabledTraits"] as? [String] ?? [] }
        }
        return PackageTraits(declarations: declarations, arguments: arguments)
    }

    /// The traits a setting's or dependency's condition names (`.when(traits: […])`), if it has one.
    static func conditionTraits(_ value: Any) -> [String]? {
        if let dictionary = value as? [String: Any] {
            if let traits = dictionary["traits"] as? [String], dictionary["platformNames"] != nil {
                return traits
            }
            return dictionary.values.lazy.compactMap(conditionTraits).first
        }
        if let array = value as? [Any] { return array.lazy.compactMap(conditionTraits).first }
        return nil
    }

    /// Whether two JSON values are the same, compared as their serializations with sorted keys.
    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        func bytes(_ value: Any?) -> Data? {
            try? JSONSerialization.data(withJSONObject: ["value": value ?? NSNull()], options: [.sortedKeys])
        }
        return bytes(a) == bytes(b)
    }
}
