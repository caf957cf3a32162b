/// A line diff of two texts (longest common subsequence), for text references (`.txt`, `.json`,
/// any text a snapshot strategy writes) in the review page.
public struct TextDiff: Sendable, Equatable {
    public enum Kind: String, Sendable { case same, removed, added }

    public struct Line: Sendable, Equatable {
        public let kind: Kind
        public let text: String
    }

    public let lines: [Line]

    /// Pairs of texts longer than this (lines × lines) are shown as all removed, then all added.
    static let largest = 4_000_000

    public init(reference: String, new: String) {
        let old = reference.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let now = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard old.count * now.count <= Self.largest else {
            lines =
                old.map { Line(kind: .removed, text: $0) }
                + now.map { Line(kind: .added, text: $0) }
            return
        }
        // lengths[i][j]: the common subsequence of old[i...] and now[j...], row-major in one array.
        let width = now.count + 1
        var lengths = [Int32](repeating: 0, count: (old.count + 1) * width)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: now.count - 1, through: 0, by: -1) {
                lengths[i * width + j] =
                    old[i] == now[j]
                    ? lengths[(i + 1) * width + j + 1] + 1
                    : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var result: [Line] = []
        var i = 0
        var j = 0
        while i < old.count || j < now.count {
            if i < old.count, j < now.count, old[i] == now[j] {
                result.append(Line(kind: .same, text: old[i]))
                i += 1
                j += 1
            } else if i < old.count, j == now.count || lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                // Removed lines before added ones, as diff tools show a change.
                result.append(Line(kind: .removed, text: old[i]))
                i += 1
            } else {
                result.append(Line(kind: .added, text: now[j]))
                j += 1
            }
        }
        lines = result
    }

    public var isEmpty: Bool { lines.allSatisfy { $0.kind == .same } }

    /// The changed lines with `context` unchanged lines around them, as runs to show apart.
    public func hunks(context: Int = 3) -> [[Line]] {
        let changed = lines.indices.filter { lines[$0].kind != .same }
        var hunks: [[Line]] = []
        var range: ClosedRange<Int>?
        for index in changed {
            let wanted = max(0, index - context)...min(lines.count - 1, index + context)
            if let current = range, wanted.lowerBound <= current.upperBound + 1 {
                range = current.lowerBound...wanted.upperBound
            } else {
                if let current = range { hunks.append(Array(lines[current])) }
                range = wanted
            }
        }
        if let current = range { hunks.append(Array(lines[current])) }
        return hunks
    }
}
