import CLibgit2

/// Owns one libgit2 object and frees it exactly once, when the owner goes away; it also holds
/// what the object points into or reads later (the repository a commit came from, the buffers a
/// patch was made of), released only after the object is freed.
///
/// The pointer is reachable only inside `with`, while the owner is alive: a pointer libgit2
/// returns into the object (a blob's content, an entry's id, a name) is copied out there, or
/// kept by a value that holds this owner too (`RawEntry`). The pointer never leaves this library.
final class Owned {
    private let pointer: OpaquePointer
    private let free: (OpaquePointer) -> Void
    private let keeping: [AnyObject]

    init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer) -> Void, keeping: [AnyObject] = []) {
        self.pointer = pointer
        self.free = free
        self.keeping = keeping
    }

    deinit {
        free(pointer)
    }

    /// `body` given the object, which (with what it keeps) stays alive until `body` returns.
    func with<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}

/// Bytes copied into memory of their own, for a libgit2 object that keeps pointing at what it was
/// given (`git_patch_from_buffers`): kept by that object's owner, freed after it.
final class CopiedBytes {
    let start: UnsafeMutableRawPointer
    let count: Int

    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        start = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        UnsafeMutableRawBufferPointer(start: start, count: count).copyBytes(from: bytes)
    }

    /// `text` and its terminating NUL.
    convenience init(cString text: String) {
        self.init(text.utf8CString.map { UInt8(bitPattern: $0) })
    }

    var cString: UnsafePointer<CChar> { UnsafePointer(start.assumingMemoryBound(to: CChar.self)) }

    deinit {
        start.deallocate()
    }
}

/// An open repository.
final class Repository {
    let handle: Owned
    /// The folder shown in messages: the work tree, or the git folder of a bare repository.
    let displayPath: String

    init(discoveringFrom path: String) throws(GitError) {
        try LibGit2Runtime.ensureInitialized()
        var repository: OpaquePointer?
        let result = git_repository_open_ext(&repository, path, 0, nil)
        if result < 0 {
            // libgit2 1.5 reports a repository owned by another user as a missing 'safe.directory' config value.
            let (_, message) = LibGit2Runtime.lastError()
            if result == GIT_EOWNER.rawValue || message.contains("safe.directory") || message.contains("owned by") {
                throw .notOwned(path: path)
            }
            if result == GIT_ENOTFOUND.rawValue {
                throw .notARepository(path: path)
            }
        }
        try LibGit2Runtime.check(result, "opening the repository at \(path)")
        guard let repository else { throw .notARepository(path: path) }
        handle = Owned(repository, free: git_repository_free)
        let (workdir, gitdir) = handle.with { repository in
            (
                git_repository_workdir(repository).map { String(cString: $0) },
                git_repository_path(repository).map { String(cString: $0) } ?? path
            )
        }
        // Trailing slashes dropped in place (reversed views make the runtime look up their generic
        // conformances, slow in a binary this size).
        var display = workdir ?? gitdir
        while display.hasSuffix("/") { display.removeLast() }
        displayPath = display
        shallowHistory = ShallowHistory(workTree: display)
    }

    var isShallow: Bool { handle.with { git_repository_is_shallow($0) } == 1 }

    /// The history a shallow clone lacks, fetched once when a question needs it.
    private var shallowHistory: ShallowHistory

    /// Fetches the rest of a shallow clone's history because `missing` is not in it; true when
    /// the question should be asked again.
    func deepen(missing: @autoclosure () -> String) -> Bool {
        guard isShallow else { return false }
        return shallowHistory.deepen(missing: missing())
    }

    /// The error for history this clone lacks, with why fetching it failed.
    func shallowClone(missing: String) -> GitError {
        .shallowClone(
            missing: missing + (shallowHistory.failure.map { " (fetching it from origin failed: \($0))" } ?? ""))
    }

