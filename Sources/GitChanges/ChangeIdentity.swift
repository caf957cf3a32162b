import CLibgit2

/// What a change did to each file, kept so that the same change is recognised after a squash or
/// a rebase gave it other commits, a moved base and other changes beside it: for a text file, the
/// lines it added and removed, each as a hash, counted as multisets (line numbers, order and
/// context do not count, so a base that moved elsewhere in the file does not hide it); for a
/// binary file, the content it left (`blob`, empty when it deleted the file).
///
/// `git patch-id` answers "is this the same patch", which an intermediate commit's change never
/// is to the squash of its whole branch. `isContained(in:)` answers "did that change bring all of
/// this one in", which is what finding a branch's pushes after a squash needs.
public struct ChangeIdentity: Codable, Sendable, Equatable {
    /// One file's change.
    public struct FileChange: Codable, Sendable, Equatable {
        /// Hashes of the lines added, sorted, once per occurrence.
        public var added: [String]
        /// Hashes of the lines removed, sorted, once per occurrence.
        public var removed: [String]
        /// For a binary file, the id of the content the change left; empty when it deleted it.
        public var blob: String?

        public init(added: [String] = [], removed: [String] = [], blob: String? = nil) {
            (self.added, self.removed, self.blob) = (added, removed, blob)
        }
    }

    /// Path (from the repository's root) → its change.
    public var files: [String: FileChange]

    public init(files: [String: FileChange] = [:]) {
        self.files = files
    }

    public var isEmpty: Bool { files.isEmpty }

    /// Whether `other` brought in all of this change: every file this change touched, `other`
    /// touched too, adding (and removing) at least the same lines, or leaving the same content.
    /// An empty change is contained in nothing: it proves nothing.
    public func isContained(in other: ChangeIdentity) -> Bool {
        guard !files.isEmpty else { return false }
        for (path, change) in files {
            guard let theirs = other.files[path] else { return false }
            if let blob = change.blob {
                guard theirs.blob == blob else { return false }
                continue
            }
            guard theirs.blob == nil, Self.isSubmultiset(change.added, of: theirs.added),
                Self.isSubmultiset(change.removed, of: theirs.removed)
            else { return false }
        }
        return true
    }

    /// Whether every element of `small` (sorted) occurs in `large` (sorted) at least as often.
    static func isSubmultiset(_ small: [String], of large: [String]) -> Bool {
        var index = large.startIndex
        for element in small {
            while index < large.endIndex, large[index] < element { index += 1 }
            guard index < large.endIndex, large[index] == element else { return false }
            index += 1
        }
        return true
    }

    /// The change of one text file: the lines of `new` not in `old` and those of `old` not in
    /// `new`, as multisets. Lines are compared without trailing whitespace; blank lines are left out.
    static func textChange(old: [UInt8], new: [UInt8]) -> FileChange {
        var counts: [UInt64: Int] = [:]
        for line in lines(old) { counts[line, default: 0] -= 1 }
        for line in lines(new) { counts[line, default: 0] += 1 }
        var added: [String] = []
        var removed: [String] = []
        for (line, count) in counts where count != 0 {
            let hex = hexadecimal(line)
            if count > 0 {
                added += repeatElement(hex, count: count)
            } else {
                removed += repeatElement(hex, count: -count)
            }
        }
        return FileChange(added: added.sorted(), removed: removed.sorted())
    }

    /// Each non-blank line's FNV-1a hash, trailing spaces, tabs and carriage returns left out.
    private static func lines(_ bytes: [UInt8]) -> [UInt64] {
        var result: [UInt64] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var last = end
            while last > start, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[last - 1]) {
                last -= 1
            }
            if last > start {
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in bytes[start..<last] {
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
                result.append(hash)
            }
            start = end + 1
        }
        return result
    }

    private static func hexadecimal(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Whether bytes read as binary, as git decides: a NUL in the first 8,000.
    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(8000).contains(0)
    }
}

