import Foundation
import GitChanges
import ObjectStorage

/// Every push to feature, kept under the commit it was pushed from, beside the latest copy that
/// today's layout (`<prefix>/<Test>/…`) and a team's own tools read:
///
/// - `<prefix>/.pushes/<commit>/<Test>/<file>`: the test's references as that commit pushed them;
/// - `<prefix>/.push-records/<Test>/<commit>.json`: the push's record (`PushManifest`): its files
///   and what develop held of the test when it was pushed.
///
/// Keys are named below feature's prefix, as earlier releases kept them; feature's store
/// (`ScopedRecords`) keeps them beside it, below the writing job's scope (`RecordLayout`). Folders
/// starting with `.` are not references: listings, pulls, promotions and `refs orphans` leave
/// them out. A push never overwrites another commit's; `refs prune` removes old ones.
public struct PushArchive: Sendable {
    /// Feature: the store and prefix the pushes are kept under.
    public let feature: StoreLocation

    public static let pushesFolder = ".pushes"
    public static let recordsFolder = ".push-records"
    /// Removals under way: a marker per push (`<test>/<commit>`) from before its record is deleted
    /// until its last file is, so a removal stopped midway is finished by the next prune.
    public static let removalsFolder = ".push-removals"

    public init(feature: StoreLocation) {
        self.feature = feature
    }

    /// The references `commit` pushed, shaped as a reference store (`<Test>/<file>`).
    public func pushed(by commit: String) throws(StoreError) -> StoreLocation {
        StoreLocation(
            store: feature.store, prefix: try ObjectKey("\(Self.pushesFolder)/\(commit)").under(feature.prefix))
    }

    private func recordKey(_ test: String, _ commit: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.recordsFolder)/\(test)/\(commit).json").under(feature.prefix)
    }

    /// Every test with a push record, with the commits that pushed it.
    public func allCommits() async throws(StoreError) -> [String: [String]] {
        let folder = try ObjectKey(Self.recordsFolder).under(feature.prefix)
        var result: [String: [String]] = [:]
        for object in try await feature.store.list(under: folder) {
            guard let relative = object.key.relative(to: folder)?.rawValue else { continue }
            let parts = relative.split(separator: "/")
            guard parts.count == 2, parts[1].hasSuffix(".json") else { continue }
            let commit = String(parts[1].dropLast(".json".count))
            if Self.isCommit(commit) { result[String(parts[0]), default: []].append(commit) }
        }
        return result
    }

    /// The record of `commit`'s push of `test`; nil when there is none.
    public func record(of test: String, by commit: String) async throws(StoreError) -> PushManifest? {
        guard let shared = feature.store as? any SharedStore,
            let (data, _) = try await shared.get(try recordKey(test, commit))
        else { return nil }
        guard let record = try? JSONDecoder().decode(PushManifest.self, from: data) else {
            throw .io(path: try recordKey(test, commit).rawValue, reason: "not a push record")
        }
        return record
    }

    /// Keeps `commit`'s push of `test`: its files (already copied below `pushed(by:)`) and what develop held.
    public func save(_ record: PushManifest, of test: String) async throws(StoreError) {
        guard let shared = feature.store as? any SharedStore else {
            throw .transport(endpoint: feature.store.name, reason: "this kind of store cannot keep push records")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw .io(path: try recordKey(test, record.commit).rawValue, reason: "\(error)")
        }
        try await shared.put(data, to: try recordKey(test, record.commit), condition: .always)
    }

    /// Removes `commit`'s push of `test`: a marker of the removal, its record (the push is then
    /// absent: never read, never promoted), its files, and the marker. Stopped anywhere, no record
    /// names a file its push lacks, and `unfinishedRemovals()` names what is left to finish.
    public func remove(_ test: String, by commit: String) async throws(StoreError) {
        guard let shared = feature.store as? any SharedStore else {
            throw .transport(endpoint: feature.store.name, reason: "this kind of store cannot keep push records")
        }
        let marker = try removalKey(test, commit)
        try await shared.put(Data(), to: marker, condition: .always)
        try await feature.store.delete(try recordKey(test, commit))
        let folder = try ObjectKey(test).under(try pushed(by: commit).prefix)
        for object in try await feature.store.list(under: folder) { try await feature.store.delete(object.key) }
        try await feature.store.delete(marker)
    }

    /// The removals a stopped prune left unfinished: (test, commit) each.
    public func unfinishedRemovals() async throws(StoreError) -> [(test: String, commit: String)] {
        let folder = try ObjectKey(Self.removalsFolder).under(feature.prefix)
        return try await feature.store.list(under: folder).compactMap { object in
            guard let parts = object.key.relative(to: folder)?.rawValue.split(separator: "/"), parts.count == 2,
                Self.isCommit(String(parts[1]))
            else { return nil }
            return (String(parts[0]), String(parts[1]))
        }
    }

    private func removalKey(_ test: String, _ commit: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.removalsFolder)/\(test)/\(commit)").under(feature.prefix)
    }

    /// Of the commits that pushed `test` (`allCommits()[test]`), the newest one `history` says `include` accepts; nil when
    /// none does. Newest: the one no other accepted commit descends from (the latest pushed time
    /// among several such, as from branches merged together).
    public func newestPush(
        of test: String, among commits: [String], history: CommitHistory, where include: (String) throws -> Bool
    ) async throws -> String? {
        let accepted = try commits.filter(include)
        guard accepted.count > 1 else { return accepted.first }
        var tips: [String] = []
        for commit in accepted {
            let superseded = try accepted.contains { other in
                try other != commit && history.isAncestor(commit, of: other) == true
            }
            if !superseded { tips.append(commit) }
        }
        guard tips.count > 1 else { return tips.first }
        var latest: (commit: String, at: Date)?
        for tip in tips {
            let at = (try await record(of: test, by: tip)?.pushedAt).flatMap(Timestamp.date) ?? .distantPast
            if latest == nil || at > latest!.at { latest = (tip, at) }
        }
        return latest?.commit
    }

    /// A full hex commit id: the only names the archive writes or reads.
    static func isCommit(_ text: String) -> Bool {
        (text.count == 40 || text.count == 64) && text.allSatisfy(\.isHexDigit)
    }
}

/// What one push of a test kept: the files (name → MD5) and what develop held of the test when it
/// was pushed, which is what the push changed against. Its JSON form is documented in docs/references.md.
public struct PushManifest: Codable, Sendable, Equatable {
    public let commit: String
    /// When it was pushed, ISO 8601 in UTC (to the millisecond; whole seconds in older records).
    public let pushedAt: String
    public let files: [String: String]
    /// Develop's files of the test at the push; nil when develop could not be read.
    public let develop: [String: String]?
    /// The CI run whose candidates `refs accept` pushed (`CandidateRun.run`); nil for a push of
    /// the checkout's references.
    public var acceptedFrom: String?

    public init(
        commit: String, pushedAt: String, files: [String: String], develop: [String: String]?,
        acceptedFrom: String? = nil
    ) {
        self.commit = commit
        self.pushedAt = pushedAt
        self.files = files
        self.develop = develop
        self.acceptedFrom = acceptedFrom
    }

    /// The files this push changed against develop: added or changed (to copy), and removed.
    public var changes: (changed: [String], removed: [String]) {
        let base = develop ?? [:]
        let changed = files.filter { base[$0.key] != $0.value }.keys.sorted()
        let removed = base.keys.filter { files[$0] == nil }.sorted()
        return (changed, removed)
    }
}
