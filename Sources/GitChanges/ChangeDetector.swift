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
        let difference = try TreeWalk.difference(from: try base?.tree(), to: try head.tree(), in: repository)
        let files =
            detectRenames
            ? try RenameDetector(repository: repository).files(from: difference.changes)
            : difference.changes.map { RenameDetector.file($0) }
        return ChangeClassifier(pattern: testPattern).classify(
            files, base: base?.sha, head: head.sha, comparison: comparison.name, headIsMerge: head.parentCount > 1
        ) { folder, side in difference.folderExists(folder, onBase: side == .base) }
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
}
