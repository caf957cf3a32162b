import Foundation

/// What the compiler decides of `#if` conditions on the platform and configuration the selection
/// runs for, where that can be told without a compiler: `os()`, `arch()`, `targetEnvironment()`,
/// `_runtime()`, `canImport()` (the toolchain's modules can be imported; on Linux a module neither
/// the toolchain nor any manifest or target folder of the package and its checkouts names cannot,
/// nor can the modules only Apple's platforms have), `compiler()` and `swift()` against the
/// toolchain's version, `DEBUG` (set in debug builds), `SWIFT_PACKAGE` (set by SwiftPM), and custom
/// flags: unset unless the manifest or the build's arguments name them (a `.define`, an `-D`), when
/// they are unknown. Anything else (`hasFeature(…)`, a module the package may build) is unknown,
/// and a branch behind an unknown condition is kept. `active` blanks the branches this platform never
/// compiles, so a change only there changes nothing here.
public struct CompilationConditions: Sendable, Equatable {
    public var os: String
    public var arch: String
    public var debug: Bool
    public var configuration: String { debug ? "debug" : "release" }
    /// Flags the manifest or the build's arguments may set: unknown.
    public var namedFlags: Set<String>
    /// The package's traits and those the build enables: a declared trait is a known condition.
    public var traits: PackageTraits?
    /// The modules a build here can import (`ImportableModules`); nil when not known.
    public var modules: ImportableModules?
    /// The compiler's version (`[6, 3, 1]`); nil when not known.
    public var compiler: [Int]?

    /// The build these conditions are of, as a reason says it: `Linux (debug)`, with the traits
    /// it enables when the package declares any.
    public var build: String {
        "\(os) (\(configuration)"
            + (traits.map { ", traits: " + ($0.enabled.isEmpty ? "none" : $0.enabledList.joined(separator: ", ")) }
                ?? "")
            + ")"
    }

    public init(os: String, arch: String, debug: Bool, namedFlags: Set<String> = []) {
        (self.os, self.arch, self.debug, self.namedFlags) = (os, arch, debug, namedFlags)
    }

