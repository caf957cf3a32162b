/// Sorts changed paths into test targets, test files, reference folders and the rest.
/// Pure: folder existence on each side is asked of `exists`, so it is testable without a repository.
struct ChangeClassifier {
    enum Side { case base, head }

    static let snapshotsFolder = "__Snapshots__"

    let pattern: NamePattern

    /// SwiftPM's folder of test targets; it matches `*Tests` but holds targets rather than being one.
    static let testsContainer = "Tests"

    /// The test target holding `path`: the folder up to the first component that matches the pattern,
    /// passing over SwiftPM's `Tests` container when a folder below it matches.
    /// Folders below `__Snapshots__` are references, never targets.
    func testTarget(of path: String) -> (name: String, path: String)? {
        let folders = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let owned = folders.prefix { $0 != Self.snapshotsFolder }
        let matches = owned.indices.filter { pattern.matches(owned[$0]) }
        guard let first = matches.first else { return nil }
        let index = owned[first] == Self.testsContainer && matches.count > 1 ? matches[1] : first
        return (String(folders[index]), folders[...index].joined(separator: "/"))
    }

    /// The reference folder holding `path`: `…/__Snapshots__/<TestFile>`.
    func referenceFolder(of path: String) -> (name: String, path: String)? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let index = components.firstIndex(of: Substring(Self.snapshotsFolder)), index + 2 < components.count
        else { return nil }
        return (String(components[index + 1]), components[...(index + 1)].joined(separator: "/"))
    }

    /// The test's name when `path` is a test file: `…/SampleVCTests.swift` → `SampleVCTests`.
    func testName(of path: String) -> String? {
        guard path.hasSuffix(".swift"), referenceFolder(of: path) == nil else { return nil }
        let stem = path.split(separator: "/").last.map { $0.dropLast(".swift".count) } ?? ""
        return !stem.isEmpty && pattern.matches(stem) ? String(stem) : nil
    }

    func classify(_ files: [ChangedFile], base: String?, head: String, comparison: String, headIsMerge: Bool,
                  exists: (String, Side) throws(GitError) -> Bool) throws(GitError) -> ChangeSet {
        let targets = try folders(files, locate: testTarget, exists: exists)
        let references = try folders(files, locate: referenceFolder, exists: exists)
        let testFiles = files.compactMap { file -> ChangedTestFile? in
            guard let name = testName(of: file.path) else { return nil }
            return ChangedTestFile(name: name, path: file.path, status: file.status, oldPath: file.oldPath,
                                   oldName: file.oldPath.flatMap(testName))
        }
        let other = files.filter { file in
            file.touchedPaths.allSatisfy { testTarget(of: $0) == nil && referenceFolder(of: $0) == nil && testName(of: $0) == nil }
        }
        let promotable = Set(testFiles.map(\.name)).union(references.map(\.name)).sorted()
        return ChangeSet(base: base, head: head, comparison: comparison, headIsMerge: headIsMerge, files: files,
                         testTargets: targets, testFiles: testFiles, referenceFolders: references,
                         promotable: promotable, other: other)
    }

    /// Groups changed files by the folder `locate` finds for them, and gives each folder a status:
    /// added or deleted when it exists on one side only, renamed when an added folder holds only
    /// files renamed out of one deleted folder, modified otherwise.
    private func folders(_ files: [ChangedFile], locate: (String) -> (name: String, path: String)?,
                         exists: (String, Side) throws(GitError) -> Bool) throws(GitError) -> [ChangedFolder] {
        var groups: [String: (name: String, files: [ChangedFile])] = [:]
        for file in files {
            for folder in Set(file.touchedPaths.compactMap { locate($0)?.path }) {
                let name = file.touchedPaths.lazy.compactMap(locate).first { $0.path == folder }?.name ?? folder
                groups[folder, default: (name, [])].files.append(file)
            }
        }
        var result: [String: ChangedFolder] = [:]
        var renamedAway: Set<String> = []
        for (path, group) in groups {
            let inBase = try exists(path, .base), inHead = try exists(path, .head)
            var folder = ChangedFolder(name: group.name, path: path, status: .modified, oldPath: nil,
                                       files: group.files.count)
            if inHead && !inBase {
                folder.status = .added
                let sources = Set(group.files.map { $0.status == .renamed ? $0.oldPath.flatMap { locate($0)?.path } : nil })
                if sources.count == 1, let source = sources.first ?? nil, try !exists(source, .head) {
                    folder.status = .renamed
                    folder.oldPath = source
                    renamedAway.insert(source)
                }
            } else if inBase && !inHead {
                folder.status = .deleted
            }
            result[path] = folder
        }
        return result.values.filter { !renamedAway.contains($0.path) }.sorted { $0.path < $1.path }
    }
}
