/// A line and column in a spec file, both counted from 1 (columns in Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Comparable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static let start = SourceLocation(line: 1, column: 1)

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// The path of a value inside a spec, written as users read it: `stages[1].test.timeout`.
public struct SpecKeyPath: Sendable, Hashable, CustomStringConvertible {
    private var components: [Component]

    private enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public static let root = SpecKeyPath(components: [])

    public func appending(_ key: String) -> SpecKeyPath {
        SpecKeyPath(components: components + [.key(key)])
    }

    public func appending(index: Int) -> SpecKeyPath {
        SpecKeyPath(components: components + [.index(index)])
    }

    public var isRoot: Bool { components.isEmpty }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

/// One problem found in a spec file, printed as `FILE:LINE:COLUMN: KEY.PATH: message`.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var keyPath: SpecKeyPath
    public var message: String

    public init(file: String, location: SourceLocation, keyPath: SpecKeyPath = .root, message: String) {
        self.file = file
        self.location = location
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        let prefix = "\(file):\(location.line):\(location.column): "
        return keyPath.isRoot ? prefix + message : prefix + "\(keyPath): " + message
    }
}
