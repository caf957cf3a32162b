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
        _ = try await shared.put(try Self.encoder.encode(record), to: key, condition: .always)
        return key
    }

    /// The records of the days from `since` (`YYYY-MM-DD`, nil for all), oldest first, read 16 at
    /// a time: each day's roll-up (`HistoryDay`) and the records it has not absorbed; an object that
    /// is not a record (written by hand, another version) is left out and counted; the bytes of the
    /// objects read.
    public func records(since: String?) async throws -> (records: [HistoryRecord], unreadable: Int, bytes: Int) {
        let days = try await listing(since: since)
        var records: [HistoryRecord] = []
        var unreadable = 0
        var bytes = 0
        var keys: [ObjectKey] = []
        for day in days {
            var absorbed: Set<String> = []
            if let rollUp = day.rollUp {
                bytes += Int(rollUp.size)
                if let read = try await self.day(rollUp.key), let kept = read.records {
                    records += kept
                    absorbed = Set(read.absorbed)
                } else {
                    unreadable += 1
                }
            }
            for object in day.records where !absorbed.contains(object.key.lastSegment) {
                keys.append(object.key)
                bytes += Int(object.size)
            }
        }
        let read = try await read(keys)
        records += read.compactMap { $0 }
        return (
            records.sorted { ($0.at, $0.run, $0.node ?? "") < ($1.at, $1.run, $1.node ?? "") },
            unreadable + read.count - read.compactMap { $0 }.count, bytes
        )
    }

    /// Rolls up the days more than `days` days old (`rollUp(before:)`).
    public func rollUp(olderThan days: Int, now: Date = Date()) async throws -> (records: Int, before: Int, after: Int)
    {
        try await rollUp(
            before: String(HistoryRecord.timestamp(now.addingTimeInterval(-Double(days) * 86_400)).prefix(10)))
    }

    /// Rolls each day before `day` (`YYYY-MM-DD`) into its `day.json`: its records and an earlier
    /// roll-up's, written first, then the records it absorbed removed (a reader in between skips
    /// them). How many records were rolled up and the bytes before and after.
    public func rollUp(before day: String) async throws -> (records: Int, before: Int, after: Int) {
        guard let shared = feature.store as? any SharedStore else { return (0, 0, 0) }
        var rolled = 0
        var (before, after) = (0, 0)
        for listed in try await listing(since: nil) where listed.day < day && !listed.records.isEmpty {
            var earlier: HistoryDay?
            if let rollUp = listed.rollUp { earlier = try await self.day(rollUp.key) }
            let absorbed = Set(earlier?.absorbed ?? [])
            let fresh = listed.records.filter { !absorbed.contains($0.key.lastSegment) }
            let read = try await read(fresh.map(\.key))
            let kept = zip(fresh, read).compactMap { object, record in record.map { (object, $0) } }
            let records = (earlier?.records ?? []) + kept.map(\.1)
            let rollUp = HistoryDay(day: listed.day, records: records, absorbed: kept.map { $0.0.key.lastSegment })
            let data = try Self.encoder.encode(rollUp)
            _ = try await shared.put(
                data, to: try ObjectKey("\(Self.folder)/\(listed.day)/\(HistoryDay.name)").under(feature.prefix),
                condition: .always)
            // What it absorbed, and what an earlier roll-up absorbed but did not get to remove.
            let leftOver = listed.records.filter { absorbed.contains($0.key.lastSegment) }
            for object in kept.map(\.0) + leftOver { try await feature.store.delete(object.key) }
            rolled += kept.count
            before += Int(listed.records.reduce(0) { $0 + $1.size } + (listed.rollUp?.size ?? 0))
            after += data.count
        }
        return (rolled, before, after)
    }

    /// The history's objects by day, oldest first: the day's roll-up and its record objects.
    private func listing(since: String?) async throws -> [(day: String, rollUp: ObjectInfo?, records: [ObjectInfo])] {
        let root = try ObjectKey(Self.folder).under(feature.prefix)
        var days: [String: (rollUp: ObjectInfo?, records: [ObjectInfo])] = [:]
        for object in try await feature.store.list(under: root) {
            guard let parts = object.key.relative(to: root)?.rawValue.split(separator: "/"), parts.count == 2,
                parts[1].hasSuffix(".json"), since.map({ String(parts[0]) >= $0 }) ?? true
            else { continue }
            if parts[1] == HistoryDay.name {
                days[String(parts[0]), default: (nil, [])].rollUp = object
            } else {
                days[String(parts[0]), default: (nil, [])].records.append(object)
            }
        }
        return days.sorted { $0.key < $1.key }.map { ($0.key, $0.value.rollUp, $0.value.records) }
    }

    /// The records at `keys`, 16 at a time; nil for an object that is not one.
    private func read(_ keys: [ObjectKey]) async throws -> [HistoryRecord?] {
        guard let shared = feature.store as? any SharedStore else { return [] }
        return try await StoreSync.concurrently(keys, limit: 16) { key throws(StoreError) -> HistoryRecord? in
            guard let (data, _) = try await shared.get(key),
                let record = try? JSONDecoder().decode(HistoryRecord.self, from: data), record.version == 1
            else { return nil }
            return record
        }
    }

    /// A day's roll-up; nil when it is not one.
    private func day(_ key: ObjectKey) async throws -> HistoryDay? {
        guard let shared = feature.store as? any SharedStore, let (data, _) = try await shared.get(key) else {
            return nil
        }
        return (try? JSONDecoder().decode(HistoryDay.self, from: data)).flatMap { $0.version == 1 ? $0 : nil }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
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
