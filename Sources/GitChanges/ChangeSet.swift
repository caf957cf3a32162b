/// How a path changed between two commits.
public enum ChangeStatus: String, Sendable, Hashable, Codable, Comparable {
    case added, modified, deleted, renamed

    public static func < (lhs: ChangeStatus, rhs: ChangeStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One changed file. `oldPath` is set for renames; `submodule` for a changed gitlink (never descended).
public struct ChangedFile: Sendable, Hashable, Codable {
    public var path: String
    public var status: ChangeStatus
    public var oldPath: String?
    public var submodule: Bool

    public init(path: String, status: ChangeStatus, oldPath: String? = nil, submodule: Bool = false) {
        self.path = path
        self.status = status
        self.oldPath = oldPath
        self.submodule = submodule
    }

    /// The paths this change touches: both sides of a rename.
    public var touchedPaths: [String] {
        oldPath.map { [$0, path] } ?? [path]
    }
}

/// A changed folder: a test target (`Tests/AppTests`) or a reference folder
/// (`Tests/AppTests/__Snapshots__/SampleVCTests`). `files` counts the changed files inside it.
public struct ChangedFolder: Sendable, Hashable, Codable {
    public var name: String
    public var path: String
    public var status: ChangeStatus
    public var oldPath: String?
    public var files: Int
}

/// A changed test file, `<Name>Tests.swift`, named like the reference folder it owns.
public struct ChangedTestFile: Sendable, Hashable, Codable {
    public var name: String
    public var path: String
    public var status: ChangeStatus
    public var oldPath: String?
    public var oldName: String?
}

/// What a comparison of two commits changed, classified for testing and reference promotion.
/// Its JSON form is documented in docs/json.md.
public struct ChangeSet: Sendable, Hashable, Codable {
    /// The full SHA compared from; absent when `head` is a root commit (compared with the empty tree).
    public var base: String?
    /// The full SHA compared to.
    public var head: String
    /// How the commits were chosen: `merge`, `range` or `merge-base`.
    public var comparison: String
    /// Whether `head` is a merge commit (two or more parents).
    public var headIsMerge: Bool
    public var files: [ChangedFile]
    public var testTargets: [ChangedFolder]
    public var testFiles: [ChangedTestFile]
    public var referenceFolders: [ChangedFolder]
    /// Tests whose references may need promotion: changed test files ∪ changed reference folders, by name.
    public var promotable: [String]
    /// Changed files outside test targets and reference folders.
    public var other: [ChangedFile]
    /// Why the commits compared are these, where a post-merge run chose them from develop's record
    /// (caught up from the last promoted commit, or why not); absent otherwise.
    public var note: String?

    public var isEmpty: Bool { files.isEmpty }
}
