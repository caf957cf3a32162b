import CLibgit2

/// Pairs deleted files with added ones as renames, as `git diff -M` does, looking only at the files
/// a tree walk found added or deleted: identical content first (preferring the same file name),
/// then content at least `threshold`% similar, best pairs first.
struct RenameDetector {
    /// git's default similarity for a rename, in percent.
    var threshold: Int32 = 50
    /// Like git's `diff.renameLimit`: past this many additions × deletions (squared), only identical
    /// content is paired, because comparing every pair would cost more than it tells.
    var limit = 1000

    let repository: Repository

    func files(from changes: [TreeChange]) throws(GitError) -> [ChangedFile] {
        var added: [Int] = []
        var deleted: [Int] = []
        for (index, change) in changes.enumerated() {
            if let new = change.new, change.old == nil, !new.isSubmodule { added.append(index) }
            if let old = change.old, change.new == nil, !old.isSubmodule { deleted.append(index) }
        }
        var pairs: [Int: Int] = [:]  // added index → deleted index
        if !added.isEmpty && !deleted.isEmpty {
            pairs = identical(added, deleted, in: changes)
            let unpairedAdded = added.filter { pairs[$0] == nil }
            let used = Set(pairs.values)
            let unpairedDeleted = deleted.filter { !used.contains($0) }
            if unpairedAdded.count * unpairedDeleted.count <= limit * limit {
                try similar(unpairedAdded, unpairedDeleted, in: changes).forEach { pairs[$0] = $1 }
            }
        }
        let renamedAway = Set(pairs.values)
        var files: [ChangedFile] = []
        files.reserveCapacity(changes.count - renamedAway.count)
        for (index, change) in changes.enumerated() where !renamedAway.contains(index) {
            files.append(Self.file(change, renamedFrom: pairs[index].map { changes[$0].path }))
        }
        return files  // still in the walk's path order: a rename sits where its new path was added
    }

    static func file(_ change: TreeChange, renamedFrom oldPath: String? = nil) -> ChangedFile {
        let submodule = change.old?.isSubmodule == true || change.new?.isSubmodule == true
        if let oldPath {
            return ChangedFile(path: change.path, status: .renamed, oldPath: oldPath, submodule: submodule)
        }
        let status: ChangeStatus = change.old == nil ? .added : change.new == nil ? .deleted : .modified
        return ChangedFile(path: change.path, status: status, submodule: submodule)
    }

    /// Renames whose content is unchanged: the same blob id and kind of file.
    private func identical(_ added: [Int], _ deleted: [Int], in changes: [TreeChange]) -> [Int: Int] {
        var byContent: [ObjectKey: [Int]] = [:]
        for index in deleted { byContent[ObjectKey(changes[index].old!), default: []].append(index) }
        var pairs: [Int: Int] = [:]
        for index in added {
            let key = ObjectKey(changes[index].new!)
            guard let candidates = byContent[key], !candidates.isEmpty else { continue }
            let name = Self.fileName(changes[index].path)
            let chosen = candidates.firstIndex { Self.fileName(changes[$0].path) == name } ?? 0
            pairs[index] = candidates[chosen]
            byContent[key]!.remove(at: chosen)
        }
        return pairs
    }

    /// Renames with edits: every pair of similar size is scored by content signature, and the best
    /// pairs are taken first (a file in one pair only).
    private func similar(_ added: [Int], _ deleted: [Int], in changes: [TreeChange]) throws(GitError) -> [Int: Int] {
        guard !added.isEmpty, !deleted.isEmpty else { return [:] }
        let addedSignatures = try added.map { (index) throws(GitError) in try signature(changes[index].new!) }
        let deletedSignatures = try deleted.map { (index) throws(GitError) in try signature(changes[index].old!) }
        var candidates: [(score: Int32, sameName: Bool, added: Int, deleted: Int)] = []
        for (a, addedSignature) in addedSignatures.enumerated() {
            guard let addedSignature else { continue }
            let kind = changes[added[a]].new!.mode
            for (d, deletedSignature) in deletedSignatures.enumerated() {
                guard let deletedSignature, changes[deleted[d]].old!.mode == kind,
                    addedSignature.similarSize(to: deletedSignature, threshold: threshold)
                else { continue }
                let score = addedSignature.similarity(to: deletedSignature)
                guard score >= threshold else { continue }
                let sameName = Self.fileName(changes[added[a]].path) == Self.fileName(changes[deleted[d]].path)
                candidates.append((score, sameName, added[a], deleted[d]))
            }
        }
        candidates.sort {
            ($0.score, $0.sameName ? 1 : 0, -$0.added, -$0.deleted) > (
                $1.score, $1.sameName ? 1 : 0, -$1.added, -$1.deleted
            )
        }
        var pairs: [Int: Int] = [:]
        var used: Set<Int> = []
        for candidate in candidates where pairs[candidate.added] == nil && !used.contains(candidate.deleted) {
            pairs[candidate.added] = candidate.deleted
            used.insert(candidate.deleted)
        }
        return pairs
    }

    /// The content signature of a blob, or nil when libgit2 cannot sign it (no content to compare).
    private func signature(_ entry: TreeEntry) throws(GitError) -> ContentSignature? {
        var id = entry.id
        var blob: OpaquePointer?
        try LibGit2Runtime.check(
            repository.handle.with { git_blob_lookup(&blob, $0, &id) }, "reading a file's content")
        guard let blob else { return nil }
        // libgit2 reads the content while it signs it, and keeps nothing of it after.
        return try Owned(blob, free: git_blob_free, keeping: [repository.handle]).with {
            (blob) throws(GitError) in
            try ContentSignature(git_blob_rawcontent(blob), size: Int(git_blob_rawsize(blob)))
        }
    }

    private static func fileName(_ path: String) -> Substring {
        path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path[...]
    }
}

/// A blob id and file mode, usable as a dictionary key.
fileprivate struct ObjectKey: Hashable {
    let id: [UInt8]
    let mode: UInt32

    init(_ entry: TreeEntry) {
        id = withUnsafeBytes(of: entry.id.id) { Array($0) }
        mode = entry.mode
    }
}

/// Owns one libgit2 content signature (`git_hashsig`), as git's rename detection uses.
final class ContentSignature {
    private let pointer: OpaquePointer
    let size: Int

    /// Nil when the content is too short to sign.
    init?(_ content: UnsafeRawPointer?, size: Int) throws(GitError) {
        guard let content, size > 0 else { return nil }
        var signature: OpaquePointer?
        let options = git_hashsig_option_t(
            GIT_HASHSIG_SMART_WHITESPACE.rawValue | GIT_HASHSIG_ALLOW_SMALL_FILES.rawValue)
        let result = git_hashsig_create(&signature, content.assumingMemoryBound(to: CChar.self), size, options)
        if result == GIT_EBUFS.rawValue { return nil }
        try LibGit2Runtime.check(result, "comparing file contents for renames")
        guard let signature else { return nil }
        pointer = signature
        self.size = size
    }

    deinit {
        git_hashsig_free(pointer)
    }

    /// Whether the sizes are close enough for the contents to reach `threshold`% similarity.
    func similarSize(to other: ContentSignature, threshold: Int32) -> Bool {
        let (small, large) = size < other.size ? (size, other.size) : (other.size, size)
        return small * 100 >= large * Int(threshold)
    }

    /// 0 (nothing shared) to 100 (the same content).
    func similarity(to other: ContentSignature) -> Int32 {
        max(0, git_hashsig_compare(pointer, other.pointer))
    }
}
