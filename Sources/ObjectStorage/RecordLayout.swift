import Foundation

/// Where the tool keeps its own records of a reference store (pushes, candidates, review pages,
/// verdicts, the promotion ledger, timings, shared runs): not inside the reference prefix, beside
/// the team's `<Test>/<file>` references, but under one folder of their own beside that prefix,
/// split by the scope that wrote them, so a bucket policy can give each credential its own:
///
///     <parent>/.pipeline/<scope>/<store>/<record>
///
/// - `<parent>`: the folder holding the reference prefix (`team` of `team/feature`; the bucket's
///   root for `feature`; the parent folder of a folder store).
/// - `<scope>`: for feature's records, the writing job's trust scope (`pr/12`, `branch/develop`,
///   `local`, `run/<id>`, `tag/<name>`; a branch's or tag's `/` written `~`, so a scope is at most
///   two segments); for develop's, `develop`, which every job that promotes shares (its ledger and
///   last promoted commit); `migrated` for what `refs migrate` moved from an earlier layout.
/// - `<store>`: the reference prefix's last segment (`feature`), or the role for a bucket's root.
/// - `<record>`: the record's key as earlier versions kept it below the reference prefix
///   (`.pushes/<commit>/<Test>/<file>`, `ios17/.candidates/…`, `pipeline-timings.json`).
public struct RecordLayout: Sendable {
    /// The records' folder, beside the reference prefixes.
    public static let folder = ".pipeline"
    /// The scope of develop's own records.
    public static let developScope = "develop"
    /// The scope `refs migrate` moves feature's records of an earlier layout to: who wrote them is
    /// not known.
    public static let migratedScope = "migrated"
    /// The scopes that are one segment; every other scope is a kind and a name (`pr/12`).
    static let singleScopes: Set<String> = ["local", developScope, migratedScope]

    /// The records' first segments below a reference prefix (or an environment's set in it).
    public static let kinds: Set<String> = [
        ".pushes", ".push-records", ".push-removals", ".changes", ".candidates", ".reviews", ".verdicts",
        ".promotions", ".promoting", ".promoted.json", "pipeline-runs", "pipeline-timings.json",
        "pipeline-impact.json", ".history",
    ]

    /// The reference prefix, in the reference store (nil: its root).
    let referencePrefix: ObjectKey?
    /// The store `.pipeline/` is in, and its key there.
    let records: any SharedStore
    let root: ObjectKey
    /// The reference prefix's name below each scope.
    let side: String
    /// The scope this job writes, as a folder (`pr/12`).
    public let scope: String
    /// Whether reads look in every scope (feature's records, which each job writes in its own)
    /// rather than this one alone (develop's, which have one scope).
    let searches: Bool

    /// The layout of the records of the reference store `store` at `prefix`, for `role`
    /// (`feature`, `develop`); `scope` is the writer's trust scope (`TrustScope.folder`), ignored
    /// for develop, whose records have one scope. `sibling` is the other role's reference prefix
    /// in the same store (its key; for a folder store, its folder's path): where the two are one
    /// layout nested deeper than one folder below the one they share (`ios/feature/__Snapshots__` and
    /// `ios/develop/__Snapshots__`), the records go in that shared folder (`ios/.pipeline/…`,
    /// their store named `feature~__Snapshots__`), so nothing of the tool's is below either
    /// role's top folder, which a team's own scripts may copy whole.
    public init(
        store: any SharedStore, prefix: ObjectKey?, role: String, scope: String, sibling: String? = nil
    ) throws(StoreError) {
        referencePrefix = prefix
        func segments(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }
        if let prefix {
            let placed = Self.placement(of: segments(prefix.rawValue), beside: sibling.map(segments))
            records = store
            side = placed.side.isEmpty ? role : placed.side
            root = try ObjectKey(Self.folder).under(
                placed.parent.isEmpty ? nil : try ObjectKey(placed.parent.joined(separator: "/")))
        } else if let folder = store as? FolderStore {
            let own = folder.root.standardizedFileURL.path
            let placed = Self.placement(of: segments(own), beside: sibling.map(segments))
            guard !placed.parent.isEmpty else {
                throw .io(
                    path: folder.root.path,
                    reason: "a reference store at the file system's root has no folder beside it for its records")
            }
            records = FolderStore(root: URL(fileURLWithPath: "/" + placed.parent.joined(separator: "/")))
            side = placed.side
            root = try ObjectKey(Self.folder)
        } else {
            records = store
            side = role
            root = try ObjectKey(Self.folder)
        }
        let developSide = role == "develop"
        self.scope = developSide ? Self.developScope : Self.flatten(scope)
        searches = !developSide
    }

