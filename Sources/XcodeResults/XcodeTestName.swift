import Foundation
import TestCore

/// One Xcode test in the one normal form every source is read into: enumerations and
/// `-only-testing` (`Target/Class/method()`), xcresult's `nodeIdentifier` (`Class/method()`, the
/// target from its bundle) and `nodeIdentifierURL`, console lines (`-[Target.Class method]`,
/// `Class.method()`), and Swift Testing's names with suites, parentheses and argument labels.
///
/// Its `key` is the name pipeline keeps timings, quarantine entries and reports under:
/// `Target.Class/method`, with a bare `()` dropped (XCTest's methods take none; enumerations and
/// xcresult add it, console lines do not), so a test's timings are the same whichever source
/// recorded them. A Swift Testing function with arguments keeps them: `Target.Suite/f(_:)`.
public struct XcodeTestName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The test target; nil when the source does not say (a parallel clone's line, Swift
    /// Testing's console line), until `resolved(among:)` finds it.
    public var target: String?
    /// The suites, outermost first: the XCTest class, or Swift Testing's nested suites.
    public var suites: [String]
    /// The test's own name as the source spelled it: `testAddition`, `testAddition()`, `f(_:)`.
    public var method: String

    public init(target: String?, suites: [String], method: String) {
        (self.target, self.suites, self.method) = (target, suites, method)
    }

    /// `Target/Class/method()` (an enumeration's or `-only-testing`'s identifier).
    public init?(identifier: String) {
        let parts = Self.segments(identifier)
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(target: parts[0], suites: Array(parts.dropFirst().dropLast()), method: parts[parts.count - 1])
    }

    /// xcresult's `nodeIdentifier` (`Class/method()`, or Swift Testing's `Outer/Inner/f()`) in `target`.
    public init?(nodeIdentifier: String, target: String?) {
        let parts = Self.segments(nodeIdentifier)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(target: target, suites: Array(parts.dropLast()), method: parts[parts.count - 1])
    }

    /// xcresult's `nodeIdentifierURL`: `test://com.apple.xcode/<Project>/<Target>/<Class>/<method>`.
    public init?(url: String) {
        let scheme = "test://"
        guard url.hasPrefix(scheme) else { return nil }
        let parts = Self.segments(String(url.dropFirst(scheme.count)))
        // host, project, target, suites…, method
        guard parts.count >= 4 else { return nil }
        self.init(identifier: parts.dropFirst(2).joined(separator: "/"))
    }

    /// A console line's name: `-[Target.Class method]` (macOS XCTest), `Target.Class/method`,
    /// `Class.method` or `Class.method()` (Linux XCTest, parallel clones), `Suite/f()`, `f()`.
    public init?(printed: String) {
        let text = printed.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("-["), text.hasSuffix("]") {
            let parts = text.dropFirst(2).dropLast().split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            let owner = parts[0].split(separator: ".").map(String.init)
            self.init(target: owner.count > 1 ? owner[0] : nil, suites: [owner[owner.count - 1]], method: parts[1])
            return
        }
        let head = String(text.prefix { $0 != "(" })
        if head.contains("/") {
            var parts = Self.segments(text)
            guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            var target: String?
            if let dot = parts[0].lastIndex(of: "."), parts.count > 1 {
                target = String(parts[0][..<dot])
                parts[0] = String(parts[0][parts[0].index(after: dot)...])
            }
            self.init(target: target, suites: Array(parts.dropLast()), method: parts[parts.count - 1])
        } else if let dot = head.firstIndex(of: ".") {
            let method = String(text[text.index(after: dot)...])
            guard !method.isEmpty, dot > head.startIndex else { return nil }
            self.init(target: nil, suites: [String(head[..<dot])], method: method)
        } else {
            self.init(target: nil, suites: [], method: text)
        }
    }

    /// The name back from a key pipeline kept (`Target.Class/method`).
    public init(key: String) {
        let parts = Self.segments(key)
        let first = parts[0]
        if parts.count > 1, let dot = first.lastIndex(of: ".") {
            self.init(
                target: String(first[..<dot]),
                suites: [String(first[first.index(after: dot)...])] + parts.dropFirst().dropLast(),
                method: parts[parts.count - 1])
        } else if parts.count == 1, let dot = first.prefix(while: { $0 != "(" }).lastIndex(of: ".") {
            self.init(target: String(first[..<dot]), suites: [], method: String(first[first.index(after: dot)...]))
        } else {
            self.init(target: nil, suites: Array(parts.dropLast()), method: parts[parts.count - 1])
        }
    }

    /// The method of the normal form: a bare `()` dropped.
    public var normalMethod: String { method.hasSuffix("()") ? String(method.dropLast(2)) : method }

    /// The suites and method, without the target: `Class/method`.
    public var path: String { (suites + [normalMethod]).joined(separator: "/") }

    /// The name pipeline keeps it under: `Target.Class/method` (`Target.f` for a free function).
    public var key: String {
        guard let target else { return path }
        return suites.isEmpty ? "\(target).\(normalMethod)" : "\(target).\(path)"
    }

    /// The `-only-testing:` identifier, spelled as the source spelled it; nil without a target.
    public var identifier: String? { target.map { ([$0] + suites + [method]).joined(separator: "/") } }

    /// The class (or outermost suite) with its target: what `--by class` keeps whole.
    public var suiteIdentifier: String? {
        guard let target else { return nil }
        return ([target] + suites.prefix(1)).joined(separator: "/")
    }

    /// Which library runs it, as far as a name tells: a `test…` method taking no argument in one
    /// class is XCTest's; nested suites, arguments or another name are Swift Testing's.
    public var framework: TestFramework {
        let arguments = method.hasSuffix(")") && !method.hasSuffix("()")
        return suites.count == 1 && normalMethod.hasPrefix("test") && !arguments ? .xctest : .swiftTesting
    }

    public var testID: TestID { TestID(key, framework: framework) }

    /// The name with its target found among `keys` (names pipeline keeps) when it has none and
    /// exactly one of them ends with its path.
    public func resolved(among keys: Set<String>) -> XcodeTestName {
        guard target == nil else { return self }
        let suffix = "." + path
        let matches = keys.filter { $0.hasSuffix(suffix) }
        guard matches.count == 1, let match = matches.first else { return self }
        return XcodeTestName(key: match)
    }

    public var description: String { key }

    public static func < (lhs: XcodeTestName, rhs: XcodeTestName) -> Bool { lhs.key < rhs.key }

    /// Split at `/` outside parentheses (a Swift Testing argument label never holds one, but be safe).
    static func segments(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            case "/" where depth == 0:
                parts.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}
