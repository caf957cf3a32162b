import TestCore
import TestSharding
import XCTest

@testable import TestImpact

final class PackageGraphTests: XCTestCase {
    /// App → UI → Core, with a test target for each library and one for an unrelated target.
    private let graph = PackageGraph(targets: [
        .init(name: "Core", c99name: "Core", path: "Sources/Core", type: "library", targetDependencies: []),
        .init(name: "UI", c99name: "UI", path: "Sources/UI", type: "library", targetDependencies: ["Core"]),
        .init(name: "App", c99name: "App", path: "Sources/App", type: "executable", targetDependencies: ["UI"]),
        .init(name: "Other", c99name: "Other", path: "Sources/Other", type: "library", targetDependencies: []),
        .init(
            name: "CoreTests", c99name: "CoreTests", path: "Tests/CoreTests", type: "test", targetDependencies: ["Core"]
        ),
        .init(name: "UI-Tests", c99name: "UI_Tests", path: "Tests/UI-Tests", type: "test", targetDependencies: ["UI"]),
        .init(
            name: "OtherTests", c99name: "OtherTests", path: "Tests/OtherTests", type: "test",
            targetDependencies: ["Other"]),
    ])

    func testAChangedLibrarySelectsTheTestTargetsThatDependOnItTransitively() {
        XCTAssertEqual(
            graph.affected(by: ["Sources/Core/Parser.swift"]),
            .targets([
                "CoreTests": "it depends on Core, which changed (Sources/Core/Parser.swift)",
                "UI_Tests": "it depends on UI → Core, which changed (Sources/Core/Parser.swift)",
            ]))
    }

    func testAChangedTestTargetOrReferenceSelectsOnlyItself() {
        XCTAssertEqual(
            graph.affected(by: ["Tests/UI-Tests/__Snapshots__/MenuTests/test_menu.1.png"]),
            .targets(["UI_Tests": "it changed (Tests/UI-Tests/__Snapshots__/MenuTests/test_menu.1.png)"]))
        XCTAssertEqual(graph.affected(by: ["Sources/App/main.swift"]), .targets([:]), "no test target sees the app")
    }

    func testTheManifestOrAFileOutsideEveryTargetSelectsEverything() {
        XCTAssertEqual(
            graph.affected(by: ["Sources/Core/a.swift", "Package.swift"]), .everything(reason: "Package.swift changed"))
        XCTAssertEqual(
            graph.affected(by: ["Package@swift-5.9.swift"]), .everything(reason: "Package@swift-5.9.swift changed"))
        XCTAssertEqual(graph.affected(by: ["README.md"]), .everything(reason: "README.md is outside every target"))
        XCTAssertEqual(
            graph.affected(by: ["Sources/CoreExtras/x.swift"]),
            .everything(reason: "Sources/CoreExtras/x.swift is outside every target"),
            "a folder named like a target's prefix is not inside it")
    }

    func testAFileOutsideEveryTargetThatNoSwiftFileNamesRunsNothing() {
        let sources = ["Tests/CoreTests/FormatTests.swift": #"let script = "lint.sh""#]
        let named = { (name: String) in sources.values.contains { $0.contains(name) } }
        let (judged, reasons) = graph.unread(
            ["Scripts/format.sh", "Scripts/lint.sh", "Sources/Core/a.c"], named: named)
        XCTAssertEqual(
            judged, ["Scripts/lint.sh", "Sources/Core/a.c"], "a named file, and one in a target, are judged")
        XCTAssertEqual(
            reasons,
            [
                "affected: Scripts/format.sh is outside every target and no Swift file of the package names format.sh: "
                    + "no test builds or opens it, so none runs for it"
            ])
        XCTAssertEqual(
            graph.affected(by: judged.filter { $0 != "Scripts/lint.sh" }).self, graph.affected(by: ["Sources/Core/a.c"])
        )
    }

    func testFiltersMatchOnlyTheModulesTests() throws {
        let filters = PackageGraph.filters(for: ["UI_Tests", "CoreTests"])
        XCTAssertEqual(filters, [#"^CoreTests\."#, #"^UI_Tests\."#])
        let regex = try Regex(filters[1])
        XCTAssertNotNil("UI_Tests.MenuTests/testA".firstMatch(of: regex))
        XCTAssertNil("UI_TestsExtra.MenuTests/testA".firstMatch(of: regex))
    }
}
