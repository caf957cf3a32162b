/// Which library runs a test. Both live in the same test runner.
public enum TestFramework: String, Codable, Sendable, Comparable {
    case xctest
    case swiftTesting = "swift-testing"

    public static func < (lhs: TestFramework, rhs: TestFramework) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A test as `swift test list` names it: `Module.Class/testMethod` (XCTest) or
/// `Module.Suite/name(label:)` / `Module.name()` (Swift Testing). Parameterised Swift Testing
/// tests are one test: their cases run together.
public struct TestID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let framework: TestFramework
    /// The listed name, unique within a package.
    public let name: String

    public init(_ name: String, framework: TestFramework) {
        self.framework = framework
        self.name = name
    }

    public var description: String { name }

    /// `Module.Class` for XCTest, `Module.Suite` (or the module for a free function) for Swift Testing:
    /// JUnit's classname, and the unit tests are grouped by.
    public var suite: String {
        if let slash = name.lastIndex(of: "/") { return String(name[..<slash]) }
        // A free Swift Testing function, `Module.name()`: the module is the part before the first dot.
        return String(name.prefix { $0 != "." })
    }

    /// The test target's module: the part of the name before the first dot.
    public var module: String { String(name.prefix { $0 != "." }) }

    /// The test's own name within its suite.
    public var shortName: String {
        if let slash = name.lastIndex(of: "/") { return String(name[name.index(after: slash)...]) }
        return String(name.drop { $0 != "." }.dropFirst())
    }

    /// How XCTest on Linux prints the test in `Test Case '…' started` lines: `Class.method`, no module.
    public var xctestPrintedName: String {
        let className = suite.split(separator: ".").last.map(String.init) ?? suite
        return "\(className).\(shortName)"
    }

    public static func < (lhs: TestID, rhs: TestID) -> Bool {
        (lhs.name, lhs.framework) < (rhs.name, rhs.framework)
    }
}
