import CLibgit2

/// Questions about a repository's history that reference promotion asks: which commit a revision
/// is, where a merged branch was cut, and whether one commit came before another.
public final class CommitHistory {
    let repository: Repository

    public init(repositoryPath: String) throws(GitError) {
        repository = try Repository(discoveringFrom: repositoryPath)
    }

    /// The repository's work tree (or git folder, when bare), with no trailing slash.
    public var workTree: String { repository.displayPath }

    /// The full SHA a revision names.
    public func sha(_ revision: String) throws(GitError) -> String {
        try repository.commit(revision).sha
    }

    /// The id of the tree `revision`'s commit records: the same for two commits exactly when they
    /// hold the same files (a squash of a branch onto the base its merge ref was made on, that merge).
    public func treeID(_ revision: String) throws(GitError) -> String {
        try repository.commit(revision).tree().id
    }

    /// The full SHAs of `revision`'s parents, read from the commit itself: a shallow clone that
    /// lacks them knows them too.
    public func parents(of revision: String) throws(GitError) -> [String] {
        let commit = try repository.commit(revision)
        return (0..<commit.parentCount).compactMap(commit.parentSHA)
    }

    /// `revision` and the commits before it, newest first by commit time (each once, whatever
    /// path leads to it), at most `limit`; never empty. A parent this clone lacks (a shallow
    /// clone's boundary) ends its path: what the clone has is the answer.
    public func ancestors(of revision: String, limit: Int) throws(GitError) -> [String] {
        let start = try repository.commit(revision)
        // A walk by commit time over the parents the clone has (libgit2's own walk fails outright
        // at a shallow boundary before it yields anything).
        var waiting = [start]
        var seen: Set<String> = [start.sha]
        var found: [String] = []
        while found.count < max(1, limit), let newest = waiting.indices.max(by: { waiting[$0].time < waiting[$1].time })
        {
            let commit = waiting.remove(at: newest)
            found.append(commit.sha)
            for index in 0..<commit.parentCount {
                let parent: Commit
                do {
                    parent = try commit.parent(index, in: repository, fetching: false)
                } catch .shallowClone {
                    continue
                }
                if seen.insert(parent.sha).inserted { waiting.append(parent) }
            }
        }
        return found
    }

    /// Where the branch a comparison brought in was cut: for a merge commit, the merge base of
    /// its first two parents; otherwise the commit compared from (`base`), when there is one.
    public func branchPoint(of changes: ChangeSet) throws(GitError) -> String? {
        let head = try repository.commit(changes.head)
        guard changes.comparison == "merge", head.parentCount > 1 else { return changes.base }
        let first = try head.parent(0, in: repository)
        let second = try head.parent(1, in: repository)
        return try repository.mergeBase(first, second, names: ("\(changes.head)^1", "\(changes.head)^2")).sha
    }

    /// Whether `ancestor` is `descendant` or comes before it; nil when either is not in this clone
    /// (another repository's commit, a deleted branch's, or history a shallow clone lacks even
    /// after fetching it).
    public func isAncestor(_ ancestor: String, of descendant: String) throws(GitError) -> Bool? {
        guard let old = try? repository.commit(ancestor), let new = try? repository.commit(descendant) else {
            return nil
        }
        if old.sha == new.sha { return true }
        var oldID = old.oid
        var newID = new.oid
        var result = repository.handle.with { git_graph_descendant_of($0, &newID, &oldID) }
        if result < 0, repository.deepen(missing: "the history between \(old.sha.prefix(12)) and \(new.sha.prefix(12))")
        {
            result = repository.handle.with { git_graph_descendant_of($0, &newID, &oldID) }
        }
        if result < 0, repository.isShallow { return nil }
        return try LibGit2Runtime.check(result, "comparing the history of \(ancestor) and \(descendant)") == 1
    }

    /// The references whose names match `glob` (`refs/remotes/*`, `refs/heads/*`) that point at a
    /// commit, each with that commit's SHA, in name order.
    public func branches(matching glob: String) throws(GitError) -> [(name: String, sha: String)] {
        var iterator: OpaquePointer?
        try LibGit2Runtime.check(
            repository.handle.with { git_reference_iterator_glob_new(&iterator, $0, glob) },
            "listing the references \(glob)")
        guard let iterator else { return [] }
        let owned = Owned(iterator, free: git_reference_iterator_free, keeping: [repository.handle])
        var found: [(name: String, sha: String)] = []
        while true {
            var reference: OpaquePointer?
            let result = owned.with { git_reference_next(&reference, $0) }
            if result == GIT_ITEROVER.rawValue { break }
            try LibGit2Runtime.check(result, "listing the references \(glob)")
            guard let reference else { break }
            let branch = Owned(reference, free: git_reference_free, keeping: [repository.handle])
            let name = branch.with { git_reference_name($0).map { String(cString: $0) } } ?? ""
            var peeled: OpaquePointer?
            // A reference that names no commit (a tag of a tree, a dangling symbolic one) is no branch.
            guard branch.with({ git_reference_peel(&peeled, $0, GIT_OBJECT_COMMIT) }) == 0, let peeled else {
                continue
            }
            let commit = Owned(peeled, free: git_object_free, keeping: [repository.handle])
            if let id = commit.with({ git_object_id($0).map { Commit.hex($0.pointee) } }) { found.append((name, id)) }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// The files below `folder` (a path from the repository's root) in `commit`'s tree: path below
    /// the folder → contents. Empty when the commit has no such folder; submodules are left out.
    public func files(in folder: String, at commit: String) throws(GitError) -> [String: [UInt8]] {
        try repository.commit(commit).tree().folder(at: folder, in: repository)?.files(in: repository) ?? [:]
    }

    /// The contents of the file at `path` (from the repository's root) in `commit`; nil when it has none.
    public func contents(of path: String, at commit: String) throws(GitError) -> [UInt8]? {
        try repository.commit(commit).tree().file(at: path, in: repository)
    }
}
