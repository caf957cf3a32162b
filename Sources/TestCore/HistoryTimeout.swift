import Foundation

/// Timeouts from evidence: a test whose recorded durations (its last `Timings.recentWindow`, five
/// at least) give a 90th percentile is stopped once it runs `factor` times that long, `floor` at
/// least; the spec's timeout stays the ceiling. A hung test then costs about the floor, not the
/// whole timeout (docs/test-runner.md, "Timeouts from history"; factor and floor measured by
/// scripts/bench-timeouts.sh).
public struct HistoryTimeout: Sendable, Equatable {
    public var factor: Double
    public var floor: Duration

    public static let standard = HistoryTimeout(factor: 10, floor: .seconds(60))

    public init(factor: Double, floor: Duration) {
        (self.factor, self.floor) = (factor, floor)
    }

    /// One test's limit, and the evidence it was read from.
    public struct Limit: Sendable, Equatable {
        public var limit: Duration
        public var p90: Double
        public var runs: Int
    }

    /// The limits of the tests whose durations say less than `ceiling`.
    public func limits(_ timings: Timings, ceiling: Duration) -> [String: Limit] {
        var limits: [String: Limit] = [:]
        for (name, entry) in timings.tests {
            guard let p90 = entry.p90(), let runs = entry.recent?.count else { continue }
            let limit = max(floor, .milliseconds(Int64((p90 * factor * 1000).rounded(.up))))
            if limit < ceiling { limits[name] = Limit(limit: limit, p90: p90, runs: runs) }
        }
        return limits
    }
}