    /// This platform, for `configuration` (`debug` sets DEBUG), with the flags the manifest's text
    /// and `arguments` could set.
    public static func here(configuration: String, manifest: String, arguments: [String]) -> CompilationConditions {
        #if os(Linux)
            let os = "Linux"
        #elseif os(macOS)
            let os = "macOS"
        #else
            let os = "unknown"
        #endif
        #if arch(x86_64)
            let arch = "x86_64"
        #elseif arch(arm64)
            let arch = "arm64"
        #else
            let arch = "unknown"
        #endif
        var flags = Set(manifest.matches(of: #/[A-Za-z_][A-Za-z0-9_]*/#).map { String($0.output) })
        for argument in arguments where argument.hasPrefix("-D") { flags.insert(String(argument.dropFirst(2))) }
        return CompilationConditions(os: os, arch: arch, debug: configuration == "debug", namedFlags: flags)
    }

    /// Modules only Apple's platforms have.
    static let appleModules: Set<String> = [
        "Darwin", "UIKit", "AppKit", "Cocoa", "WatchKit", "SwiftUI", "Combine", "ObjectiveC", "OSLog", "os",
        "CoreGraphics", "CoreImage", "QuartzCore", "CoreText", "MapKit", "WebKit", "CoreData", "CloudKit",
    ]

    /// `text` with the lines of branches this platform never compiles blanked (and the directives
    /// of `#if` groups it can decide), line for line: the same line numbers, the code compiled here.
    public func active(_ text: String) -> String {
        let directives = SwiftSource.scan(text, strings: .blanked).map {
            $0.code.trimmingCharacters(in: .whitespaces)
        }
        var lines = text.components(separatedBy: "\n")
        guard directives.contains(where: { $0.hasPrefix("#if") }), directives.count == lines.count else { return text }
        /// An open `#if` group: whether its surroundings are compiled, whether a clause was surely
        /// taken, how many clauses stay behind unknown conditions, and whether the current clause's
        /// code is kept.
        struct Group {
            var outer: Bool
            var taken = false
            var kept = 0
            var current = false
        }
        var stack: [Group] = []
        for (index, line) in directives.enumerated() {
            let keyword = line.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            let condition = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            switch keyword {
            case "#if", "#elseif", "#else":
                var group: Group
                if keyword == "#if" {
                    group = Group(outer: stack.last.map { $0.outer && $0.current } ?? true)
                } else {
                    guard let open = stack.popLast() else { return text }
                    group = open
                }
                let value = keyword == "#else" ? true : evaluate(condition)
                lines[index] = ""
                group.current = false
                if group.outer, !group.taken, value != false {
                    group.current = true
                    if value == true {
                        group.taken = true
                        // A sure clause after unknown ones is what is left: their `#else`.
                        if group.kept > 0 { lines[index] = "#else" }
                    } else {
                        lines[index] = (group.kept == 0 ? "#if " : "#elseif ") + condition
                        group.kept += 1
                    }
                }
                stack.append(group)
            case "#endif":
                guard let group = stack.popLast() else { return text }
                if !(group.outer && group.kept > 0) { lines[index] = "" }
            default:
                if let group = stack.last, !(group.outer && group.current) { lines[index] = "" }
            }
        }
        return stack.isEmpty ? lines.joined(separator: "\n") : text
    }

    /// The value of a condition: true, false, or nil when it cannot be told here.
    public func evaluate(_ condition: String) -> Bool? {
        var parser = ConditionParser(text: condition, conditions: self)
        guard let value = parser.or(), parser.atEnd else { return nil }
        return value.known
    }

    /// One atom: `name` or `name(argument)`.
    func atom(_ name: String, _ argument: String?) -> Bool? {
        guard let argument else {
            switch name {
            case "true": return true
            case "false": return false
            case "DEBUG": return debug
            case "SWIFT_PACKAGE": return true
            default:
                if let trait = traits?.value(of: name) { return trait }
                return namedFlags.contains(name) ? nil : false
            }
        }
        let value = argument.trimmingCharacters(in: .whitespaces)
        switch name {
        case "os": return os == "unknown" ? nil : value == os || (value == "OSX" && os == "macOS")
        case "arch": return arch == "unknown" ? nil : value == arch
        case "targetEnvironment": return os == "Linux" ? false : nil
        case "_runtime": return os == "Linux" ? value == "_Native" : nil
        case "canImport":
            let module = value.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? value
            if let known = modules?.canImport(module, decidesAbsence: os == "Linux") { return known }
            if os == "Linux" {
                if Self.appleModules.contains(module) { return false }
                if module == "Glibc" || module == "Foundation" || module == "XCTest" { return true }
            }
            return nil
        case "compiler": return compiler.flatMap { Self.compare(value, with: $0) }
        case "swift":
            // The language mode's version: a Swift 6 compiler reads mode 5 as 5.10, and no mode
            // is past the compiler's own version.
            guard let compiler, compiler[0] >= 6, let (operation, version) = Self.versionTest(value) else { return nil }
            if Self.order(version, [5, 10]) != .orderedDescending { return operation == ">=" }
            if Self.order(version, compiler) == .orderedDescending { return operation == "<" }
            return nil
        default: return nil
        }
    }

    /// `>=6.0` or `<5.9` against `version`; nil when it does not read so.
    static func compare(_ test: String, with version: [Int]) -> Bool? {
        guard let (operation, wanted) = versionTest(test) else { return nil }
        let atLeast = order(version, wanted) != .orderedAscending
        return operation == ">=" ? atLeast : !atLeast
    }

    static func versionTest(_ test: String) -> (String, [Int])? {
        let trimmed = test.replacingOccurrences(of: " ", with: "")
        let operation = trimmed.hasPrefix(">=") ? ">=" : trimmed.hasPrefix("<") ? "<" : nil
        guard let operation else { return nil }
        let parts = trimmed.dropFirst(operation.count).split(separator: ".").map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        return (operation, parts.compactMap { $0 })
    }

    /// Versions compared part by part, missing parts 0.
    static func order(_ a: [Int], _ b: [Int]) -> ComparisonResult {
        for index in 0..<max(a.count, b.count) {
            let (x, y) = (index < a.count ? a[index] : 0, index < b.count ? b[index] : 0)
            if x != y { return x < y ? .orderedAscending : .orderedDescending }
        }
        return .orderedSame
    }
}

/// A three-valued reading of a condition: `!`, `&&`, `||`, parentheses, and atoms.
fileprivate struct ConditionParser {
    struct Value {
        /// nil: unknown.
        var known: Bool?
    }

    let characters: [Character]
    let conditions: CompilationConditions
    var index = 0

    init(text: String, conditions: CompilationConditions) {
        characters = Array(text)
        self.conditions = conditions
    }

    var atEnd: Bool {
        mutating get {
            skipSpaces()
            return index >= characters.count
        }
    }

    mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    mutating func take(_ token: String) -> Bool {
        skipSpaces()
        let end = index + token.count
        guard end <= characters.count, String(characters[index..<end]) == token else { return false }
        index = end
        return true
    }

    mutating func or() -> Value? { chain("||", absorbing: true) { $0.and() } }

    mutating func and() -> Value? { chain("&&", absorbing: false) { $0.unary() } }

    /// Operands joined by `token`: `absorbing` (true for `||`, false for `&&`) on either side
    /// decides it; the other value on both sides too; otherwise it is unknown.
    mutating func chain(_ token: String, absorbing: Bool, _ operand: (inout ConditionParser) -> Value?) -> Value? {
        guard var left = operand(&self) else { return nil }
        while take(token) {
            guard let right = operand(&self) else { return nil }
            if left.known == absorbing || right.known == absorbing {
                left.known = absorbing
            } else if left.known == !absorbing && right.known == !absorbing {
                left.known = !absorbing
            } else {
                left.known = nil
            }
        }
        return left
    }

    mutating func unary() -> Value? {
        if take("!") { return unary().map { Value(known: $0.known.map { !$0 }) } }
        if take("(") {
            guard let inner = or(), take(")") else { return nil }
            return inner
        }
        skipSpaces()
        let start = index
        while index < characters.count,
            characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
        {
            index += 1
        }
        guard index > start else { return nil }
        let name = String(characters[start..<index])
        guard take("(") else { return Value(known: conditions.atom(name, nil)) }
        var depth = 1
        let argumentStart = index
        while index < characters.count {
            if characters[index] == "(" { depth += 1 }
            if characters[index] == ")" {
                depth -= 1
                if depth == 0 { break }
            }
            index += 1
        }
        guard index < characters.count else { return nil }
        let argument = String(characters[argumentStart..<index])
        index += 1
        return Value(known: conditions.atom(name, argument))
    }
}
