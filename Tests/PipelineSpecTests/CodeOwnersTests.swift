import Foundation
import Testing

@testable import PipelineSpec

@Suite("CODEOWNERS: the last matching rule names a path's owners")
struct CodeOwnersTests {
    @Test("GitHub's patterns: anywhere, anchored, folders, *, **; the last match wins; comments and no owners")
    func rules() {
        let owners = CodeOwners(
            """
            # the default
            *                       @everyone
            *.swift                 @swift-people   # Swift anywhere
            /Tests/                 @testers
            Tests/AppTests/Snapshot*.swift @snapshots
            docs/**/*.md            @writers
            Sources/Generated/
            """)
        #expect(owners.owners(of: "README.md") == ["@everyone"])
        #expect(owners.owners(of: "Sources/App/App.swift") == ["@swift-people"])
        #expect(owners.owners(of: "Tests/AppTests/ParserTests.swift") == ["@testers"])
        #expect(owners.owners(of: "Tests/AppTests/SnapshotViewTests.swift") == ["@snapshots"])
        #expect(owners.owners(of: "docs/guide/intro.md") == ["@writers"])
        #expect(owners.owners(of: "Sources/Generated/Model.swift") == [], "a rule with no owners unowns")
        // `/Tests/` is anchored: a nested Tests folder is not it.
        #expect(owners.owners(of: "Packages/Kit/Tests/KitTests.swift") == ["@swift-people"])
        #expect(CodeOwners("").owners(of: "a.swift") == [])
    }

    @Test("a test's type: the file named after it, else the file declaring it; .build left out; nil when none does")
    func declaringFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("owners-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = [
            "Tests/AppTests/LoginTests.swift": "final class LoginTests: XCTestCase {}",
            "Tests/UITests/SlowRenderingTests.swift":
                "final class SlowRenderingTests {}\nfinal class FaultyTests: XCTestCase {}",
            ".build/checkouts/Other/FaultyTests.swift": "class FaultyTests {}",
            "Tests/UITests/Notes.swift":
                "// FaultyTestsExtra is not FaultyTests's declaration\nstruct FaultyTestsExtra {}",
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let owners = CodeOwners("* @everyone\n/Tests/UITests/ @ui\n")
        #expect(owners.owners(ofType: "LoginTests", in: root)?.owners == ["@everyone"])
        let faulty = owners.owners(ofType: "FaultyTests", in: root)
        #expect(
            faulty?.path == "Tests/UITests/SlowRenderingTests.swift" && faulty?.owners == ["@ui"],
            "\(String(describing: faulty))")
        #expect(owners.owners(ofType: "MissingTests", in: root) == nil)
    }
}
