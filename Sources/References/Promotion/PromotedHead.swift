import CISystem
import Foundation
import GitChanges
import ObjectStorage

/// Develop's record of the last commit whose post-merge promotion completed,
/// `<develop>/.promoted.json`. A post-merge run compares from it rather than only from the push's
/// `before` (`ChangeQuery.promoted`), so merges whose own run never ran (cancelled while pending,
/// a lost runner, a push that bypassed CI) are tested and promoted by the next run, in merge order.
///
/// Written after a promotion completes, only forward (never over a descendant of the commit) and
/// with a conditional write where the store has them. Where it has none (OpenStack Swift's s3api
/// answers 501), the write is plain: two runs finishing at once may leave the older of their
/// commits, which costs the next run a longer comparison, never a merge.
public struct PromotedHead: Codable, Sendable, Equatable {
    /// The commit every merge up to which is promoted.
    public var commit: String
    /// When (ISO 8601), and the CI run that promoted it.
    public var at: String
    public var run: String?

    static let name = ".promoted.json"

    public init(commit: String, at: String, run: String?) {
        (self.commit, self.at, self.run) = (commit, at, run)
    }

    /// The record and its ETag, nil when develop has none (a first run, a store an earlier
    /// version wrote); `problem` says why it could not be read (the run then compares as before).
    public struct Read: Sendable {
        public var record: PromotedHead?
        public var etag: String?
        public var problem: String?

        public init(record: PromotedHead? = nil, etag: String? = nil, problem: String? = nil) {
            (self.record, self.etag, self.problem) = (record, etag, problem)
        }
    }

    public static func read(develop: StoreLocation) async -> Read {
        do {
            let key = try ObjectKey(name).under(develop.prefix)
            let found: (data: Data, etag: String)?
            if let shared = develop.store as? any SharedStore {
                found = try await shared.get(key)
            } else {
                found = nil
            }
            guard let found else { return Read() }
            guard let record = try? JSONDecoder().decode(PromotedHead.self, from: found.data),
                record.commit.count == 40, record.commit.allSatisfy(\.isHexDigit)
            else {
                return Read(problem: "\(develop.store.name): '\(key.rawValue)' is not a promotion record")
            }
            return Read(record: record, etag: found.etag)
        } catch {
            return Read(problem: "\(error)")
        }
    }

    /// Records `commit` as promoted after a completed promotion, unless develop's record already
    /// names it or a descendant (a later run finished first). Returns what it did, one line.
    public static func record(
        _ commit: String, develop: StoreLocation, history: CommitHistory, run: String? = CIContext().runID
    ) async throws -> String {
        guard let shared = develop.store as? any SharedStore else {
            return "develop's store keeps no promotion record (\(develop.store.name))"
        }
        let key = try ObjectKey(name).under(develop.prefix)
        let entry = PromotedHead(commit: commit, at: ISO8601DateFormatter().string(from: Date()), run: run)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(entry)
        for _ in 0..<5 {
            let current = await read(develop: develop)
            if let recorded = current.record?.commit {
                if recorded == commit { return "develop's record already names \(commit.prefix(12)) promoted" }
                if try history.isAncestor(commit, of: recorded) == true {
                    return "develop's record names a later promoted commit, \(recorded.prefix(12)): left as it is"
                }
            }
            let condition: WriteCondition = current.etag.map { .ifMatch(etag: $0) } ?? .ifAbsent
            switch await Self.put(data, to: key, in: shared, condition: condition) {
            case .success:
                return "recorded \(commit.prefix(12)) as develop's last promoted commit"
            case .failure(.preconditionFailed):
                continue  // another run wrote it meanwhile: read it again
            case .failure(.conditionalWritesUnsupported(_, let reason)):
                try await shared.put(data, to: key, condition: .always)
                return "recorded \(commit.prefix(12)) as develop's last promoted commit (unconditionally: the store "
                    + "cannot write conditionally, \(reason))"
            case .failure(let error):
                throw error
            }
        }
        return "develop's promotion record kept changing: not written (the next run compares from an earlier commit)"
    }

    private static func put(
        _ data: Data, to key: ObjectKey, in store: any SharedStore, condition: WriteCondition
    ) async -> Result<Void, StoreError> {
        do {
            try await store.put(data, to: key, condition: condition)
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
