/// "Did you mean …?" for a misspelt key or value.
enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(1, min(word.count, best.0.count) / 3)
        return best.1 <= limit ? best.0 : nil
    }

    /// `'x' …; did you mean 'y'?` or the list of what is allowed.
    static func phrase(for word: String, in candidates: [String]) -> String {
        if let match = closest(to: word, in: candidates) {
            return "did you mean '\(match)'?"
        }
        return "expected one of: " + candidates.joined(separator: ", ")
    }

    /// Levenshtein distance between two strings, by Unicode scalars.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
