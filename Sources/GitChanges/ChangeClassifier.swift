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
        var path = path
        return path.withUTF8(facts(ofBytes:))
    }

    /// Works on the path's bytes: slicing a String by its indices would check grapheme boundaries each time.
    private func facts(ofBytes path: UnsafeBufferPointer<UInt8>) -> PathFacts {
        var facts = PathFacts()
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: path[range]), as: UTF8.self)
        }
        func folder(_ range: Range<Int>) -> Folder { Folder(name: text(range), path: text(0..<range.upperBound)) }
        var start = 0
        var snapshots = false
        var first: Range<Int>?
        var firstIsContainer = false
        var targetFound = false
        // Each folder of the path, once, left to right.
        while let slash = path[start...].firstIndex(of: UInt8(ascii: "/")) {
            let name = UnsafeBufferPointer(rebasing: path[start..<slash])
            if snapshots {
                facts.reference = folder(start..<slash)
                break
            }
            if name.elementsEqual(Self.snapshotsFolder.utf8) {
                snapshots = true
            } else if !targetFound, pattern.matches(utf8: name) {
                if first == nil {
                    first = start..<slash
                    firstIsContainer = name.elementsEqual(Self.testsContainer.utf8)
                } else {
                    if firstIsContainer { first = start..<slash }
                    targetFound = true
                }
            }
            start = slash + 1
        }
        facts.target = first.map(folder)
        if facts.reference == nil {
            let nameStart = (path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            let suffix = ".swift".utf8.count
            if path.count - nameStart > suffix, path[(path.count - suffix)...].elementsEqual(".swift".utf8) {
                let stem = UnsafeBufferPointer(rebasing: path[nameStart..<(path.count - suffix)])
                if pattern.matches(utf8: stem) { facts.testName = String(decoding: stem, as: UTF8.self) }
            }
        }
        return facts
    }

    func testTarget(of path: String) -> Folder? { facts(of: path).target }
    func referenceFolder(of path: String) -> Folder? { facts(of: path).reference }
    func testName(of path: String) -> String? { facts(of: path).testName }

    func classify(
        _ files: [ChangedFile], base: String?, head: String, comparison: String, headIsMerge: Bool,
        exists: (String, Side) -> Bool
    ) -> ChangeSet {
        // Each path is split once; `located[i]` describes `files[i]` (and its old path, for a rename).
        let located = files.map { file in (new: facts(of: file.path), old: file.oldPath.map { facts(of: $0) }) }
        let targets = folders(files, located, locate: \.target, exists: exists)
        let references = folders(files, located, locate: \.reference, exists: exists)
        var testFiles: [ChangedTestFile] = []
        var other: [ChangedFile] = []
        for (file, facts) in zip(files, located) {
            if let name = facts.new.testName {
                testFiles.append(
                    ChangedTestFile(
                        name: name, path: file.path, status: file.status, oldPath: file.oldPath,
                        oldName: facts.old?.testName))
            }
            if facts.new.isOther && facts.old?.isOther ?? true { other.append(file) }
        }
        let promotable = Set(testFiles.map(\.name)).union(references.map(\.name)).sorted()
        return ChangeSet(
            base: base, head: head, comparison: comparison, headIsMerge: headIsMerge, files: files,
            testTargets: targets, testFiles: testFiles, referenceFolders: references,
            promotable: promotable, other: other)
    }

    /// Groups changed files by the folder `locate` finds for them, and gives each folder a status:
    /// added or deleted when it exists on one side only, renamed when an added folder holds only
    /// files renamed out of one deleted folder, modified otherwise.
    private func folders(
        _ files: [ChangedFile], _ located: [(new: PathFacts, old: PathFacts?)],
        locate: KeyPath<PathFacts, Folder?>, exists: (String, Side) -> Bool
    ) -> [ChangedFolder] {
        struct Group {
            var name: String
            var files = 0
            /// The one folder all its files were renamed out of; nil once a file was not renamed or
            /// came from elsewhere.
            var source: String?
            var mixed = false

            mutating func add(renamedFrom folder: String?) {
                files += 1
                if files == 1 { source = folder } else if source != folder { mixed = true }
            }
        }
        var groups: [String: Group] = [:]
        for (file, facts) in zip(files, located) {
            let new = facts.new[keyPath: locate]
            let old = facts.old?[keyPath: locate]
            if let new {
                groups[new.path, default: Group(name: new.name)].add(
                    renamedFrom: file.status == .renamed ? old?.path : nil)
            }
            if let old, old.path != new?.path {
                groups[old.path, default: Group(name: old.name)].add(renamedFrom: nil)
            }
        }
        var result: [ChangedFolder] = []
        var renamedAway: Set<String> = []
        for (path, group) in groups {
            let inBase = exists(path, .base)
            let inHead = exists(path, .head)
            var folder = ChangedFolder(
                name: group.name, path: path, status: .modified, oldPath: nil, files: group.files)
            if inHead && !inBase {
                folder.status = .added
                if !group.mixed, let source = group.source, !exists(source, .head) {
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
