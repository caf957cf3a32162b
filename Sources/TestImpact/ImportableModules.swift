import Foundation

/// The modules `canImport` finds for a build of a package here, read from disk: the toolchain's
/// (its Swift modules, and the clang modules its module maps declare) can be imported; a name the
/// package or its checkouts could build (any name in a manifest, a target folder's name) may be;
/// on a platform whose modules all come from the toolchain (Linux), anything else cannot.
public struct ImportableModules: Sendable, Equatable {
    /// Modules the toolchain has.
    public var toolchain: Set<String>
    /// Names the package and its dependencies could build a module of.
    public var package: Set<String>

    public init(toolchain: Set<String>, package: Set<String>) {
        (self.toolchain, self.package) = (toolchain, package)
    }

    /// True when `module` can be imported, false when it surely cannot (`decidesAbsence`: the
    /// platform has no SDK beyond the toolchain), nil when it cannot be told.
    public func canImport(_ module: String, decidesAbsence: Bool) -> Bool? {
        if toolchain.contains(module) { return true }
        if package.contains(module) || !decidesAbsence { return nil }
        return false
    }

    /// The modules of the toolchain whose `swift` is `swift` (`usr/bin/swift` → `usr/lib/swift`),
    /// and the names `package`'s manifests and target folders (its checkouts' too) could build;
    /// nil when the toolchain's library is not found.
    public static func find(package: URL, swift: URL?) -> ImportableModules? {
        guard let swift else { return nil }
        let library = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib/swift")
        let manager = FileManager.default
        #if os(Linux)
            let platform = library.appendingPathComponent("linux")
        #else
            let platform = library.appendingPathComponent("macosx")
        #endif
        guard let listed = try? manager.contentsOfDirectory(atPath: platform.path) else { return nil }
        var toolchain = Set(listed.filter { $0.hasSuffix(".swiftmodule") }.map { String($0.dropLast(12)) })
        let declared = #/(?m)^\s*(?:explicit\s+)?(?:framework\s+)?module\s+([A-Za-z_][A-Za-z0-9_]*)/#
        let walker = manager.enumerator(at: library, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if (walker?.level ?? 0) > 3 { walker?.skipDescendants() }
            guard url.pathExtension == "modulemap", let text = try? String(contentsOf: url, encoding: .utf8) else {
                continue
            }
            for match in text.matches(of: declared) { toolchain.insert(String(match.output.1)) }
        }
        return ImportableModules(toolchain: toolchain, package: names(in: package))
    }

    /// Every identifier-like string in the manifests of `package` and its checkouts, and every
    /// folder name under their `Sources`, `Tests` and the build's artifacts, with `-` as `_`.
    static func names(in package: URL) -> Set<String> {
        let manager = FileManager.default
        var roots = [package]
        let checkouts = package.appendingPathComponent(".build/checkouts")
        for name in (try? manager.contentsOfDirectory(atPath: checkouts.path)) ?? [] {
            roots.append(checkouts.appendingPathComponent(name))
        }
        var names: Set<String> = []
        func add(_ name: String) { names.insert(name.replacingOccurrences(of: "-", with: "_")) }
        for root in roots {
            for manifest in (try? manager.contentsOfDirectory(atPath: root.path)) ?? []
            where manifest.hasPrefix("Package") && manifest.hasSuffix(".swift") {
                let text = (try? String(contentsOf: root.appendingPathComponent(manifest), encoding: .utf8)) ?? ""
                for match in text.matches(of: #/"([A-Za-z_][A-Za-z0-9_\-]*)"/#) { add(String(match.output.1)) }
            }
            for folder in ["Sources", "Tests"] {
                for name in (try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [] {
                    add(name)
                }
            }
        }
        let artifacts = package.appendingPathComponent(".build/artifacts")
        let walker = manager.enumerator(atPath: artifacts.path)
        while let path = walker?.nextObject() as? String {
            if (walker?.level ?? 0) > 4 { walker?.skipDescendants() }
            add(((path as NSString).lastPathComponent as NSString).deletingPathExtension)
        }
        return names
    }
}
