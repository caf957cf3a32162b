import CISystem
import Foundation
import ObjectStorage

/// A package's build tree kept in the team's store, under the key of everything that makes it
/// unusable elsewhere, by commit and by who kept it: after a build it is saved in the job's trust
/// scope; before one, the entry of the nearest ancestor commit with the same key is restored from
/// the scopes the job trusts (a pull request's own and its base branch's; a branch's own), and the
/// build decides what to compile by content (`hashingFlags`), so unchanged files are not
/// recompiled and changed ones always are. What a restored tree may hold is `RestoredTree`'s to say.
///
/// A fresh checkout gives every file a new modification time; the entry keeps the times the build
/// saw (`SourceStamps`), put back on the files whose content is unchanged, so the build compiles
/// what changed and only that, as the original checkout would.
///
/// In the store, below each scope's folder (`pr/12`, `branch/develop`: `TrustScope.folder`):
/// `keys/<key hash>.json` (what the key is made of, for a miss to say what differs),
/// `<key hash>/pending/<commit>.<save>` (a save under way: written first, removed last),
/// `<key hash>/parts/<commit>/<save>/part-*` (the compressed tar) and
/// `<key hash>/entries/<commit>/<save>.json` (the entry's record, written after its parts).
public struct BuildCache: Sendable {
    public let key: BuildCacheKey
    public let package: URL
    public let scope: TrustScope
    /// The scope's own folder: where this job writes.
    let trees: KeptTrees
    /// The folders this job reads, its own first.
    let readable: [(scope: String, trees: KeptTrees)]
    /// The whole location, to say what a miss left unread.
    let location: KeptTrees
    /// Entries kept per key and scope.
    public var keep = 3
    /// How far back an entry is looked for.
    public static let ancestorLimit = 200
    /// What makes the build decide by content, not modification time: a fresh clone gives every
    /// file a new one. Part of every build that uses the cache (and so of its key).
    public static let hashingFlags = ["-Xswiftc", "-enable-incremental-file-hashing"]
    /// What of the build folder is not kept: pipeline's own outputs, and what is never restored.
    static let excluded = [".build/pipeline"] + RestoredTree.leftOut.map { ".build/" + $0 }
    /// A save whose record never came (a killed save) is removed after this long.
    static let orphanAge: Double = 6 * 3600

    public init(
        folder: StoreLocation, key: BuildCacheKey, package: URL, variables: [String: String], scope: TrustScope
    ) throws(BuildCacheError) {
        self.key = key
        self.package = package
        self.scope = scope
        location = KeptTrees(folder: folder, variables: variables)
        do {
            trees = KeptTrees(folder: try folder.below(scope.folder), variables: variables)
            readable = try scope.readable.map { name throws(StoreError) in
                (name, KeptTrees(folder: try folder.below(name), variables: variables))
            }
        } catch {
            throw .store(error)
        }
    }

    public var storeName: String { location.folder.name }

    /// What a restore did.
    public enum Restore: Sendable, Equatable {
        /// With the scope it came from, the number of the package's files whose build-time stamps
        /// were put back (unchanged) and of those that changed since, and the nearer entries this
        /// job passed over because a scope it does not trust kept them (`<commit>'s, kept by pr/7`).
        case restored(
            KeptTree, scope: String, seconds: Double, unchanged: Int, changed: Int, passedOver: [String] = [])
        /// Nothing restored, and why (the build runs clean).
        case missed(String)
        /// The package holds a build already, which the build goes on from.
        case builtHere(String)
    }

    /// One entry of a scope's listing: `<commit>/<save>.json`.
    struct Entry: Hashable {
        let scope: String
        let commit: String
        let save: String
        var seconds: Double { KeptTrees.savedAt(save) ?? 0 }
        var record: String { "\(commit)/\(save).json" }

        init?(scope: String, _ path: Substring) {
            let parts = path.split(separator: "/")
            guard parts.count == 2, parts[1].hasSuffix(".json") else { return nil }
            (self.scope, commit, save) = (scope, String(parts[0]), String(parts[1].dropLast(".json".count)))
        }
    }

