import CLibgit2

/// One side of a changed path, as the tree holds it.
struct TreeEntry {
    var id: git_oid
    var mode: UInt32

    var isSubmodule: Bool { mode == GIT_FILEMODE_COMMIT.rawValue }

}

/// A path that differs between two trees, before rename detection.
struct TreeChange {
    var path: String
    var old: TreeEntry?
    var new: TreeEntry?
}

/// What a walk of two trees found: the changed paths in tree order, and every folder it met that
/// exists on one side only (the walk lists such a folder's contents, so it meets each folder below).
struct TreeDifference {
    var changes: [TreeChange] = []
    var baseOnlyFolders: Set<String> = []
    var headOnlyFolders: Set<String> = []

    /// Whether `folder`, which holds a changed path (so the walk met it), is a folder on `side`.
    func folderExists(_ folder: String, onBase: Bool) -> Bool {
        !(onBase ? headOnlyFolders : baseOnlyFolders).contains(folder)
    }
}

/// Compares two trees the way git does: both entry lists are walked together in git's order, equal
/// ids are skipped without reading them, and only subtrees whose ids differ are opened.
struct TreeWalk {
    let repository: Repository
    private var prefix: [UInt8] = []
    private var result = TreeDifference()

    init(repository: Repository) {
        self.repository = repository
    }

    static func difference(from base: Tree?, to head: Tree, in repository: Repository) throws(GitError)
        -> TreeDifference
    {
        var walk = TreeWalk(repository: repository)
        try walk.compare(base, head)
        return walk.result
    }

    private mutating func compare(_ old: Tree?, _ new: Tree?) throws(GitError) {
        let oldCount = old?.count ?? 0
        let newCount = new?.count ?? 0
        var i = 0
        var j = 0
        while i < oldCount || j < newCount {
            let a = try entry(old, at: i, of: oldCount)
            let b = try entry(new, at: j, of: newCount)
            let order: Int32 =
                switch (a, b) {
                case (let a?, let b?): RawEntry.order(a, b)
                case (_?, nil): -1
                default: 1
                }
            if order < 0, let a {
                try oneSided(a, isBase: true)
                i += 1
            } else if order > 0, let b {
                try oneSided(b, isBase: false)
                j += 1
            } else if let a, let b {
                try both(a, b)
                i += 1
                j += 1
            }
        }
    }

    /// The entry at `index` of `tree`; nil past its `count` entries (or without a tree).
    private func entry(_ tree: Tree?, at index: Int, of count: Int) throws(GitError) -> RawEntry? {
        guard let tree, index < count else { return nil }
        return try tree.entry(at: index)
    }

    /// An entry present on both sides under the same name and kind.
    private mutating func both(_ a: RawEntry, _ b: RawEntry) throws(GitError) {
        if git_oid_equal(a.id, b.id) != 0 && a.mode == b.mode { return }
        if a.mode == GIT_FILEMODE_TREE.rawValue {
            try descend(into: a, b)
        } else {
            add(b, old: TreeEntry(id: a.id.pointee, mode: a.mode), new: TreeEntry(id: b.id.pointee, mode: b.mode))
        }
    }

    /// An entry present on one side only: a file, or a whole folder listed file by file.
    private mutating func oneSided(_ entry: RawEntry, isBase: Bool) throws(GitError) {
        if entry.mode == GIT_FILEMODE_TREE.rawValue {
            let folder = path(of: entry)
            if isBase { result.baseOnlyFolders.insert(folder) } else { result.headOnlyFolders.insert(folder) }
            try descend(into: isBase ? entry : nil, isBase ? nil : entry)
        } else {
            let side = TreeEntry(id: entry.id.pointee, mode: entry.mode)
            add(entry, old: isBase ? side : nil, new: isBase ? nil : side)
        }
    }

    private mutating func descend(into old: RawEntry?, _ new: RawEntry?) throws(GitError) {
        guard let named = old ?? new else { return }
        let saved = prefix.count
        prefix.append(contentsOf: named.name)
        prefix.append(UInt8(ascii: "/"))
        defer { prefix.removeSubrange(saved...) }
        try compare(try old.map(subtree), try new.map(subtree))
    }

    private func subtree(_ entry: RawEntry) throws(GitError) -> Tree {
        try repository.tree(entry.id, named: path(of: entry))
    }

    private mutating func add(_ entry: RawEntry, old: TreeEntry?, new: TreeEntry?) {
        result.changes.append(TreeChange(path: path(of: entry), old: old, new: new))
    }

    /// The entry's path: the folders walked into, then its name, written once into the String.
    private func path(of entry: RawEntry) -> String {
        String(unsafeUninitializedCapacity: prefix.count + entry.name.count) { buffer in
            let end = buffer.initialize(fromContentsOf: prefix)
            return buffer[end...].initialize(fromContentsOf: entry.name)  // an index of `buffer`: the length
        }
    }
}

/// One entry of a tree, read once: its name, id and mode. libgit2 answers NULL for the name or id
/// only of an entry that is not valid; that is thrown like any other libgit2 failure.
struct RawEntry {
    /// The name's bytes and the id, which point into the tree: valid while `tree` is, which this
    /// entry keeps alive.
    let name: UnsafeRawBufferPointer
    let id: UnsafePointer<git_oid>
    let mode: UInt32
    let isTree: Bool
    private let tree: Owned

    /// `entry` of the tree `tree` owns (`git_tree_entry_byindex`, which returns a pointer into the tree).
    init(_ entry: OpaquePointer?, of tree: Owned) throws(GitError) {
        self.tree = tree
        guard let entry, let name = git_tree_entry_name(entry), let id = git_tree_entry_id(entry) else {
            throw .libgit2(
                operation: "reading a tree entry", code: -1, errorClass: 0, message: "libgit2 returned no entry")
        }
        var count = 0
        while name[count] != 0 { count += 1 }
        self.name = UnsafeRawBufferPointer(start: name, count: count)
        self.id = id
        mode = git_tree_entry_filemode(entry).rawValue
        isTree = mode == GIT_FILEMODE_TREE.rawValue
    }

    /// git's order of tree entries: by name, a folder's name compared as if it ended in '/'.
    static func order(_ a: RawEntry, _ b: RawEntry) -> Int32 {
        var index = 0
        while index < a.name.count, index < b.name.count, a.name[index] == b.name[index] { index += 1 }
        func byte(_ entry: RawEntry) -> Int32 {
            if index < entry.name.count { return Int32(entry.name[index]) }
            return entry.isTree ? Int32(UInt8(ascii: "/")) : 0
        }
        return byte(a) - byte(b)
    }
}
