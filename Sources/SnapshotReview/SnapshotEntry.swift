import ImageDiff

/// One entry of a snapshot review, in a pipeline's JSON outcome.
public struct SnapshotEntry: Sendable, Encodable {
    public let key: String
    public let status: String
    public let test: String?
    public let matchRatio: Double?
    public let note: String?

    public init(_ entry: ReviewEntry) {
        key = entry.key
        status = entry.status.rawValue
        test = entry.testName
        matchRatio = entry.comparison?.matchRatio
        note = entry.note
    }
}
