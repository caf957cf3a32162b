import Foundation
import ReadTracing

/// What each suite read, as the impact map keeps it (`ImpactMap.reads`): paths relative to the
/// package, `../…` for files of the repository outside it, and a trailing `/` for a folder the
/// suite listed (everything under it counts as read). A read of a resource bundle under `.build`
/// counts as a read of the resource in the package it was copied from; other build products, the
/// `.git` folder and files outside the repository are left out.
public struct TracedReads: Sendable, Equatable {
    public var reads: [String: [String]] = [:]
    /// Suite → why its reads are unknown.
    public var unknown: [String: String] = [:]

    public init() {}

    /// `traces` by suite, for the recorded `suites`; `package` and `repository` are real paths;
    /// `graph` places resource bundles (nil: a bundle read counts as nothing, which only a failed
    /// `describe` leaves).
    public static func relate(
        _ traces: [String: SuiteReads], suites: [String], package: String, repository: String, graph: PackageGraph?
    ) -> TracedReads {
        let places = Places(package: package, repository: repository, graph: graph)
        var result = TracedReads()
        for suite in suites {
            switch traces[suite] {
            case nil:
                result.unknown[suite] = "no read trace was written for it (its process did not load the tracer)"
            case .unknown(let why):
                result.unknown[suite] = why
            case .read(let paths):
                var read: Set<String> = []
                for path in paths {
                    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                    for each in Set([path, real]) { read.formUnion(places.relative(each)) }
                }
                result.reads[suite] = read.sorted()
            }
        }
        return result
    }

    /// Whether `read` (a recorded read) covers `path` (relative to the package, like it).
    public static func covers(_ read: String, _ path: String) -> Bool {
        if read == path { return true }
        guard read.hasSuffix("/") else { return false }
        return read == "./" ? !path.hasPrefix("../") : path.hasPrefix(read)
    }

    private struct Places {
        let package: String
        let repository: String
        let graph: PackageGraph?
        /// `../` once per folder from the repository's root down to the package.
        let up: String

        init(package: String, repository: String, graph: PackageGraph?) {
            (self.package, self.repository, self.graph) = (package, repository, graph)
            let inside = package.hasPrefix(repository + "/") ? String(package.dropFirst(repository.count + 1)) : ""
            up = String(repeating: "../", count: inside.split(separator: "/").count)
        }

        /// The recorded forms of an absolute path read: none, one, or a bundle's resources.
        func relative(_ path: String) -> [String] {
            let folder = isFolder(path)
            guard let relative = plain(path) else { return [] }
            let parts = relative.split(separator: "/")
            if parts.first == ".git" || parts.contains(".git") { return [] }
            if parts.first == ".build" { return bundled(Array(parts.dropFirst())) }
            if relative.isEmpty { return ["./"] }
            return [relative + (folder ? "/" : "")]
        }

        /// Relative to the package (`../…` in the repository outside it); nil outside the repository.
        private func plain(_ path: String) -> String? {
            if path == package { return "" }
            if path.hasPrefix(package + "/") { return String(path.dropFirst(package.count + 1)) }
            if path == repository { return up.isEmpty ? "" : String(up.dropLast()) }
            if path.hasPrefix(repository + "/") { return up + path.dropFirst(repository.count + 1) }
            return nil
        }

        private func isFolder(_ path: String) -> Bool {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
        }

        /// A read under `.build` (the parts after it): in a resource bundle `<package>_<target>.resources`
        /// (or `.bundle`), the target's resources it came from; anything else is a build product.
        private func bundled(_ parts: [Substring]) -> [String] {
            guard let graph, let name = graph.name,
                let at = parts.firstIndex(where: { $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") })
            else { return [] }
            let bundle = (String(parts[at]) as NSString).deletingPathExtension
            guard let target = graph.targets.first(where: { "\(name)_\($0.name)" == bundle }) else { return [] }
            let resources = (target.resources ?? []).compactMap { resource -> (String, Bool)? in
                guard let path = plain(URL(fileURLWithPath: resource.path).standardizedFileURL.path) else { return nil }
                return (path, resource.copies)
            }
            // macOS's bundles keep their files in Contents/Resources.
            var rest = parts[(at + 1)...]
            if parts[at].hasSuffix(".bundle"), rest.starts(with: ["Contents", "Resources"]) {
                rest = rest.dropFirst(2)
            }
            let inside = rest.joined(separator: "/")
            var found: [String] = []
            for (path, copies) in resources where !inside.isEmpty {
                let name = (path as NSString).lastPathComponent
                if copies, inside == name || inside.hasPrefix(name + "/") {
                    found.append(path + inside.dropFirst(name.count))
                } else if !copies, (inside as NSString).lastPathComponent == name || isFolder(package + "/" + path) {
                    // Processed resources are placed by name: every file of that name under the resource.
                    found.append(isFolder(package + "/" + path) ? path + "/" : path)
                }
            }
            // The bundle itself, or a file not told apart: every resource of the target.
            if found.isEmpty {
                found = resources.map { path, _ in isFolder(package + "/" + path) ? path + "/" : path }
            }
            return found
        }
    }
}
