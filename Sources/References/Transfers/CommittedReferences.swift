import Foundation
import GitChanges
import ObjectStorage

/// References committed in git: tests whose reference folder holds files in the merge commit.
/// Promotion takes them from the merge commit itself, not from
/// feature, and promotes the files the merge changed in git (added or changed, and with `--prune`
/// removed) against the commit it is compared with.
struct CommittedReferences {
    struct Test {
        /// The reference folder, from the repository's root.
        var folder: String
        /// The merge commit's files: name → contents.
        var head: [String: [UInt8]]
        /// The merge commit's files: name → MD5.
        var headMD5: [String: String]
        /// The compared commit's files: name → MD5.
        var base: [String: String]

        /// The files the merge changed: added or changed, and removed.
        var changes: (changed: [String], removed: [String]) {
            PushManifest(commit: "", pushedAt: "", files: headMD5, develop: base).changes
        }
    }

    let tests: [String: Test]

    var isEmpty: Bool { tests.isEmpty }

    /// Which of `tests` keep their references in git at `changes.head`. A test's folder is where the
    /// comparison changed it, or where the checkout keeps it (`local`). A folder the merge emptied
    /// is not taken as references committed in git: the test went, or its references moved out of
    /// git to storage, and either way develop's copies stay.
    static func find(_ tests: [String], changes: ChangeSet, history: CommitHistory, local: LocalReferences) throws
        -> CommittedReferences
    {
        var found: [String: Test] = [:]
        for test in tests {
            // (the folder at the merge commit, the same folder at the commit compared with)
            var folders = changes.referenceFolders.filter { $0.name == test }.map { ($0.path, $0.oldPath ?? $0.path) }
            if let checkout = checkoutFolder(of: test, local: local, workTree: history.workTree) {
                folders.append((checkout, checkout))
            }
            for (folder, baseFolder) in folders {
                let head = try history.files(in: folder, at: changes.head)
                guard !head.isEmpty else { continue }
                let base = try changes.base.map { try history.files(in: baseFolder, at: $0) } ?? [:]
                found[test] = Test(
                    folder: folder, head: head, headMD5: try head.mapValues { try Digest.hex(of: $0, .md5) },
                    base: try base.mapValues { try Digest.hex(of: $0, .md5) })
                break
            }
        }
        return CommittedReferences(tests: found)
    }

    /// Where the checkout keeps `test`'s references, from the repository's root; nil outside it.
    static func checkoutFolder(of test: String, local: LocalReferences, workTree: String) -> String? {
        let root = URL(fileURLWithPath: workTree).resolvingSymlinksInPath().standardizedFileURL.path + "/"
        guard let folder = local.path(of: test, file: "x")?.deletingLastPathComponent() else { return nil }
        let path = folder.resolvingSymlinksInPath().standardizedFileURL.path
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : nil
    }

    /// Writes the merge commit's files of every test as `<folder>/<Test>/<file>`, a reference store's layout.
    func write(to folder: URL) throws {
        for (test, files) in tests {
            for (name, contents) in files.head {
                let file = folder.appendingPathComponent(test).appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents).write(to: file)
            }
        }
    }
}