    /// Restores the entry of the first of `commits` (HEAD, then its ancestors, nearest first) the
    /// scopes this job trusts hold under this key, into the package's build folder, when
    /// `RestoredTree` finds it fit. Never throws: what went wrong is the reason nothing was restored.
    public func restore(commits: [String]) async -> Restore {
        let started = ContinuousClock.now
        let build = package.appendingPathComponent(".build")
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? []).filter {
            $0 != "pipeline"
        }
        guard present.isEmpty else {
            return .builtHere("\(build.path) holds a build already; building on it")
        }
        do {
            var trusted: [Entry] = []
            for (scope, folder) in readable {
                trusted += try await entries(in: folder, scope: scope)
            }
            let byCommit = Dictionary(grouping: trusted, by: \.commit)
            guard let commit = commits.first(where: { byCommit[$0] != nil }),
                let entry = byCommit[commit]?.max(by: { $0.seconds < $1.seconds }),
                let folder = readable.first(where: { $0.scope == entry.scope })?.trees
            else {
                return .missed(try await whyMissed(entries: trusted.count, commits: commits))
            }
            guard let tree = try await folder.record("\(key.hash)/entries/\(entry.record)") else {
                return .missed("the entry of \(commit.prefix(12)) went away while it was read")
            }
            let differences = key.differences(from: tree.key)
            guard differences.isEmpty else {
                return .missed(
                    "the entry of \(commit.prefix(12)) was built otherwise: " + differences.joined(separator: "; "))
            }
            if let refused = try await install(tree, from: folder, parts: "\(key.hash)/parts/\(tree.commit)") {
                return .missed("the entry of \(commit.prefix(12)) in \(entry.scope) is not restored: \(refused)")
            }
            let times = tree.sources?.apply(to: package) ?? (restored: 0, changed: 0)
            let seconds = (ContinuousClock.now - started).seconds
            var passedOver: [String] = []
            if let index = commits.firstIndex(of: commit), index > 0 {
                let untrusted = try await untrustedEntries()
                passedOver = commits[..<index].compactMap { nearer in
                    untrusted[nearer].map { "\(nearer.prefix(12))'s, kept by \($0)" }
                }
            }
            return .restored(
                tree, scope: entry.scope, seconds: seconds, unchanged: times.restored, changed: times.changed,
                passedOver: passedOver)
        } catch {
            return .missed("the build cache in \(storeName) could not be used: \(error)")
        }
    }

    /// Keeps the package's build tree as `commit`'s entry in this job's scope, unless the scope
    /// holds one already, then removes what retention lets go (this key's older entries in the
    /// scope, killed saves). Returns what it did, for the log.
    public func save(commit: String) async throws(BuildCacheError) -> String {
        if try await entries(in: trees, scope: scope.folder).contains(where: { $0.commit == commit }) {
            return "\(scope.folder) holds \(commit.prefix(12))'s build already"
        }
        let started = ContinuousClock.now
        let save = KeptTrees.newSave()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try await trees.write((try? encoder.encode(key)) ?? Data(), to: "keys/\(key.hash).json")
        let pending = "\(key.hash)/pending/\(commit).\(save)"
        try await trees.write(Data(), to: pending)
        let tree = try await trees.put(
            [".build"], of: package, excluding: Self.excluded, parts: "\(key.hash)/parts/\(commit)", save: save,
            record: "\(key.hash)/entries/\(commit)/\(save).json", commit: commit, branch: scope.folder, key: key,
            sources: SourceStamps.read(package))
        try await trees.delete(pending)
        let seconds = (ContinuousClock.now - started).seconds
        let removed = try await prune(keeping: save)
        return "kept \(commit.prefix(12))'s build in \(storeName), \(scope.folder): \(megabytes(tree.bytes)) in "
            + "\(tree.parts.count) part\(tree.parts.count == 1 ? "" : "s"), \(String(format: "%.1f", seconds)) s"
            + (removed > 0 ? "; \(removed) older entr\(removed == 1 ? "y" : "ies") removed" : "")
    }

    /// Removes this key's entries in this job's scope beyond the newest `keep` (the save just made,
    /// `current`, first: saves of one second are not told apart by time), and saves killed
    /// part-way (a pending mark older than `orphanAge`); the number of entries removed.
    func prune(keeping current: String) async throws(BuildCacheError) -> Int {
        let entries = try await entries(in: trees, scope: scope.folder)
        let old = entries.sorted { ($0.save == current ? 1 : 0, $0.seconds) > ($1.save == current ? 1 : 0, $1.seconds) }
            .dropFirst(keep)
        for entry in old {
            let tree = try await trees.record("\(key.hash)/entries/\(entry.record)")
            // The record first: parts without one are never restored.
            try await trees.delete("\(key.hash)/entries/\(entry.record)")
            for part in tree?.parts ?? [] {
                try await trees.delete("\(key.hash)/parts/\(entry.commit)/\(entry.save)/\(part.name)")
            }
        }
        let recorded = Set(entries.map(\.save)).subtracting(old.map(\.save))
        for name in try await trees.names(under: "\(key.hash)/pending") {
            let mark = name.split(separator: "/").last.map(String.init) ?? ""
            let parts = mark.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let saved = KeptTrees.savedAt(parts[1]),
                Date().timeIntervalSince1970 - saved > Self.orphanAge
            else { continue }
            if !recorded.contains(parts[1]) {
                try await trees.delete(under: "\(key.hash)/parts/\(parts[0])/\(parts[1])")
            }
            try await trees.delete(name)
        }
        return old.count
    }

    /// This key's entries in one scope's folder.
    func entries(in folder: KeptTrees, scope: String) async throws(BuildCacheError) -> [Entry] {
        let prefix = "\(key.hash)/entries/"
        return try await folder.names(under: "\(key.hash)/entries").compactMap { name in
            name.hasPrefix(prefix) ? Entry(scope: scope, name.dropFirst(prefix.count)) : nil
        }
    }

    /// Why no entry was restored: one of HEAD's ancestors kept in a scope this job does not trust;
    /// none of this key near HEAD; or the keys the trusted scopes hold and how the nearest differs.
    private func whyMissed(entries: Int, commits: [String]) async throws(BuildCacheError) -> String {
        let trust = readable.isEmpty ? "\(scope.folder) restores nothing kept" : scope.description
        let untrusted = try await untrustedEntries()
        if let nearest = commits.first(where: { untrusted[$0] != nil }), let owner = untrusted[nearest] {
            return "the nearest entry, \(nearest.prefix(12))'s, was kept by \(owner), which this job does not "
                + "trust (\(trust))"
        }
        if entries > 0 {
            return "the build cache holds \(entries) entr\(entries == 1 ? "y" : "ies") of this build's key in "
                + "\(readable.map(\.scope).joined(separator: ", ")), none of HEAD or its last \(Self.ancestorLimit) ancestors"
        }
        var nearest: [String]?
        for (_, folder) in readable {
            for name in try await folder.names(under: "keys").prefix(20) {
                guard let data = try await folder.read(name),
                    let other = try? JSONDecoder().decode(BuildCacheKey.self, from: data)
                else { continue }
                let differences = key.differences(from: other)
                if nearest == nil || differences.count < nearest!.count { nearest = differences }
            }
        }
        guard let nearest else {
            return readable.isEmpty ? trust : "the build cache in \(storeName) holds nothing for \(trust)"
        }
        return "the build cache's entries were built otherwise: " + nearest.joined(separator: "; ")
    }

    /// This key's entries in the scopes this job does not read, commit → scope: what it passed over.
    private func untrustedEntries() async throws(BuildCacheError) -> [String: String] {
        let marker = "/\(key.hash)/entries/"
        var untrusted: [String: String] = [:]
        for name in try await location.names(under: nil) {
            guard let range = name.range(of: marker) else { continue }
            let owner = String(name[..<range.lowerBound])
            guard !readable.contains(where: { $0.scope == owner }),
                let commit = name[range.upperBound...].split(separator: "/").first.map(String.init)
            else { continue }
            untrusted[commit] = owner
        }
        return untrusted
    }

    /// Unpacks `tree` beside the package, vets it (`RestoredTree`) and moves its build folder into
    /// place; what this run wrote to `.build/pipeline` stays. Returns why the tree is refused, if
    /// it is. A killed restore leaves a staging folder, never a half build folder.
    private func install(_ tree: KeptTree, from folder: KeptTrees, parts: String) async throws(BuildCacheError)
        -> String?
    {
        let staging = package.appendingPathComponent(".build-restoring-\(UUID().uuidString.prefix(8))")
        try KeptTrees.create(staging)
        defer { try? FileManager.default.removeItem(at: staging) }
        try await folder.fetch(tree, parts: parts, into: staging)
        let staged = staging.appendingPathComponent(".build")
        let build = package.appendingPathComponent(".build")
        if let refused = RestoredTree(build: staged, destination: build, pins: key.pins).vet() { return refused }
        let manager = FileManager.default
        do {
            if manager.fileExists(atPath: build.appendingPathComponent("pipeline").path) {
                try? manager.removeItem(at: staged.appendingPathComponent("pipeline"))
                try manager.moveItem(
                    at: build.appendingPathComponent("pipeline"), to: staged.appendingPathComponent("pipeline"))
            }
            if manager.fileExists(atPath: build.path) { try manager.removeItem(at: build) }
            try manager.moveItem(at: staged, to: build)
        } catch {
            throw .io(path: build.path, reason: "the restored build could not be moved into place: \(error)")
        }
        await KillPoints.passed("build cache: restored")
        return nil
    }

    /// Leftover staging folders of killed restores.
    public func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []
        for name in names where name.hasPrefix(".build-restoring-") {
            try? FileManager.default.removeItem(at: package.appendingPathComponent(name))
        }
    }
}

func megabytes(_ bytes: Int64) -> String {
    String(format: "%.1f MB", Double(bytes) / 1_000_000)
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
