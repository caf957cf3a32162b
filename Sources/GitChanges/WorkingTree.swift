import CLibgit2

extension CommitHistory {
    /// What the working tree changes against HEAD and is not committed: staged and unstaged edits,
    /// deletions and untracked files (ignored ones left out), by path from the repository's root.
    /// No rename detection: a moved file is a deletion and an addition.
    public func uncommittedChanges() throws(GitError) -> [ChangedFile] {
        var options = git_status_options()
        try LibGit2Runtime.check(git_status_options_init(&options, 1), "preparing a status query")
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        var list: OpaquePointer?
        try LibGit2Runtime.check(
            repository.handle.with { git_status_list_new(&list, $0, &options) }, "reading the working tree's status")
        guard let list else { return [] }
        // Each entry's deltas and paths point into the list: read while it is alive.
        return Owned(list, free: git_status_list_free, keeping: [repository.handle]).with(Self.changes(in:))
    }

    private static func changes(in list: OpaquePointer) -> [ChangedFile] {
        var changes: [String: ChangeStatus] = [:]
        for index in 0..<git_status_list_entrycount(list) {
            guard let entry = git_status_byindex(list, index)?.pointee else { continue }
            let flags = entry.status.rawValue
            for delta in [entry.head_to_index, entry.index_to_workdir] {
                guard let delta = delta?.pointee else { continue }
                let deleted = flags & (GIT_STATUS_INDEX_DELETED.rawValue | GIT_STATUS_WT_DELETED.rawValue) != 0
                let added = flags & (GIT_STATUS_INDEX_NEW.rawValue | GIT_STATUS_WT_NEW.rawValue) != 0
                guard let path = (deleted ? delta.old_file.path : delta.new_file.path).map({ String(cString: $0) })
                else { continue }
                changes[path] = deleted ? .deleted : added ? .added : .modified
            }
        }
        return changes.sorted { $0.key < $1.key }.map { ChangedFile(path: $0.key, status: $0.value) }
    }
}
