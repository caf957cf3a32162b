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

/// What a walk of two trees found: the changed paths in tree order, and the topmost folders that
/// exist on one side only (everything below such a folder is one-sided too).
struct TreeDifference {
    var changes: [TreeChange] = []
    var baseOnlyFolders: Set<String> = []
    var headOnlyFolders: Set<String> = []

    /// Whether `folder`, which holds a changed path, is a folder on `side`: it is, unless it or a
    /// folder above it exists on the other side only.
    func folderExists(_ folder: String, onBase: Bool) -> Bool {
        let otherOnly = onBase ? headOnlyFolders : baseOnlyFolders
        if otherOnly.isEmpty { return true }
        if otherOnly.contains(folder) { return false }
        var bytes = folder.utf8[...]
        while let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
            bytes = bytes[..<slash]
            if otherOnly.contains(String(Substring(bytes))) { return false }
        }
        return true
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

    static func difference(from base: Tree?, to head: Tree, in repository: Repository) throws(GitError) -> TreeDifference {
        var walk = TreeWalk(repository: repository)
        try walk.compare(base, head)
        return walk.result
    }

    private mutating func compare(_ old: Tree?, _ new: Tree?) throws(GitError) {
        let oldCount = old.map { git_tree_entrycount($0.handle.pointer) } ?? 0
        let newCount = new.map { git_tree_entrycount($0.handle.pointer) } ?? 0
        var i = 0, j = 0
        while i < oldCount || j < newCount {
            let a = i < oldCount ? git_tree_entry_byindex(old!.handle.pointer, i) : nil
            let b = j < newCount ? git_tree_entry_byindex(new!.handle.pointer, j) : nil
            let order: Int32 = switch (a, b) {
            case let (a?, b?): Self.order(a, b)
            case (_?, nil): -1
            default: 1
            }
            if order < 0 {
                try oneSided(a!, isBase: true)
                i += 1
            } else if order > 0 {
                try oneSided(b!, isBase: false)
                j += 1
            } else {
                try both(a!, b!)
                i += 1
                j += 1
            }
        }
    }

    /// An entry present on both sides under the same name and kind.
    private mutating func both(_ a: OpaquePointer, _ b: OpaquePointer) throws(GitError) {
        let oldID = git_tree_entry_id(a)!, newID = git_tree_entry_id(b)!
        let oldMode = git_tree_entry_filemode(a).rawValue, newMode = git_tree_entry_filemode(b).rawValue
        if git_oid_equal(oldID, newID) != 0 && oldMode == newMode { return }
        if oldMode == GIT_FILEMODE_TREE.rawValue {
            try descend(into: a, b)
        } else {
            record(b, old: TreeEntry(id: oldID.pointee, mode: oldMode), new: TreeEntry(id: newID.pointee, mode: newMode))
        }
    }

    /// An entry present on one side only: a file, or a whole folder listed file by file.
    private mutating func oneSided(_ entry: OpaquePointer, isBase: Bool) throws(GitError) {
        let mode = git_tree_entry_filemode(entry).rawValue
        if mode == GIT_FILEMODE_TREE.rawValue {
            let folder = path(of: entry)
            if isBase { result.baseOnlyFolders.insert(folder) } else { result.headOnlyFolders.insert(folder) }
            try descend(into: isBase ? entry : nil, isBase ? nil : entry)
        } else {
            let side = TreeEntry(id: git_tree_entry_id(entry)!.pointee, mode: mode)
            record(entry, old: isBase ? side : nil, new: isBase ? nil : side)
        }
    }

    private mutating func descend(into old: OpaquePointer?, _ new: OpaquePointer?) throws(GitError) {
        let saved = prefix.count
        prefix.append(contentsOf: Self.name(of: old ?? new!))
        prefix.append(UInt8(ascii: "/"))
        defer { prefix.removeSubrange(saved...) }
        try compare(try old.map(subtree), try new.map(subtree))
    }

    private func subtree(_ entry: OpaquePointer) throws(GitError) -> Tree {
        var tree: OpaquePointer?
        try LibGit2Runtime.check(git_tree_lookup(&tree, repository.handle.pointer, git_tree_entry_id(entry)),
                                 "reading folder '\(path(of: entry))'")
        guard let tree else { throw .libgit2(operation: "reading a folder", code: -1, errorClass: 0, message: "no tree") }
        return Tree(Owned(tree, free: git_tree_free))
    }

    private mutating func record(_ entry: OpaquePointer, old: TreeEntry?, new: TreeEntry?) {
        result.changes.append(TreeChange(path: path(of: entry), old: old, new: new))
    }

    private func path(of entry: OpaquePointer) -> String {
        String(decoding: prefix + Self.name(of: entry), as: UTF8.self)
    }

    /// The entry's name as bytes; valid while its tree is.
    private static func name(of entry: OpaquePointer) -> UnsafeRawBufferPointer {
        let name = git_tree_entry_name(entry)!
        var count = 0
        while name[count] != 0 { count += 1 }
        return UnsafeRawBufferPointer(start: name, count: count)
    }

    /// git's order of tree entries: by name, a folder's name compared as if it ended in '/'.
    static func order(_ a: OpaquePointer, _ b: OpaquePointer) -> Int32 {
        let nameA = git_tree_entry_name(a)!, nameB = git_tree_entry_name(b)!
        var index = 0
        while nameA[index] != 0, nameA[index] == nameB[index] { index += 1 }
        func byte(_ name: UnsafePointer<CChar>, _ entry: OpaquePointer) -> Int32 {
            let value = UInt8(bitPattern: name[index])
            if value != 0 { return Int32(value) }
            return git_tree_entry_filemode(entry) == GIT_FILEMODE_TREE ? Int32(UInt8(ascii: "/")) : 0
        }
        return byte(nameA, a) - byte(nameB, b)
    }
}