    /// The commit a revision names (`HEAD~2`, `origin/develop`, a tag, a short SHA).
    func commit(_ revision: String) throws(GitError) -> Commit {
        var object: OpaquePointer?
        var result = handle.with { git_revparse_single(&object, $0, revision) }
        // A commit named by its full id that a shallow clone has not fetched: fetch, then ask again.
        if result == GIT_ENOTFOUND.rawValue, Self.isFullID(revision), deepen(missing: "commit \(revision.prefix(12))") {
            result = handle.with { git_revparse_single(&object, $0, revision) }
        }
        if result < 0 {
            let (_, message) = LibGit2Runtime.lastError()
            if revision == "HEAD", handle.with({ git_repository_head_unborn($0) }) == 1 {
                throw .noCommits(path: displayPath)
            }
            if result == GIT_ENOTFOUND.rawValue || result == GIT_EAMBIGUOUS.rawValue
                || result == GIT_EINVALIDSPEC.rawValue
            {
                throw .unknownRevision(revision, reason: message)
            }
            try LibGit2Runtime.check(result, "reading revision '\(revision)'")
        }
        guard let object else { throw .unknownRevision(revision, reason: "no object") }
        let owned = Owned(object, free: git_object_free, keeping: [handle])
        var peeled: OpaquePointer?
        let peel = owned.with { git_object_peel(&peeled, $0, GIT_OBJECT_COMMIT) }
        if peel < 0 {
            let (_, message) = LibGit2Runtime.lastError()
            throw .unknownRevision(revision, reason: "it does not name a commit (\(message))")
        }
        guard let peeled else { throw .unknownRevision(revision, reason: "no commit") }
        return Commit(Owned(peeled, free: git_object_free, keeping: [handle]))
    }

    static func isFullID(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The tree `id` names; `path` names it in messages (and is only made for one).
    func tree(_ id: UnsafePointer<git_oid>, named path: @autoclosure () -> String) throws(GitError) -> Tree {
        var tree: OpaquePointer?
        try LibGit2Runtime.check(handle.with { git_tree_lookup(&tree, $0, id) }, "reading folder '\(path())'")
        guard let tree else {
            throw .libgit2(operation: "reading folder '\(path())'", code: -1, errorClass: 0, message: "no tree")
        }
        return Tree(Owned(tree, free: git_tree_free, keeping: [handle]))
    }

    /// The contents of the blob `id` names; `path` names it in messages.
    func blob(_ id: UnsafePointer<git_oid>, named path: String) throws(GitError) -> [UInt8] {
        var blob: OpaquePointer?
        try LibGit2Runtime.check(handle.with { git_blob_lookup(&blob, $0, id) }, "reading '\(path)'")
        guard let blob else {
            throw .libgit2(operation: "reading '\(path)'", code: -1, errorClass: 0, message: "no blob")
        }
        return Owned(blob, free: git_blob_free, keeping: [handle]).with { blob in
            let size = Int(git_blob_rawsize(blob))
            guard size > 0, let start = git_blob_rawcontent(blob) else { return [] }
            return Array(UnsafeRawBufferPointer(start: start, count: size))  // copied while the blob is alive
        }
    }

    /// The best common ancestor of two commits.
    func mergeBase(_ first: Commit, _ second: Commit, names: (String, String)) throws(GitError) -> Commit {
        var oid = git_oid()
        var firstID = first.oid
        var secondID = second.oid
        let missing = "the merge base of '\(names.0)' and '\(names.1)'"
        var result = handle.with { git_merge_base(&oid, $0, &firstID, &secondID) }
        if result < 0, deepen(missing: missing) {
            result = handle.with { git_merge_base(&oid, $0, &firstID, &secondID) }
        }
        if result == GIT_ENOTFOUND.rawValue {
            if isShallow { throw shallowClone(missing: missing) }
            throw .noMergeBase(names.0, names.1)
        }
        if result < 0, isShallow { throw shallowClone(missing: missing) }
        try LibGit2Runtime.check(result, "finding the merge base of '\(names.0)' and '\(names.1)'")
        return try commit(Commit.hex(oid))
    }
}

/// A commit of an open repository (its handle keeps the repository open).
final class Commit {
    let handle: Owned

    init(_ handle: Owned) {
        self.handle = handle
    }

    var oid: git_oid { handle.with { git_commit_id($0).pointee } }

    /// The full hexadecimal SHA.
    var sha: String { Self.hex(oid) }

    var parentCount: Int { Int(handle.with { git_commit_parentcount($0) }) }

    /// The committer's time, in seconds since 1970.
    var time: Int64 { handle.with { git_commit_time($0) } }

    /// The full SHA of the parent at `index`, read from the commit itself (a shallow clone that
    /// lacks the parent knows its id too); nil past the last parent.
    func parentSHA(_ index: Int) -> String? {
        handle.with { git_commit_parent_id($0, UInt32(index)).map { Self.hex($0.pointee) } }
    }

