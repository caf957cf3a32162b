import Foundation

/// The package traits a build enables, as SwiftPM decides them: the manifest's traits as SwiftPM
/// reads it (`swift package dump-package`, so a manifest that computes its traits or its default
/// from variables is read as it evaluates), and the build's flags (`--traits A,B`, which replaces
/// the default unless it names `default`; `--enable-all-traits`; `--disable-default-traits`). A
/// trait enables the traits it lists in turn. Code under `#if` of a declared trait the build does
/// not enable is not compiled (`CompilationConditions`).
public struct PackageTraits: Sendable, Equatable {
    /// Every trait the manifest declares (without `default`).
    public var declared: Set<String>
    /// The declared traits the build enables.
    public var enabled: Set<String>

    /// `declarations`: each trait the manifest declares → the traits it enables (`default` among
    /// them when the manifest has a default); `arguments`: the build's arguments.
    public init(declarations: [String: [String]], arguments: [String]) {
        declared = Set(declarations.keys).subtracting(["default"])
        var asked: [String]?
        var all = false
        var noDefault = false
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--enable-all-traits" { all = true }
            if argument == "--disable-default-traits" { noDefault = true }
            var list: String?
            if argument == "--traits", index + 1 < arguments.endIndex {
                list = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--traits=") {
                list = String(argument.dropFirst("--traits=".count))
            }
            if let list { asked = (asked ?? []) + list.split(separator: ",").map { String($0) } }
            index += 1
        }
        guard !all else {
            enabled = declared
            return
        }
        var queue = asked ?? (noDefault ? [] : ["default"])
        var reached: Set<String> = []
        while let trait = queue.popLast() {
            guard reached.insert(trait).inserted else { continue }
            queue += declarations[trait] ?? []
        }
        enabled = reached.intersection(declared)
    }

    /// Whether the `#if` atom `name` is a trait, and then whether this build enables it.
    func value(of name: String) -> Bool? {
        declared.contains(name) ? enabled.contains(name) : nil
    }

    /// Whether the manifest's text may declare traits, so reading them is worth asking SwiftPM.
    public static func mayDeclare(_ manifest: String) -> Bool {
        manifest.contains("traits:") || manifest.contains("Trait(") || manifest.contains(".trait(")
    }

    /// The build's traits, as the map keeps them: sorted.
    public var enabledList: [String] { enabled.sorted() }
}
