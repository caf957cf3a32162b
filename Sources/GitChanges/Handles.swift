import CLibgit2

/// Owns one libgit2 object and frees it exactly once, when the owner goes away.
/// The pointer never leaves this library.
final class Owned {
    let pointer: OpaquePointer
    private let free: (OpaquePointer) -> Void

    init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer) -> Void) {
        self.pointer = pointer
        self.free = free
    }

    deinit {
        free(pointer)
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
        let workdir = git_repository_workdir(repository).map { String(cString: $0) }
        let gitdir = git_repository_path(repository).map { String(cString: $0) } ?? path
        // Trailing slashes dropped in place (reversed views make the runtime look up their generic
        // conformances, slow in a binary this size).
        var display = workdir ?? gitdir
        while display.hasSuffix("/") { display.removeLast() }
        displayPath = display
        shallowHistory = ShallowHistory(workTree: display)
    }

    var isShallow: Bool { git_repository_is_shallow(handle.pointer) == 1 }

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
        var result = git_revparse_single(&object, handle.pointer, revision)
        // A commit named by its full id that a shallow clone has not fetched: fetch, then ask again.
        if result == GIT_ENOTFOUND.rawValue, Self.isFullID(revision), deepen(missing: "commit \(revision.prefix(12))") {
            result = git_revparse_single(&object, handle.pointer, revision)
        }
        if result < 0 {
            let (_, message) = LibGit2Runtime.lastError()
            if revision == "HEAD", git_repository_head_unborn(handle.pointer) == 1 {
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
        let owned = Owned(object, free: git_object_free)
        var peeled: OpaquePointer?
        let peel = git_object_peel(&peeled, owned.pointer, GIT_OBJECT_COMMIT)
        if peel < 0 {
            let (_, message) = LibGit2Runtime.lastError()
            throw .unknownRevision(revision, reason: "it does not name a commit (\(message))")
        }
        guard let peeled else { throw .unknownRevision(revision, reason: "no commit") }
        return Commit(Owned(peeled, free: git_object_free))
    }

    static func isFullID(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The tree `id` names; `path` names it in messages (and is only made for one).
    func tree(_ id: UnsafePointer<git_oid>, named path: @autoclosure () -> String) throws(GitError) -> Tree {
        var tree: OpaquePointer?
        try LibGit2Runtime.check(git_tree_lookup(&tree, handle.pointer, id), "reading folder '\(path())'")
        guard let tree else {
            throw .libgit2(operation: "reading folder '\(path())'", code: -1, errorClass: 0, message: "no tree")
        }
        return Tree(Owned(tree, free: git_tree_free))
    }

    /// The contents of the blob `id` names; `path` names it in messages.
    func blob(_ id: UnsafePointer<git_oid>, named path: String) throws(GitError) -> [UInt8] {
        var blob: OpaquePointer?
        try LibGit2Runtime.check(git_blob_lookup(&blob, handle.pointer, id), "reading '\(path)'")
        guard let blob else {
            throw .libgit2(operation: "reading '\(path)'", code: -1, errorClass: 0, message: "no blob")
        }
        let owned = Owned(blob, free: git_blob_free)
        let size = Int(git_blob_rawsize(owned.pointer))
        guard size > 0, let start = git_blob_rawcontent(owned.pointer) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: size))
    }

    /// The best common ancestor of two commits.
    func mergeBase(_ first: Commit, _ second: Commit, names: (String, String)) throws(GitError) -> Commit {
        var oid = git_oid()
        var firstID = first.oid
        var secondID = second.oid
        let missing = "the merge base of '\(names.0)' and '\(names.1)'"
        var result = git_merge_base(&oid, handle.pointer, &firstID, &secondID)
        if result < 0, deepen(missing: missing) {
            result = git_merge_base(&oid, handle.pointer, &firstID, &secondID)
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

/// A commit of an open repository.
final class Commit {
    let handle: Owned

    init(_ handle: Owned) {
        self.handle = handle
    }

    var oid: git_oid { git_commit_id(handle.pointer).pointee }

    /// The full hexadecimal SHA.
    var sha: String { Self.hex(oid) }

    var parentCount: Int { Int(git_commit_parentcount(handle.pointer)) }

    /// The committer's time, in seconds since 1970.
    var time: Int64 { git_commit_time(handle.pointer) }

    /// The parent at `index`. A shallow clone lists parents it does not have: with `fetching`, the
    /// clone's history is fetched then; without, the lack is thrown (`shallowClone`).
    func parent(_ index: Int, in repository: Repository, fetching: Bool = true) throws(GitError) -> Commit {
        var parent: OpaquePointer?
        let missing = "parent \(index + 1) of commit \(sha.prefix(12))"
        var result = git_commit_parent(&parent, handle.pointer, UInt32(index))
        if result < 0, fetching, repository.deepen(missing: missing) {
            result = git_commit_parent(&parent, handle.pointer, UInt32(index))
        }
        if result < 0, repository.isShallow || result == GIT_ENOTFOUND.rawValue {
            throw repository.shallowClone(missing: missing)
        }
        try LibGit2Runtime.check(result, "reading \(missing)")
        guard let parent else { throw repository.shallowClone(missing: missing) }
        return Commit(Owned(parent, free: git_commit_free))
    }

    func tree() throws(GitError) -> Tree {
        var tree: OpaquePointer?
        try LibGit2Runtime.check(git_commit_tree(&tree, handle.pointer), "reading the tree of commit \(sha.prefix(12))")
        guard let tree else { throw .libgit2(operation: "reading a tree", code: -1, errorClass: 0, message: "no tree") }
        return Tree(Owned(tree, free: git_tree_free))
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

/// A tree of an open repository.
final class Tree {
    let handle: Owned

    init(_ handle: Owned) {
        self.handle = handle
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
        let result = git_tree_entry_bypath(&entry, handle.pointer, path)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try LibGit2Runtime.check(result, "finding '\(path)'")
        guard let entry else { return nil }
        let owned = Owned(entry, free: git_tree_entry_free)
        guard git_tree_entry_type(owned.pointer) == type, let id = git_tree_entry_id(owned.pointer) else { return nil }
        return id.pointee  // a copy: the entry, which holds the id, is freed with `owned`
    }

    /// Every file below this tree, path → contents, read from the object database.
    func files(in repository: Repository, prefix: String = "") throws(GitError) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for index in 0..<git_tree_entrycount(handle.pointer) {
            let entry = try RawEntry(git_tree_entry_byindex(handle.pointer, index))
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
