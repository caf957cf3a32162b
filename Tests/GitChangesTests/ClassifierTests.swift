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
