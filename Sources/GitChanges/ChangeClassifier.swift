/// Sorts changed paths into test targets, test files, reference folders and the rest.
/// Pure: folder existence on each side is asked of `exists`, so it is testable without a repository.
struct ChangeClassifier {
    enum Side { case base, head }

    /// A folder a path belongs to: its name and its path from the repository's root.
    struct Folder: Hashable {
        var name: String
        var path: String
    }

    /// Where one path sits, worked out from a single split of the path.
    struct PathFacts {
        var target: Folder?
        var reference: Folder?
        var testName: String?

        var isOther: Bool { target == nil && reference == nil && testName == nil }
    }

    static let snapshotsFolder = "__Snapshots__"

    /// SwiftPM's folder of test targets; it matches `*Tests` but holds targets rather than being one.
    static let testsContainer = "Tests"

    let pattern: NamePattern

    /// The facts of one path:
    /// - the test target: the folder up to the first component that matches the pattern, passing over
    ///   SwiftPM's `Tests` container when a folder below it matches; folders below `__Snapshots__` are
    ///   references, never targets;
    /// - the reference folder: `…/__Snapshots__/<TestFile>`, when the path is inside one;
    /// - the test's name when the path is a test file: `…/SampleVCTests.swift` → `SampleVCTests`.
    func facts(of path: String) -> PathFacts {
        var facts = PathFacts()
        let bytes = path.utf8
        var start = bytes.startIndex
        var snapshots = false, first: Range<String.Index>?, firstIsContainer = false, targetFound = false
        // Each folder of the path, once, left to right.
        while let slash = bytes[start...].firstIndex(of: UInt8(ascii: "/")) {
            let name = path[start..<slash]
            if snapshots {
                facts.reference = Folder(name: String(name), path: String(path[..<slash]))
                break
            }
            if name.utf8.elementsEqual(Self.snapshotsFolder.utf8) {
                snapshots = true
            } else if !targetFound, pattern.matches(name) {
                if first == nil {
                    first = start..<slash
                    firstIsContainer = name.utf8.elementsEqual(Self.testsContainer.utf8)
                } else {
                    if firstIsContainer { first = start..<slash }
                    targetFound = true
                }
            }
            start = bytes.index(after: slash)
        }
        facts.target = first.map { Folder(name: String(path[$0]), path: String(path[..<$0.upperBound])) }
        if facts.reference == nil {
            let name = path[(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex)...]
            if name.utf8.count > 6, name.utf8.suffix(6).elementsEqual(".swift".utf8) {
                let stem = name.dropLast(".swift".count)
                if pattern.matches(stem) { facts.testName = String(stem) }
            }
        }
        return facts
    }

    func testTarget(of path: String) -> Folder? { facts(of: path).target }
    func referenceFolder(of path: String) -> Folder? { facts(of: path).reference }
    func testName(of path: String) -> String? { facts(of: path).testName }

    func classify(_ files: [ChangedFile], base: String?, head: String, comparison: String, headIsMerge: Bool,
                  exists: (String, Side) -> Bool) -> ChangeSet {
        var facts: [String: PathFacts] = [:]
        facts.reserveCapacity(files.count)
        for file in files {
            for path in file.touchedPaths { facts[path] = self.facts(of: path) }
        }
        let targets = folders(files, facts: facts, locate: \.target, exists: exists)
        let references = folders(files, facts: facts, locate: \.reference, exists: exists)
        let testFiles = files.compactMap { file -> ChangedTestFile? in
            guard let name = facts[file.path]?.testName else { return nil }
            return ChangedTestFile(name: name, path: file.path, status: file.status, oldPath: file.oldPath,
                                   oldName: file.oldPath.flatMap { facts[$0]?.testName })
        }
        let other = files.filter { file in file.touchedPaths.allSatisfy { facts[$0]?.isOther ?? true } }
        let promotable = Set(testFiles.map(\.name)).union(references.map(\.name)).sorted()
        return ChangeSet(base: base, head: head, comparison: comparison, headIsMerge: headIsMerge, files: files,
                         testTargets: targets, testFiles: testFiles, referenceFolders: references,
                         promotable: promotable, other: other)
    }

    /// Groups changed files by the folder `locate` finds for them, and gives each folder a status:
    /// added or deleted when it exists on one side only, renamed when an added folder holds only
    /// files renamed out of one deleted folder, modified otherwise.
    private func folders(_ files: [ChangedFile], facts: [String: PathFacts], locate: KeyPath<PathFacts, Folder?>,
                         exists: (String, Side) -> Bool) -> [ChangedFolder] {
        var groups: [String: (name: String, files: [ChangedFile])] = [:]
        for file in files {
            let new = facts[file.path]?[keyPath: locate]
            if let new { groups[new.path, default: (new.name, [])].files.append(file) }
            if let old = file.oldPath.flatMap({ facts[$0]?[keyPath: locate] }), old.path != new?.path {
                groups[old.path, default: (old.name, [])].files.append(file)
            }
        }
        var result: [ChangedFolder] = []
        var renamedAway: Set<String> = []
        for (path, group) in groups {
            let inBase = exists(path, .base), inHead = exists(path, .head)
            var folder = ChangedFolder(name: group.name, path: path, status: .modified, oldPath: nil,
                                       files: group.files.count)
            if inHead && !inBase {
                folder.status = .added
                let sources = Set(group.files.map { $0.status == .renamed ? $0.oldPath.flatMap { facts[$0]?[keyPath: locate]?.path } : nil })
                if sources.count == 1, let source = sources.first ?? nil, !exists(source, .head) {
                    folder.status = .renamed
                    folder.oldPath = source
                    renamedAway.insert(source)
                }
            } else if inBase && !inHead {
                folder.status = .deleted
            }
            result.append(folder)
        }
        return result.filter { !renamedAway.contains($0.path) }.sorted { $0.path < $1.path }
    }
}
