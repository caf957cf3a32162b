/// A name pattern with `*` (any run of characters) and `?` (one character), as in `*Tests`.
public struct NamePattern: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let characters: [Character]
    /// The common shapes, matched byte for byte without the general algorithm: `*Suffix`, or a plain name.
    private let suffix: [UInt8]?, literal: Bool

    public init(_ pattern: String) {
        self.pattern = pattern
        characters = Array(pattern)
        let rest = pattern.dropFirst()
        suffix = pattern.first == "*" && !rest.contains("*") && !rest.contains("?") ? Array(rest.utf8) : nil
        literal = !pattern.contains("*") && !pattern.contains("?")
    }

    public var description: String { pattern }

    public func matches(_ name: some StringProtocol) -> Bool {
        var name = String(name)
        return name.withUTF8(matches(utf8:))
    }

    /// Matches a name given as UTF-8 bytes.
    func matches(utf8 name: UnsafeBufferPointer<UInt8>) -> Bool {
        if let suffix {
            return name.count >= suffix.count && name[(name.count - suffix.count)...].elementsEqual(suffix)
        }
        if literal { return name.elementsEqual(pattern.utf8) }
        let name = Array(String(decoding: name, as: UTF8.self))
        var p = 0
        var n = 0
        var star: Int?
        var resume = 0
        while n < name.count {
            if p < characters.count, characters[p] == "?" || characters[p] == name[n] {
                p += 1
                n += 1
            } else if p < characters.count, characters[p] == "*" {
                star = p
                resume = n
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                n = resume
            } else {
                return false
            }
        }
        while p < characters.count, characters[p] == "*" { p += 1 }
        return p == characters.count
    }
}
