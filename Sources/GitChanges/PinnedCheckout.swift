import CLibgit2
import Foundation

/// Whether a folder checked out from git holds exactly one commit's files: a dependency checkout
/// restored from a build cache, checked against the revision `Package.resolved` pins.
///
/// The commit and each tree are read from the folder's own object database (its alternates
/// included) and hashed again, so an object that is not what its id names is caught; every file
/// is hashed as git would store it and compared with its tree entry, mode included. A file the
/// commit does not have (untracked or ignored: SwiftPM compiles any source in a target's folder)
/// is a difference too. A submodule is checked the same way against the commit its entry names.
/// Nothing here reads the index or file times, which whoever wrote the folder could set.
public struct PinnedCheckout: Sendable {
    public let folder: URL
    public let revision: String
    /// Object folders read besides the repository's own and its alternates: where a checkout
    /// staged away from its place finds the objects its alternates name by their final path.
    public let objectFolders: [URL]

    public init(folder: URL, revision: String, objectFolders: [URL] = []) {
        self.folder = folder
        self.revision = revision
        self.objectFolders = objectFolders
    }

    /// What differs from the revision's tree, by path, at most `limit`; empty when the folder
    /// holds exactly the revision's files. Throws when the folder is no repository of its own or
    /// lacks the revision's objects (then it cannot be checked).
    public func differences(limit: Int = 5) throws(GitError) -> [String] {
        var found: [String] = []
        try check(into: &found, limit: limit, prefix: "")
        return found
    }

    private func check(into found: inout [String], limit: Int, prefix: String) throws(GitError) {
        let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
        let repository = try Repository(discoveringFrom: root)
        guard URL(fileURLWithPath: repository.displayPath).resolvingSymlinksInPath().path == root else {
            throw .notARepository(path: root)
        }
        var odb: OpaquePointer?
        try LibGit2Runtime.check(
            repository.handle.with { git_repository_odb(&odb, $0) }, "opening the objects of \(root)")
        guard let odb else { throw .notARepository(path: root) }
        let owned = Owned(odb, free: git_odb_free, keeping: [repository.handle])
        for extra in objectFolders {
            try LibGit2Runtime.check(
                owned.with { git_odb_add_disk_alternate($0, extra.path) }, "reading the objects in \(extra.path)")
        }
        let objects = VerifiedObjects(odb: owned, folder: root)
        let commit = try objects.read(revision, as: GIT_OBJECT_COMMIT)
        guard let line = commit.split(separator: UInt8(ascii: "\n"), maxSplits: 1).first,
            line.starts(with: Array("tree ".utf8))
        else {
            throw .unknownRevision(revision, reason: "its commit names no tree")
        }
        var expected: Set<String> = []
        try walk(
            tree: String(decoding: line.dropFirst(5), as: UTF8.self), path: "", objects: objects,
            expected: &expected, found: &found, limit: limit, prefix: prefix)
        // What the folder holds beyond the commit's files.
        let manager = FileManager.default
        guard let items = manager.enumerator(atPath: root) else { return }
        while let item = items.nextObject() as? String, found.count < limit {
            if item == ".git" {
                items.skipDescendants()
                continue
            }
            if expected.contains(item) {
                // A submodule's own files were checked against its commit.
                if (items.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory,
                    expected.contains(item + "/.submodule")
                {
                    items.skipDescendants()
                }
                continue
            }
            if (items.fileAttributes?[.type] as? FileAttributeType) != .typeDirectory {
                found.append("\(prefix)\(item) is not in \(revision.prefix(12))")
            }
        }
    }

    /// Compares the tree `id` at `path` with the folder's files there, recording what it expects.
    private func walk(
        tree id: String, path: String, objects: VerifiedObjects, expected: inout Set<String>,
        found: inout [String], limit: Int, prefix: String
    ) throws(GitError) {
        let tree = try objects.read(id, as: GIT_OBJECT_TREE)
        var index = tree.startIndex
        while index < tree.endIndex, found.count < limit {
            // `<octal mode> <name>\0<20-byte id>`
            guard let space = tree[index...].firstIndex(of: UInt8(ascii: " ")),
                let nul = tree[space...].firstIndex(of: 0), nul + 21 <= tree.endIndex
            else {
                throw .libgit2(
                    operation: "reading tree \(id.prefix(12)) of \(objects.folder)", code: -1, errorClass: 0,
                    message: "malformed tree")
            }
            let mode = String(decoding: tree[index..<space], as: UTF8.self)
            let name = String(decoding: tree[(space + 1)..<nul], as: UTF8.self)
            let entryID = tree[(nul + 1)..<(nul + 21)].map { String(format: "%02x", $0) }.joined()
            index = nul + 21
            let relative = path.isEmpty ? name : path + "/" + name
            expected.insert(relative)
            let file = objects.folder + "/" + relative
            var info = stat()
            let exists = lstat(file, &info) == 0
            let kind = info.st_mode & S_IFMT
            switch mode {
            case "40000":
                guard exists, kind == S_IFDIR else {
                    found.append("\(prefix)\(relative)/ is missing")
                    continue
                }
                try walk(
                    tree: entryID, path: relative, objects: objects, expected: &expected, found: &found, limit: limit,
                    prefix: prefix)
            case "160000":
                expected.insert(relative + "/.submodule")
                guard exists, kind == S_IFDIR else {
                    found.append("\(prefix)\(relative)/ (a submodule) is missing")
                    continue
                }
                try PinnedCheckout(folder: URL(fileURLWithPath: file), revision: entryID).check(
                    into: &found, limit: limit, prefix: prefix + relative + "/")
            case "120000":
                guard exists, kind == S_IFLNK,
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: file)
                else {
                    found.append("\(prefix)\(relative) is not the symbolic link \(revision.prefix(12)) has")
                    continue
                }
                if try objects.hash(Array(target.utf8)) != entryID {
                    found.append("\(prefix)\(relative) links elsewhere than in \(revision.prefix(12))")
                }
            default:
                let executable = mode == "100755"
                guard exists, kind == S_IFREG else {
                    found.append("\(prefix)\(relative) is missing")
                    continue
                }
                if try objects.hash(file: file) != entryID {
                    found.append("\(prefix)\(relative) differs from \(revision.prefix(12))")
                } else if (info.st_mode & S_IXUSR != 0) != executable {
                    found.append("\(prefix)\(relative)'s executable bit differs from \(revision.prefix(12))")
                }
            }
        }
    }
}

