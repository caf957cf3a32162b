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
}
