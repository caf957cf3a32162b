import Foundation

/// The times records keep (a push's, a CI run's candidates'): ISO 8601 in UTC to the millisecond,
/// so that a push and a run in the same second are still in order. Records written before kept
/// whole seconds; both are read.
enum Timestamp {
    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
