import SnapshotConventions

/// Sorts changed paths into test targets, test files, reference folders and the rest.
/// Pure: folder existence on each side is asked of `exists`, so it is testable without a repository.
struct ChangeClassifier {
    enum Side { case base, head }

    /// A folder a path belongs to: its name and its path from the repository's root.
    struct Folder: Hashable {
        var name: String
        var path: String
    }

    /// Where one path sits: its test target and reference folder, as numbers in a `FolderTable`,
    /// and its test's name when it is a test file.
    struct PathFacts {
        var target: Int?
        var reference: Int?
        var testName: String?

        var isOther: Bool { target == nil && reference == nil && testName == nil }
    }

    /// The folders the classified paths sit in, each kept once and numbered in the order first met.
    /// A path's target and reference folder depend only on its directory, and changed paths come in
    /// tree order, so the last directory's answer is kept: a folder of many changed files is split once.
    struct FolderTable {
        let classifier: ChangeClassifier
        private(set) var folders: [Folder] = []
        private var numbers: [String: Int] = [:]
        private var lastDirectory: [UInt8]?
        private var lastFolders: (target: Int?, reference: Int?) = (nil, nil)

        init(classifier: ChangeClassifier) {
            self.classifier = classifier
        }

        mutating func facts(of path: String) -> PathFacts {
            var path = path
            return path.withUTF8 { facts(ofBytes: $0) }
        }

        private mutating func facts(ofBytes path: UnsafeBufferPointer<UInt8>) -> PathFacts {
            let nameStart = (path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            let directory = UnsafeBufferPointer(rebasing: path[..<nameStart])
            if lastDirectory.map({ !directory.elementsEqual($0) }) ?? true {
                lastDirectory = Array(directory)
                lastFolders = folders(ofDirectory: directory)
            }
            var facts = PathFacts(target: lastFolders.target, reference: lastFolders.reference)
            if facts.reference == nil {
                let suffix = ".swift".utf8.count
                if path.count - nameStart > suffix, path[(path.count - suffix)...].elementsEqual(".swift".utf8) {
                    let stem = UnsafeBufferPointer(rebasing: path[nameStart..<(path.count - suffix)])
                    if classifier.pattern.matches(utf8: stem) { facts.testName = String(decoding: stem, as: UTF8.self) }
                }
            }
            return facts
        }

        /// The test target and reference folder of a directory (its path with the trailing slash):
        /// - the test target: the folder up to the first component that matches the pattern, passing
        ///   over SwiftPM's `Tests` container when a folder below it matches; folders below
        ///   `__Snapshots__` are references, never targets;
        /// - the reference folder: `…/__Snapshots__/<TestFile>`, when the directory is inside one.
        /// Works on bytes: slicing a String by its indices would check grapheme boundaries each time.
        private mutating func folders(ofDirectory path: UnsafeBufferPointer<UInt8>) -> (target: Int?, reference: Int?) {
            var reference: Int?
            var start = 0
            var snapshots = false
            var first: Range<Int>?
            var firstIsContainer = false
            var targetFound = false
            // Each folder of the path, once, left to right.
            while let slash = path[start...].firstIndex(of: UInt8(ascii: "/")) {
                let name = UnsafeBufferPointer(rebasing: path[start..<slash])
                if snapshots {
                    reference = number(path, start..<slash)
                    break
                }
                if name.elementsEqual(ChangeClassifier.snapshotsFolder.utf8) {
                    snapshots = true
                } else if !targetFound, classifier.pattern.matches(utf8: name) {
                    if first == nil {
                        first = start..<slash
                        firstIsContainer = name.elementsEqual(ChangeClassifier.testsContainer.utf8)
                    } else {
                        if firstIsContainer { first = start..<slash }
                        targetFound = true
                    }
                }
                start = slash + 1
            }
            return (first.map { number(path, $0) }, reference)
        }

        /// The number of the folder whose name is `path[name]`, the path up to it being its path.
        private mutating func number(_ path: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Int {
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: path[range]), as: UTF8.self)
            }
            let folderPath = text(0..<name.upperBound)
            if let known = numbers[folderPath] { return known }
            folders.append(Folder(name: text(name), path: folderPath))
            numbers[folderPath] = folders.count - 1
            return folders.count - 1
        }
    }

    static let snapshotsFolder = SnapshotFile.folderName

    /// SwiftPM's folder of test targets; it matches `*Tests` but holds targets rather than being one.
    static let testsContainer = "Tests"

    let pattern: NamePattern

    func testTarget(of path: String) -> Folder? {
        var table = FolderTable(classifier: self)
        return table.facts(of: path).target.map { table.folders[$0] }
    }

    func referenceFolder(of path: String) -> Folder? {
        var table = FolderTable(classifier: self)
        return table.facts(of: path).reference.map { table.folders[$0] }
    }

    func testName(of path: String) -> String? {
        var table = FolderTable(classifier: self)
        return table.facts(of: path).testName
    }

    func classify(
        _ files: [ChangedFile], base: String?, head: String, comparison: String, headIsMerge: Bool,
        exists: (String, Side) -> Bool
    ) -> ChangeSet {
        // Each path is split once; `located[i]` describes `files[i]` (and its old path, for a rename).
        var table = FolderTable(classifier: self)
        let located = files.map { file in
            (new: table.facts(of: file.path), old: file.oldPath.map { table.facts(of: $0) })
        }
        let targets = folders(files, located, table.folders, locate: \.target, exists: exists)
        let references = folders(files, located, table.folders, locate: \.reference, exists: exists)
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
        _ files: [ChangedFile], _ located: [(new: PathFacts, old: PathFacts?)], _ table: [Folder],
        locate: KeyPath<PathFacts, Int?>, exists: (String, Side) -> Bool
    ) -> [ChangedFolder] {
        struct Group {
            var files = 0
            /// The one folder all its files were renamed out of; nil once a file was not renamed or
            /// came from elsewhere.
            var source: Int?
            var mixed = false

            mutating func add(renamedFrom folder: Int?) {
                files += 1
                if files == 1 { source = folder } else if source != folder { mixed = true }
            }
        }
        // By folder number (the table holds each folder once); a group of no files is no folder.
        var groups = [Group](repeating: Group(), count: table.count)
        for (file, facts) in zip(files, located) {
            let new = facts.new[keyPath: locate]
            let old = facts.old?[keyPath: locate]
            if let new {
                groups[new].add(renamedFrom: file.status == .renamed ? old : nil)
            }
            if let old, old != new {
                groups[old].add(renamedFrom: nil)
            }
        }
        var result: [(number: Int, folder: ChangedFolder)] = []
        var renamedAway: Set<Int> = []
        for (number, group) in groups.enumerated() where group.files > 0 {
            let path = table[number].path
            let inBase = exists(path, .base)
            let inHead = exists(path, .head)
            var folder = ChangedFolder(
                name: table[number].name, path: path, status: .modified, oldPath: nil, files: group.files)
            if inHead && !inBase {
                folder.status = .added
                if !group.mixed, let source = group.source, !exists(table[source].path, .head) {
                    folder.status = .renamed
                    folder.oldPath = table[source].path
                    renamedAway.insert(source)
                }
            } else if inBase && !inHead {
                folder.status = .deleted
            }
            result.append((number, folder))
        }
        return result.filter { !renamedAway.contains($0.number) }.map(\.folder).sorted { $0.path < $1.path }
    }
}
