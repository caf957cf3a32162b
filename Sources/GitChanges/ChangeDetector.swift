import CLibgit2

/// Which two commits to compare.
public enum Comparison: Sendable, Hashable {
    /// A commit (usually a merge) against its first parent; a root commit against the empty tree.
    case merge(head: String)
    /// Any two revisions.
    case range(base: String, head: String)
    /// The merge base of `base` and `head` against `head`: what `head` added since it branched.
    case mergeBase(base: String, head: String)

    var name: String {
        switch self {
        case .merge: "merge"
        case .range: "range"
        case .mergeBase: "merge-base"
        }
    }
}

/// Finds what changed between two commits of a repository, in process, with libgit2.
public struct ChangeDetector: Sendable {
    public let repositoryPath: String
    public let testPattern: NamePattern
    /// Pair deletions with additions of similar content as renames.
    public let detectRenames: Bool

    public init(repositoryPath: String, testPattern: String = "*Tests", detectRenames: Bool = true) {
        self.repositoryPath = repositoryPath
        self.testPattern = NamePattern(testPattern)
        self.detectRenames = detectRenames
    }

    public func changes(_ comparison: Comparison) throws(GitError) -> ChangeSet {
        let repository = try Repository(discoveringFrom: repositoryPath)
        let (base, head) = try commits(for: comparison, in: repository)
        let headTree = try head.tree()
        let baseTree = try base?.tree()
        let files = try diff(from: baseTree, to: headTree, in: repository)
        let baseFolders = FolderIndex(root: baseTree, repository: repository)
        let headFolders = FolderIndex(root: headTree, repository: repository)
        let classifier = ChangeClassifier(pattern: testPattern)
        return try classifier.classify(
            files, base: base?.sha, head: head.sha, comparison: comparison.name, headIsMerge: head.parentCount > 1
        ) { (path, side) throws(GitError) -> Bool in
            switch side {
            case .base: try baseFolders.containsFolder(path)
            case .head: try headFolders.containsFolder(path)
            }
        }
    }

    private func commits(for comparison: Comparison, in repository: Repository) throws(GitError) -> (Commit?, Commit) {
        switch comparison {
        case .merge(let head):
            let commit = try repository.commit(head)
            return (commit.parentCount == 0 ? nil : try commit.parent(0, in: repository), commit)
        case .range(let base, let head):
            return (try repository.commit(base), try repository.commit(head))
        case .mergeBase(let base, let head):
            let headCommit = try repository.commit(head)
            let mergeBase = try repository.mergeBase(try repository.commit(base), headCommit, names: (base, head))
            return (mergeBase, headCommit)
        }
    }

    private func diff(from base: Tree?, to head: Tree, in repository: Repository) throws(GitError) -> [ChangedFile] {
        var options = git_diff_options()
        try LibGit2Runtime.check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)), "preparing a diff")
        options.flags = GIT_DIFF_SKIP_BINARY_CHECK.rawValue
        var diffPointer: OpaquePointer?
        try LibGit2Runtime.check(
            git_diff_tree_to_tree(&diffPointer, repository.handle.pointer, base?.handle.pointer, head.handle.pointer, &options),
            "comparing trees")
        guard let diffPointer else { return [] }
        let diff = Owned(diffPointer, free: git_diff_free)
        if detectRenames {
            var find = git_diff_find_options()
            try LibGit2Runtime.check(git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION)),
                                     "preparing rename detection")
            find.flags = GIT_DIFF_FIND_RENAMES.rawValue
            try LibGit2Runtime.check(git_diff_find_similar(diff.pointer, &find), "detecting renames")
        }
        let count = git_diff_num_deltas(diff.pointer)
        var files: [ChangedFile] = []
        files.reserveCapacity(count)
        for index in 0..<count {
            guard let delta = git_diff_get_delta(diff.pointer, index)?.pointee else { continue }
            let oldPath = delta.old_file.path.map { String(cString: $0) } ?? ""
            let newPath = delta.new_file.path.map { String(cString: $0) } ?? oldPath
            let submodule = delta.old_file.mode == UInt16(GIT_FILEMODE_COMMIT.rawValue)
                || delta.new_file.mode == UInt16(GIT_FILEMODE_COMMIT.rawValue)
            switch delta.status {
            case GIT_DELTA_ADDED: files.append(ChangedFile(path: newPath, status: .added, submodule: submodule))
            case GIT_DELTA_DELETED: files.append(ChangedFile(path: oldPath, status: .deleted, submodule: submodule))
            case GIT_DELTA_RENAMED:
                files.append(ChangedFile(path: newPath, status: .renamed, oldPath: oldPath, submodule: submodule))
            default: files.append(ChangedFile(path: newPath, status: .modified, submodule: submodule))
            }
        }
        return files
    }
}
