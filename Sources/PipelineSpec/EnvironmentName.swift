import Foundation

/// The name of a set of references rendered in one place (`references: environment:`,
/// `--environment`, `PIPELINE_ENVIRONMENT`): a folder of its own in each store,
/// `<store>/<environment>/<Test>/<file>`. A name is one path segment: 1 to 100 bytes of printable
/// ASCII, no `/`, not `.` or `..`, not starting with `.` (the stores' bookkeeping) or `pipeline-`.
public enum EnvironmentName {
    /// The render environment's fields a template may name: `{os}` (`linux`, `macos`), `{os-version}`
    /// (`debian-12`, `15.1`), `{arch}`, `{swift}`, `{snapshot-testing}` and `{ci}` (`github-actions`,
    /// `local` off CI); for Apple platforms `{device}` (`iphone-16`) and `{device-os}` (`18.2`), the
    /// simulator xcodebuild's destination names (`PIPELINE_XCODE_DESTINATION`), and `{xcode}` (`16.2`).
    public static let fields = [
        "os", "os-version", "arch", "swift", "snapshot-testing", "ci", "device", "device-os", "xcode",
    ]

    /// Why `name` cannot name an environment, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 100 { return "is \(name.utf8.count) bytes long; an environment name has at most 100" }
        if name.contains("/") { return "'\(name)' holds '/'; an environment name is one folder" }
        if name == "." || name == ".." || name.hasPrefix(".") {
            return "'\(name)' starts with '.', which the stores keep for their own bookkeeping"
        }
        if name.hasPrefix("pipeline-") { return "'\(name)' starts with 'pipeline-', which the tool keeps for itself" }
        if let bad = name.unicodeScalars.first(where: { !$0.isASCII || $0.value < 0x21 || $0.value == 0x7F }) {
            return
                "'\(name.debugDescription.dropFirst().dropLast())' holds \(bad.value < 0x80 ? "a control character or a space" : "a character that is not ASCII") (U+\(String(format: "%04X", bad.value)))"
        }
        return nil
    }

    /// Why `template` cannot make a name (an unknown `{field}`, an unclosed brace, a literal part
    /// no name may hold), or nil.
    public static func templateProblem(_ template: String) -> String? {
        var literal = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                return "'\(template)' opens a '{' it does not close"
            }
            let field = String(rest[rest.index(after: open)..<close])
            guard fields.contains(field) else {
                return
                    "'\(template)' names {\(field)}, which is not a field; use \(fields.map { "{\($0)}" }.joined(separator: ", "))"
            }
            literal += "x"
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if literal.contains("}") { return "'\(template)' closes a '}' it did not open" }
        return problem(literal).map { "as a name, \($0)" }
    }

    /// `template` with each `{field}` replaced by `values[field]`, made fit for a name: lowercase,
    /// runs of other characters than letters, digits, `.`, `_` and `-` made one `-`.
    public static func expand(_ template: String, values: [String: String]) -> String {
        var result = template
        for field in fields {
            result = result.replacingOccurrences(of: "{\(field)}", with: clean(values[field] ?? "unknown"))
        }
        return result
    }

    static func clean(_ value: String) -> String {
        var cleaned = ""
        for character in value.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber || "._-".contains(character) {
                cleaned.append(character)
            } else if !cleaned.hasSuffix("-") {
                cleaned.append("-")
            }
        }
        let trimmed = cleaned.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "unknown" : trimmed
    }
}
