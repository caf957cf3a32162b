import Foundation

/// What a changed path is to the selection: the modules it imports, whether the build reads it,
/// whether it is documentation, or code only command plugins run.
extension ImpactSelection {
    /// The modules `text`'s imports name (`internal import RealModule` → `RealModule`), none re-exported.
    static func importedModules(_ text: String?) -> Set<String> {
        guard let text else { return [] }
        return Set(
            SwiftSource(text).imports.filter { !$0.contains("@_exported") }.compactMap {
                $0.split(separator: " ").last.map(String.init)
            })
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

    /// Why `path` is code only command plugins run (`swift package <verb>`), when it is: a file of a
    /// command plugin's folder, or of `Plugins/` outside every plugin's folder when every plugin of
    /// the package is one. Nil for older maps, which do not know the plugins' capabilities.
    static func commandPluginOnly(_ path: String, map: ImpactMap) -> String? {
        guard let plugins = map.plugins, !plugins.isEmpty else { return nil }
        if let (folder, capability) = plugins.first(where: { path.hasPrefix($0.key + "/") }) {
            return capability == "command" ? "part of the command plugin \(folder), which no build or test runs" : nil
        }
        if path.hasPrefix("Plugins/"), plugins.values.allSatisfy({ $0 == "command" }) {
            return "shared by the package's plugins, all of them command plugins, which no build or test runs"
        }
        return nil
    }
}
