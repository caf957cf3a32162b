import Testing

@testable import GitChanges

@Suite("Classifying paths")
struct ClassifierTests {
    let classifier = ChangeClassifier(pattern: NamePattern("*Tests"))

    @Test("test targets at any depth; SwiftPM's Tests folder holds targets rather than being one")
    func targets() {
        #expect(classifier.testTarget(of: "Tests/AppTests/Foo.swift")?.path == "Tests/AppTests")
        #expect(classifier.testTarget(of: "AppTests/Foo.swift")?.path == "AppTests")
        #expect(classifier.testTarget(of: "SpotTests/Snapshot/Foo.swift")?.path == "SpotTests")
        #expect(classifier.testTarget(of: "Modules/Core/Tests/CoreTests/X.swift")?.name == "CoreTests")
        #expect(classifier.testTarget(of: "Tests/LinuxMain.swift")?.path == "Tests")
        #expect(classifier.testTarget(of: "Sources/App/AppTests.swift") == nil)
        #expect(classifier.testTarget(of: "__Snapshots__/FooTests/a.png") == nil)
    }

    @Test("reference folders and test files")
    func referencesAndFiles() {
        let reference = classifier.referenceFolder(of: "Tests/AppTests/__Snapshots__/SampleVCTests/test_a.1.png")
        #expect(reference?.name == "SampleVCTests")
        #expect(reference?.path == "Tests/AppTests/__Snapshots__/SampleVCTests")
        #expect(classifier.referenceFolder(of: "Tests/AppTests/__Snapshots__/loose.png") == nil)
        #expect(classifier.testName(of: "Tests/AppTests/SampleVCTests.swift") == "SampleVCTests")
        #expect(classifier.testName(of: "Tests/AppTests/Helpers.swift") == nil)
        #expect(classifier.testName(of: "Tests/AppTests/__Snapshots__/XTests/YTests.swift") == nil)
    }

    @Test(
        "name patterns",
        arguments: [
            ("*Tests", "AppTests", true), ("*Tests", "Tests", true), ("*Tests", "AppTest", false),
            ("*Spec?", "AppSpecs", true), ("*Spec?", "AppSpec", false), ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false), ("*", "", true), ("テスト*", "テスト画面", true),
        ])
    func patterns(_ pattern: String, _ name: String, _ expected: Bool) {
        #expect(NamePattern(pattern).matches(name) == expected)
    }
}

@Suite("Grouping changed paths into folders")
struct FolderGroupingTests {
    let classifier = ChangeClassifier(pattern: NamePattern("*Tests"))

    func classify(_ files: [ChangedFile], onlyInBase: Set<String> = [], onlyInHead: Set<String> = []) -> ChangeSet {
        classifier.classify(files, base: nil, head: "h", comparison: "merge", headIsMerge: false) { folder, side in
            !(side == .head ? onlyInBase : onlyInHead).contains(folder)
        }
    }

    @Test("a folder met again after another one is one folder, its files counted together")
    func revisited() {
        let set = classify([
            ChangedFile(path: "Tests/ATests/__Snapshots__/XTests/a.png", status: .modified),
            ChangedFile(path: "Tests/BTests/__Snapshots__/YTests/b.png", status: .modified),
            ChangedFile(path: "Tests/ATests/__Snapshots__/XTests/c.png", status: .added),
            ChangedFile(path: "Tests/ATests/XTests.swift", status: .modified),
        ])
        #expect(set.testTargets.map(\.path) == ["Tests/ATests", "Tests/BTests"])
        #expect(set.testTargets.map(\.files) == [3, 1])
        #expect(
            set.referenceFolders.map(\.path) == [
                "Tests/ATests/__Snapshots__/XTests", "Tests/BTests/__Snapshots__/YTests",
            ])
        #expect(set.referenceFolders.map(\.files) == [2, 1])
        #expect(set.testFiles.map(\.name) == ["XTests"])
        #expect(set.promotable == ["XTests", "YTests"])
        #expect(set.other.isEmpty)
    }

    @Test("a folder whose files were all renamed out of one deleted folder is a renamed folder")
    func renamedFolder() {
        let old = "Tests/ATests/__Snapshots__/OldTests"
        let new = "Tests/ATests/__Snapshots__/NewTests"
        let set = classify(
            [
                ChangedFile(path: "\(new)/a.png", status: .renamed, oldPath: "\(old)/a.png"),
                ChangedFile(path: "\(new)/b.png", status: .renamed, oldPath: "\(old)/b.png"),
            ], onlyInBase: [old], onlyInHead: [new])
        #expect(set.referenceFolders.count == 1)
        #expect(set.referenceFolders.first?.status == .renamed)
        #expect(set.referenceFolders.first?.oldPath == old)
        #expect(set.referenceFolders.first?.files == 2)
    }
}
