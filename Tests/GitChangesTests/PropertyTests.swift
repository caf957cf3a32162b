import Foundation
import TestSupport
import Testing

@testable import GitChanges

@Suite("Property: the changed files equal git diff --no-renames on random histories")
struct PropertyTests {
    static let folders = [
        "Sources/App", "Tests/AppTests", "Tests/AppTests/__Snapshots__/SampleVCTests",
        "Tests/画面Tests/__Snapshots__/初期 Tests", "Docs", "Tests/Other Tests",
    ]
    static let names = ["a.swift", "BTests.swift", "test_初期起動時.1.png", "with space.txt", "x+y=z.png", "c"]

    @Test("random commits, branches and merges", arguments: 1...6)
    func randomHistory(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let repository = try TestRepository()
        var files: Set<String> = []
        /// Adds, edits, deletes and renames a few files, each applied at once; `only` confines the paths.
        func mutate(only folder: String? = nil) throws {
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let path =
                    (folder ?? Self.folders.randomElement(using: &random)!) + "/"
                    + Self.names.randomElement(using: &random)!
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<2 where files.contains(path):
                    try repository.remove(path)
                    files.remove(path)
                case 2 where files.contains(path):
                    let target =
                        Self.folders.randomElement(using: &random)! + "/moved-" + path.split(separator: "/").last!
                    if !files.contains(target) {
                        try FileManager.default.createDirectory(
                            at: repository.root.appendingPathComponent(target).deletingLastPathComponent(),
                            withIntermediateDirectories: true)
                        try repository.git("mv", path, target)
                        files.remove(path)
                        files.insert(target)
                    }
                default:
                    try repository.write([
                        path: "content \(random.next() % 1000)\n" + String(repeating: "line\n", count: 20)
                    ])
                    files.insert(path)
                }
            }
        }
        try mutate()
        try repository.commit("root")
        for step in 0..<8 {
            let branch = "topic\(step)"
            try repository.git("checkout", "-q", "-b", branch)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                try mutate()
                try repository.commit("work on \(branch)")
            }
            try repository.git("checkout", "-q", "develop")
            files = Set(try repository.git("ls-files", "-z").split(separator: "\0").map(String.init))
            if Bool.random(using: &random) {
                // develop moves on meanwhile, in a folder the topic branches leave alone, so merges never conflict.
                try mutate(only: "Develop")
                try repository.commit("develop moves")
            }
            try repository.git("merge", "-q", "--no-ff", "-m", "merge \(branch)", branch)
            files = Set(try repository.git("ls-files", "-z").split(separator: "\0").map(String.init))

            let detector = ChangeDetector(repositoryPath: repository.path)
            let merge = try detector.changes(.merge(head: "HEAD"))
            let touched = Set(merge.files.flatMap(\.touchedPaths))
            #expect(touched == (try repository.gitDiffNames("HEAD^1", "HEAD")), "seed \(seed), merge \(step)")
            // Without rename detection the list is git's, status for status and in git's order.
            let plain = try ChangeDetector(repositoryPath: repository.path, detectRenames: false).changes(
                .merge(head: "HEAD"))
            #expect(
                plain.files.map { "\($0.status.letter)\t\($0.path)" }
                    == (try repository.git(
                        "-c", "core.quotePath=false", "diff", "--no-renames", "--name-status", "HEAD^1", "HEAD"
                    )
                    .split(separator: "\n").map(String.init)), "seed \(seed), merge \(step)")
            let range = try detector.changes(.range(base: "HEAD~1", head: "\(branch)"))
            #expect(Set(range.files.flatMap(\.touchedPaths)) == (try repository.gitDiffNames("HEAD~1", branch)))
            let base = try detector.changes(.mergeBase(base: "HEAD^1", head: "HEAD^2"))
            #expect(Set(base.files.flatMap(\.touchedPaths)) == (try repository.gitDiffNames("HEAD^1...HEAD^2")))
            // Every promotable test comes from a changed test file or reference folder.
            for name in merge.promotable {
                #expect(
                    merge.testFiles.contains { $0.name == name } || merge.referenceFolders.contains { $0.name == name })
            }
        }
    }
}

extension ChangeStatus {
    /// git's `--name-status` letter.
    var letter: String {
        switch self {
        case .added: "A"
        case .modified: "M"
        case .deleted: "D"
        case .renamed: "R"
        }
    }
}