/// A folder's object database, each object read hashed again against its id.
fileprivate struct VerifiedObjects {
    let odb: Owned
    let folder: String

    func read(_ hex: String, as type: git_object_t) throws(GitError) -> [UInt8] {
        var id = git_oid()
        guard Repository.isFullID(hex), git_oid_fromstr(&id, hex) == 0 else {
            throw .unknownRevision(hex, reason: "a pinned revision is a full commit id")
        }
        var object: OpaquePointer?
        let result = odb.with { git_odb_read(&object, $0, &id) }
        if result == GIT_ENOTFOUND.rawValue {
            throw .unknownRevision(hex, reason: "\(folder) does not hold it")
        }
        try LibGit2Runtime.check(result, "reading object \(hex.prefix(12)) in \(folder)")
        guard let object else { throw .unknownRevision(hex, reason: "no object") }
        // The data points into the object: hashed and copied while it is alive.
        return try Owned(object, free: git_odb_object_free, keeping: [odb]).with { (object) throws(GitError) in
            let size = git_odb_object_size(object)
            let data = git_odb_object_data(object)
            var hashed = git_oid()
            try LibGit2Runtime.check(
                git_odb_hash(&hashed, data, size, git_odb_object_type(object)), "hashing object \(hex.prefix(12))")
            guard git_odb_object_type(object) == type, git_oid_equal(&hashed, &id) == 1 else {
                throw .libgit2(
                    operation: "reading object \(hex.prefix(12)) in \(folder)", code: -1, errorClass: 0,
                    message: "its content is not the object its id names")
            }
            guard size > 0, let data else { return [] }
            return Array(UnsafeRawBufferPointer(start: data, count: size))
        }
    }

    /// The blob id of bytes.
    func hash(_ bytes: [UInt8]) throws(GitError) -> String {
        var id = git_oid()
        try LibGit2Runtime.check(git_odb_hash(&id, bytes, bytes.count, GIT_OBJECT_BLOB), "hashing a link")
        return Commit.hex(id)
    }

    /// The blob id of a file's bytes, as stored (no filters).
    func hash(file: String) throws(GitError) -> String {
        var id = git_oid()
        try LibGit2Runtime.check(git_odb_hashfile(&id, file, GIT_OBJECT_BLOB), "hashing \(file)")
        return Commit.hex(id)
    }
}
