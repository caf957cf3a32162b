import Foundation

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