extension CommitHistory {
    /// The change from `base` (the empty tree when nil) to `head`, file by file. Submodules are left out.
    public func changeIdentity(from base: String?, to head: String) throws(GitError) -> ChangeIdentity {
        let repository = repository
        let headTree = try repository.commit(head).tree()
        let baseTree = try base.map { revision throws(GitError) in try repository.commit(revision).tree() }
        var files: [String: ChangeIdentity.FileChange] = [:]
        for change in try TreeWalk.difference(from: baseTree, to: headTree, in: repository).changes {
            if change.old?.isSubmodule == true || change.new?.isSubmodule == true { continue }
            func contents(_ entry: TreeEntry?) throws(GitError) -> [UInt8] {
                guard var id = entry?.id else { return [] }
                return try repository.blob(&id, named: change.path)
            }
            let old = try contents(change.old)
            let new = try contents(change.new)
            if ChangeIdentity.isBinary(old) || ChangeIdentity.isBinary(new) {
                files[change.path] = ChangeIdentity.FileChange(blob: change.new.map { Commit.hex($0.id) } ?? "")
            } else {
                files[change.path] = ChangeIdentity.textChange(old: old, new: new)
            }
        }
        return ChangeIdentity(files: files)
    }

    /// The files `head` changed from its first parent (from the empty tree at a root), each with
    /// the id of the content it left ("" when it deleted the file): what a squash, a merge commit
    /// and a pull request's merge ref of the same branch onto the same files all have in common,
    /// wherever their base stood. Submodules are left out.
    public func contentChange(of head: String) throws(GitError) -> [String: String] {
        let repository = repository
        let commit = try repository.commit(head)
        let base = commit.parentCount > 0 ? try commit.parent(0, in: repository).tree() : nil
        var files: [String: String] = [:]
        for change in try TreeWalk.difference(from: base, to: try commit.tree(), in: repository).changes {
            if change.old?.isSubmodule == true || change.new?.isSubmodule == true { continue }
            files[change.path] = change.new.map { Commit.hex($0.id) } ?? ""
        }
        return files
    }

    /// A branch's commits from `fork` (left out) to `head`, oldest first, along first parents,
    /// each with whether it is a merge; at most `limit` of them (nil beyond: too long to keep).
    public func commits(from fork: String, to head: String, limit: Int = 250) throws(GitError)
        -> [(sha: String, isMerge: Bool)]?
    {
        var result: [(sha: String, isMerge: Bool)] = []
        var current = try repository.commit(head)
        while try isAncestor(current.sha, of: fork) != true {
            guard result.count < limit else { return nil }
            result.append((current.sha, current.parentCount > 1))
            guard current.parentCount > 0 else { break }
            current = try current.parent(0, in: repository)
        }
        return result.reversed()
    }

    /// `head` and its first parents, newest first, `count` of them at most (fewer at the root).
    public func firstParents(of head: String, count: Int) throws(GitError) -> [String] {
        var result: [String] = []
        var current = try repository.commit(head)
        while result.count < count {
            result.append(current.sha)
            guard current.parentCount > 0 else { break }
            current = try current.parent(0, in: repository)
        }
        return result
    }

    /// `head` and its first parents, newest first, until `stop` (left out) or `limit` commits, or
    /// where a shallow clone's history ends: the commits a push or comparison brought.
    public func firstParents(of head: String, until stop: String?, limit: Int) -> [String] {
        var result: [String] = []
        var current = try? repository.commit(head)
        while let commit = current, commit.sha != stop, result.count < limit {
            result.append(commit.sha)
            current = commit.parentCount > 0 ? try? commit.parent(0, in: repository) : nil
        }
        return result
    }

    /// Where `commit`'s branch was cut from the integration branches `integration` (revisions such
    /// as `origin/develop`, in order of preference; those this clone cannot read are passed over):
    /// the nearest of its merge bases with them (a stale local `develop` loses to a fresh
    /// `origin/develop`; of two unrelated ones, the first). Nil when no revision reads, or
    /// `commit` is on each of them (it is no branch of theirs).
    public func forkPoint(of commit: String, integration: [String]) throws(GitError) -> String? {
        let branch = try repository.commit(commit)
        var nearest: String?
        for revision in integration {
            guard let tip = try? repository.commit(revision),
                let base = try? repository.mergeBase(branch, tip, names: (commit, revision)).sha,
                base != branch.sha
            else { continue }
            if let current = nearest, try isAncestor(current, of: base) != true { continue }
            nearest = base
        }
        return nearest
    }
}
