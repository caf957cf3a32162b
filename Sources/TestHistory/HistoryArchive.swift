import Foundation
import ObjectStorage

/// The test history in the team's store: each run's record as one object of its own,
/// `<prefix>/.history/<YYYY-MM-DD>/<time>-<run>-<node>-<random>.json`, below feature's prefix (so
/// in the writing job's trust scope, `RecordLayout`). Nothing is read back and written again, so
/// machines writing at once lose nothing on stores without conditional writes.
public struct HistoryArchive: Sendable {
    /// Feature: the store and prefix the history is kept under.
    public let feature: StoreLocation

    public static let folder = ".history"
    /// The page post-merge runs keep (`HistoryPage`), below feature's prefix.
    public static var page: ObjectKey { get throws { try ObjectKey("\(folder)/index.html") } }

    public init(feature: StoreLocation) {
        self.feature = feature
    }

    /// Writes `record`; its key.
    @discardableResult
    public func keep(_ record: HistoryRecord) async throws -> ObjectKey {
        guard let shared = feature.store as? any SharedStore else {
            throw StoreError.io(path: feature.name, reason: "this store cannot keep the test history")
        }
        let day = String(record.at.prefix(10))
        let time = record.at.filter { $0.isNumber }
        func safe(_ text: String) -> String {
            String(text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "." }.prefix(40))
        }
        let node = record.node.map { "-" + $0.replacingOccurrences(of: "/", with: "of") } ?? ""
        let name = "\(time)-\(safe(record.run))\(node)-\(UUID().uuidString.prefix(8).lowercased()).json"
        let key = try ObjectKey("\(Self.folder)/\(day)/\(name)").under(feature.prefix)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        _ = try await shared.put(try encoder.encode(record), to: key, condition: .always)
        return key
    }

    /// The records of the days from `since` (`YYYY-MM-DD`, nil for all), oldest first, read 16 at
    /// a time; an object that is not a record (written by hand, another version) is left out and
    /// counted; the bytes of the objects read.
    public func records(since: String?) async throws -> (records: [HistoryRecord], unreadable: Int, bytes: Int) {
        guard let shared = feature.store as? any SharedStore else { return ([], 0, 0) }
        let root = try ObjectKey(Self.folder).under(feature.prefix)
        let objects = try await feature.store.list(under: root).filter { object in
            guard let parts = object.key.relative(to: root)?.rawValue.split(separator: "/"), parts.count == 2,
                parts[1].hasSuffix(".json"), since.map({ String(parts[0]) >= $0 }) ?? true
            else { return false }
            return true
        }
        let keys = objects.map(\.key)
        let read = try await StoreSync.concurrently(keys, limit: 16) { key throws(StoreError) -> HistoryRecord? in
            guard let (data, _) = try await shared.get(key),
                let record = try? JSONDecoder().decode(HistoryRecord.self, from: data), record.version == 1
            else { return nil }
            return record
        }
        let records = read.compactMap { $0 }
        return (
            records.sorted { ($0.at, $0.run, $0.node ?? "") < ($1.at, $1.run, $1.node ?? "") },
            read.count - records.count, Int(objects.reduce(0) { $0 + $1.size })
        )
    }

    /// The report of the last `days` days' records (today counted), and how many records were read
    /// and left out.
    public func report(days: Int, now: Date = Date()) async throws -> (
        report: HistoryReport, read: (records: Int, unreadable: Int)
    ) {
        let since = String(HistoryRecord.timestamp(now.addingTimeInterval(-Double(days - 1) * 86_400)).prefix(10))
        let (records, unreadable, bytes) = try await records(since: since)
        return (HistoryReport(records, bytes: bytes), (records.count, unreadable))
    }

    /// Removes the records of runs more than `days` days old (their day before today's `days`
    /// days), in every scope; how many.
    public func prune(olderThan days: Int, now: Date = Date()) async throws -> Int {
        try await prune(
            before: String(HistoryRecord.timestamp(now.addingTimeInterval(-Double(days) * 86_400)).prefix(10)))
    }

    /// Removes the records of the days before `day` (`YYYY-MM-DD`), in every scope; how many.
    func prune(before day: String) async throws -> Int {
        let root = try ObjectKey(Self.folder).under(feature.prefix)
        var removed = 0
        for object in try await feature.store.list(under: root) {
            guard let first = object.key.relative(to: root)?.firstSegment, first < day else { continue }
            try await feature.store.delete(object.key)
            removed += 1
        }
        return removed
    }
}
