/// A key of an object in a store, relative to the store's prefix: `SnapshotTests/test_a.1.png`.
///
/// Keys come from storage listings, which are not to be trusted for writing files: a key is made
/// of non-empty `/`-separated segments, none of them `.` or `..`, with no leading `/`, no
/// backslash and no control character, so it can never name a path outside a target folder.
public struct ObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ text: String) throws(StoreError) {
        guard let reason = ObjectKey.problem(in: text) else {
            rawValue = text
            return
        }
        throw .unsafeKey(text, reason: reason)
    }

    static func problem(in text: String) -> String? {
        if text.isEmpty { return "it is empty" }
        if text.hasPrefix("/") { return "it is an absolute path" }
        if text.contains("\\") { return "it holds a backslash" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "it holds a control character"
        }
        if text.utf8.count > 1024 { return "it is longer than 1024 bytes" }
        for segment in text.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { return "it has an empty path segment" }
            if segment == "." || segment == ".." { return "it has a '\(segment)' segment" }
        }
        return nil
    }

    /// This key below another: `Test/a.png` under `develop` is `develop/Test/a.png`.
    public func under(_ prefix: ObjectKey?) -> ObjectKey {
        guard let prefix else { return self }
        return ObjectKey(trusted: prefix.rawValue + "/" + rawValue)
    }

    /// The rest of the key after `prefix/`, or nil when it is not below it.
    public func relative(to prefix: ObjectKey) -> ObjectKey? {
        guard rawValue.hasPrefix(prefix.rawValue + "/") else { return nil }
        return ObjectKey(trusted: String(rawValue.dropFirst(prefix.rawValue.count + 1)))
    }

    /// The folder shared runs keep their queues and reports in, beside the references.
    public static let runsFolder = "pipeline-runs"

    /// Whether the key, relative to a reference store's prefix, names a reference (`<Test>/<file>`,
    /// two segments): not a top-level object (the timings), nor anything deeper (an environment's
    /// set, `<environment>/<Test>/<file>`, which the shared set's listings leave alone), nor in a
    /// folder starting with `.` (feature's kept pushes, a folder store's bookkeeping) or in the
    /// shared runs' folder.
    public var isReference: Bool {
        rawValue.split(separator: "/", omittingEmptySubsequences: false).count == 2 && !firstSegment.hasPrefix(".")
            && firstSegment != Self.runsFolder
    }

    /// The render environments' sets among `keys` (relative to a store's prefix): first segments
    /// holding references of their own sets (`<environment>/<Test>/<file>`) and no file of their
    /// own, so a test folder never counts. A set is known by its references (its kept pushes and
    /// candidates alone, which a folder store does not list from the top, do not make one).
    /// Folders starting with `.` and the shared runs' folder are bookkeeping, not sets.
    public static func environmentSets(among keys: some Sequence<ObjectKey>) -> [String] {
        var deep: Set<String> = []
        var tests: Set<String> = []
        for key in keys {
            let first = key.firstSegment
            guard !first.hasPrefix("."), first != runsFolder else { continue }
            let segments = key.rawValue.split(separator: "/", omittingEmptySubsequences: false)
            switch segments.count {
            case 2: tests.insert(first)
            case 3 where !segments[1].hasPrefix("."): deep.insert(first)
            default: continue
            }
        }
        return deep.subtracting(tests).sorted()
    }

    /// The first segment: the test a reference belongs to (`SnapshotTests` of `SnapshotTests/a.png`).
    public var firstSegment: String { String(rawValue.prefix { $0 != "/" }) }
    /// The key's last segment: the file name.
    public var lastSegment: String { String(rawValue.split(separator: "/").last ?? Substring(rawValue)) }

    /// Joining two valid keys gives a valid key; nothing else uses this.
    private init(trusted: String) { rawValue = trusted }

    public var description: String { rawValue }

    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ObjectKey {
    /// The key as a URL's path: each byte but `A-Za-z0-9-._~/` percent-encoded.
    public var percentEncodedPath: String { S3Encoding.path(rawValue) }
}