    /// The parent at `index`. A shallow clone lists parents it does not have: with `fetching`, the
    /// clone's history is fetched then; without, the lack is thrown (`shallowClone`).
    func parent(_ index: Int, in repository: Repository, fetching: Bool = true) throws(GitError) -> Commit {
        var parent: OpaquePointer?
        let missing = "parent \(index + 1) of commit \(sha.prefix(12))"
        var result = handle.with { git_commit_parent(&parent, $0, UInt32(index)) }
        if result < 0, fetching, repository.deepen(missing: missing) {
            result = handle.with { git_commit_parent(&parent, $0, UInt32(index)) }
        }
        if result < 0, repository.isShallow || result == GIT_ENOTFOUND.rawValue {
            throw repository.shallowClone(missing: missing)
        }
        try LibGit2Runtime.check(result, "reading \(missing)")
        guard let parent else { throw repository.shallowClone(missing: missing) }
        return Commit(Owned(parent, free: git_commit_free, keeping: [repository.handle]))
    }

    func tree() throws(GitError) -> Tree {
        var tree: OpaquePointer?
        try LibGit2Runtime.check(
            handle.with { git_commit_tree(&tree, $0) }, "reading the tree of commit \(sha.prefix(12))")
        guard let tree else { throw .libgit2(operation: "reading a tree", code: -1, errorClass: 0, message: "no tree") }
        return Tree(Owned(tree, free: git_tree_free, keeping: [handle]))
    }

    static func hex(_ oid: git_oid) -> String {
        withUnsafeBytes(of: oid.id) { bytes in
            bytes.map { byte in
                let digits = Array("0123456789abcdef".utf8)
                return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
            }.joined()
        }
    }
}

/// A tree of an open repository (its handle keeps the repository open).
final class Tree {
    let handle: Owned

    init(_ handle: Owned) {
        self.handle = handle
    }

    /// The tree's own id.
    var id: String { handle.with { Commit.hex(git_object_id($0).pointee) } }

    /// How many entries the tree has.
    var count: Int { handle.with { git_tree_entrycount($0) } }

    /// The entry at `index` (below `count`), which keeps the tree alive for as long as it is kept.
    func entry(at index: Int) throws(GitError) -> RawEntry {
        try handle.with { (tree) throws(GitError) in try RawEntry(git_tree_entry_byindex(tree, index), of: handle) }
    }

    /// The folder at `path` below this tree; nil when there is none (or a file is there).
    func folder(at path: String, in repository: Repository) throws(GitError) -> Tree? {
        guard var id = try entry(at: path, of: GIT_OBJECT_TREE) else { return nil }
        return try repository.tree(&id, named: path)
    }

    /// The contents of the file at `path` below this tree; nil when there is none (or a folder is there).
    func file(at path: String, in repository: Repository) throws(GitError) -> [UInt8]? {
        guard var id = try entry(at: path, of: GIT_OBJECT_BLOB) else { return nil }
        return try repository.blob(&id, named: path)
    }

    /// The id of the entry at `path` below this tree when it is of `type`; nil when there is none.
    private func entry(at path: String, of type: git_object_t) throws(GitError) -> git_oid? {
        var entry: OpaquePointer?
        let result = handle.with { git_tree_entry_bypath(&entry, $0, path) }
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try LibGit2Runtime.check(result, "finding '\(path)'")
        guard let entry else { return nil }
        return Owned(entry, free: git_tree_entry_free).with { entry in
            guard git_tree_entry_type(entry) == type, let id = git_tree_entry_id(entry) else { return nil }
            return id.pointee  // a copy: the entry, which holds the id, is freed with its owner
        }
    }

    /// Every file below this tree, path → contents, read from the object database.
    func files(in repository: Repository, prefix: String = "") throws(GitError) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for index in 0..<count {
            let entry = try entry(at: index)
            let path = prefix + String(decoding: entry.name, as: UTF8.self)
            if entry.isTree {
                files.merge(
                    try repository.tree(entry.id, named: path).files(in: repository, prefix: path + "/")
                ) { $1 }
            } else if entry.mode != GIT_FILEMODE_COMMIT.rawValue {
                files[path] = try repository.blob(entry.id, named: path)
            }
        }
        return files
    }
}