    /// The folder a reference prefix's records go in (`parent`, its segments) and the prefix's
    /// name there (`side`): its own parent and last segment, unless it and `sibling` are one
    /// layout nested deeper (the same depth, apart in one segment above the last); then the folder
    /// they share, and the segments below it joined by `~` (git refuses `~` in a name, and so no
    /// two sides share a folder).
    static func placement(of own: [String], beside sibling: [String]?) -> (parent: [String], side: String) {
        let parent = Array(own.dropLast())
        let side = own.last ?? ""
        guard let sibling else { return (parent, side) }
        let common = zip(own, sibling).prefix { $0 == $1 }.count
        // One layout, the role's folder a level above the references' (`ios/<role>/__Snapshots__`):
        // the same depth, one segment apart. Two unrelated folders (`/tmp/a/feature`,
        // `/tmp/b/develop`) keep their own parents.
        guard common < parent.count, own.count == sibling.count, own[(common + 1)...] == sibling[(common + 1)...]
        else { return (parent, side) }
        return (Array(own[..<common]), own[common...].joined(separator: "~"))
    }

    /// A trust scope's folder as at most two segments: `branch/release/1.2` is `branch/release~1.2`
    /// (git refuses `~` in a branch's or tag's name, so no two scopes share a folder).
    static func flatten(_ scope: String) -> String {
        guard let slash = scope.firstIndex(of: "/") else { return scope }
        return String(scope[..<slash]) + "/"
            + scope[scope.index(after: slash)...].replacingOccurrences(of: "/", with: "~")
    }

    /// `key`'s part from the reference prefix on when it is a record (`.pushes/<commit>/…`,
    /// `ios17/.candidates/…`), else nil: a reference, or the prefix itself or above it.
    func record(_ key: ObjectKey) -> String? {
        let rest: String
        if let referencePrefix {
            guard let relative = key.relative(to: referencePrefix) else { return nil }
            rest = relative.rawValue
        } else {
            rest = key.rawValue
        }
        let segments = rest.split(separator: "/")
        guard let kind = segments.firstIndex(where: { Self.kinds.contains(String($0)) }),
            segments[..<kind].allSatisfy({ !$0.hasPrefix(".") })
        else { return nil }
        return rest
    }

    /// Where `scope` keeps `record` (a key's part from the reference prefix on).
    func key(_ record: String, in scope: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(scope)/\(side)/\(record)").under(root)
    }

    /// The folder of `scope`'s records of this store, in `records`.
    func folder(of scope: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(scope)/\(side)").under(root)
    }

    /// The reference store's key of `record`, as an earlier layout kept it.
    func earlierKey(_ record: String) throws(StoreError) -> ObjectKey {
        try ObjectKey(record).under(referencePrefix)
    }

    /// The scopes that hold records of this store: this job's own first, then branches', the
    /// machine's and migrated records, then the rest (pull requests', runs', tags'). Develop's
    /// records have one scope.
    func scopes() async throws(StoreError) -> [String] {
        guard searches else { return [scope] }
        var found: [String] = []
        for first in try await records.folders(under: root) {
            if Self.singleScopes.contains(first) {
                found.append(first)
            } else {
                for name in try await records.folders(under: try ObjectKey(first).under(root)) {
                    found.append(first + "/" + name)
                }
            }
        }
        func rank(_ scope: String) -> Int {
            if scope == self.scope { return 0 }
            if scope.hasPrefix("branch/") { return 1 }
            if scope == "local" { return 2 }
            if scope == Self.migratedScope { return 3 }
            return 4
        }
        let others = found.filter { $0 != Self.developScope && $0 != scope }
        return [scope] + others.sorted { (rank($0), $0) < (rank($1), $1) }
    }
}
