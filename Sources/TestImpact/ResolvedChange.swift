import Foundation

/// What a change of `Package.resolved` moved: the dependencies whose pins differ (added, removed,
/// or at another version, revision or branch), by identity, and of those, the ones whose code runs
/// while building (their manifest declares a macro or a plugin, or their checkout is not there to
/// tell), which no suite's coverage shows.
public struct ResolvedChange: Sendable, Equatable {
    public var moved: [String]
    public var buildTime: [String]

    public init(moved: [String], buildTime: [String] = []) {
        self.moved = moved
        self.buildTime = buildTime
    }

    /// The pins that moved from `old` to `new` (either may be absent); nil when either cannot be
    /// read as a `Package.resolved` (versions 1 to 3). `checkouts` is the package's
    /// `.build/checkouts` folder, where each dependency's manifest says what it declares.
    public static func read(old: String?, new: String?, checkouts: URL) -> ResolvedChange? {
        guard let before = pins(old), let after = pins(new) else { return nil }
        let moved = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: checkouts.path)) ?? []
        let buildTime = moved.filter { identity in
            guard let folder = folders.first(where: { $0.lowercased() == identity }) else { return true }
            let manifest =
                (try? String(contentsOf: checkouts.appendingPathComponent("\(folder)/Package.swift"), encoding: .utf8))
                ?? ""
            return manifest.isEmpty || manifest.contains(".macro(") || manifest.contains(".plugin(")
        }
        return ResolvedChange(moved: moved, buildTime: buildTime)
    }

    /// Identity (lowercased) → its pin's state, as JSON text; nil when `text` is not a resolved file.
    static func pins(_ text: String?) -> [String: String]? {
        guard let text else { return [:] }
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        let list = (json["pins"] ?? (json["object"] as? [String: Any])?["pins"]) as? [[String: Any]]
        guard let list else { return nil }
        var pins: [String: String] = [:]
        for pin in list {
            // Version 1 names a pin by its package's name: its URL's last part is its identity.
            let location = (pin["location"] ?? pin["repositoryURL"]) as? String
            let identity =
                pin["identity"] as? String
                ?? location.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension }
                ?? pin["package"] as? String ?? ""
            let state =
                (try? JSONSerialization.data(withJSONObject: pin["state"] ?? [:], options: [.sortedKeys])) ?? Data()
            pins[identity.lowercased()] = String(decoding: state, as: UTF8.self)
        }
        return pins
    }
}
