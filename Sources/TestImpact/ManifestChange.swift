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

    /// Reads both manifests with SwiftPM, one after the other in one temporary folder (so paths
    /// they compute come out alike); a manifest SwiftPM cannot read runs everything, saying why.
    public static func read(old: String, new: String) async -> ManifestChange {
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
                    environment: ProcessInfo.processInfo.environment, log: folder.appendingPathComponent("dump.log"),
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
        return compare(old: dumped[0], new: dumped[1])
    }

    /// Compares two `dump-package` readings (JSON objects).
    static func compare(old: Any, new: Any) -> ManifestChange {
        guard let old = old as? [String: Any], let new = new as? [String: Any] else {
            return .everything("Package.swift reads as no package")
        }
        // Products name what other packages can use; this package's tests use its targets.
        let ignored: Set<String> = ["targets", "products"]
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
        var changed: [String: String] = [:]
        for name in Set(before.keys).union(after.keys) {
            switch (before[name] as? [String: Any], after[name] as? [String: Any]) {
            case (nil, _): changed[name] = "it is new in Package.swift"
            case (_, nil): continue  // gone: its tests are gone with it
            case (let was?, let now?):
                let fields = Set(was.keys).union(now.keys).filter { !same(was[$0], now[$0]) }.sorted()
                if !fields.isEmpty { changed[name] = "Package.swift changes its \(fields.joined(separator: ", "))" }
            }
        }
        return changed.isEmpty ? .nothing : .targets(changed)
    }

    /// Whether two JSON values are the same, compared as their serializations with sorted keys.
    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        func bytes(_ value: Any?) -> Data? {
            try? JSONSerialization.data(withJSONObject: ["value": value ?? NSNull()], options: [.sortedKeys])
        }
        return bytes(a) == bytes(b)
    }
}
