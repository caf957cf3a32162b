import CISystem
import Foundation

/// swift-snapshot-testing's process-wide switches, as a test run sets them: where failed
/// snapshots go (`SNAPSHOT_ARTIFACTS`) and whether references may be written
/// (`SNAPSHOT_TESTING_RECORD`: `all`, `missing` — the library's default —, `failed` or `never`).
public enum SnapshotSwitches {
    public static let record = "SNAPSHOT_TESTING_RECORD"
    public static let artifacts = "SNAPSHOT_ARTIFACTS"

    public enum RecordMode: String, Sendable, CaseIterable {
        case all, missing, failed, never
    }

    /// The variables a test run sets for its test processes: the artifacts folder always; in CI,
    /// `SNAPSHOT_TESTING_RECORD=never` unless the user chose a mode, so a missing reference fails
    /// the test instead of being recorded (and a retry cannot pass on what the first attempt wrote).
    public static func environment(
        inherited: [String: String], artifacts: URL,
        record: RecordMode? = nil
    ) -> [String: String] {
        var result = [Self.artifacts: artifacts.path]
        if let record {
            result[Self.record] = record.rawValue
        } else if CIContext(inherited).isCI, inherited[Self.record] == nil {
            result[Self.record] = RecordMode.never.rawValue
        }
        return result
    }

    /// The record mode test processes get with `environment`, as the library reads it.
    public static func effectiveMode(inherited: [String: String], overrides: [String: String]) -> RecordMode {
        (overrides[record] ?? inherited[record]).flatMap(RecordMode.init(rawValue:)) ?? .missing
    }
}
