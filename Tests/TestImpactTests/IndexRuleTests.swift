import Foundation
import SymbolIndex
import Testing

@testable import TestImpact

/// Selection by what each use resolves to: the impact map's index against the name rule, on the
/// same change.
@Suite("impact by the compiler's index: a changed declaration reaches the functions that refer to it")
struct IndexRuleTests {
    static let shapes = """
        public struct Square {
            public var side: Int
            public init(side: Int) { self.side = side }
            public func area() -> Int { side * side }
        }
        public func total(_ squares: [Square]) -> Int { squares.reduce(0) { $0 + $1.area() } }

        """
    /// `report` calls the package's `total`; `other` has a local variable of that name.
    static let report =
        "func report() -> Int {\n    total([])\n}\nfunc other() -> Int {\n    let total = 3\n    return total\n}\n"

    static var map: ImpactMap {
        var map = ImpactMap(
            commit: String(repeating: "a", count: 40), package: ".", configuration: "debug",
            recordedAt: "2026-11-26T08:00:00Z",
            suites: [
                "AppTests.ShapeTests": ["Sources/App/Shapes.swift"],
                "AppTests.ReportTests": ["Sources/App/Report.swift"],
                "AppTests.OtherTests": ["Sources/App/Report.swift"],
            ],
            tests: [
                "AppTests.ShapeTests": ["AppTests.ShapeTests/testArea"],
                "AppTests.ReportTests": ["AppTests.ReportTests/testReport"],
                "AppTests.OtherTests": ["AppTests.OtherTests/testOther"],
            ],
            functions: [
                "AppTests.ShapeTests": ["Sources/App/Shapes.swift": [3, 4]],
                "AppTests.ReportTests": ["Sources/App/Report.swift": [1]],
                "AppTests.OtherTests": ["Sources/App/Report.swift": [4]],
            ])
        var total = SymbolIndex.Declaration(name: "total(_:)", file: 0, line: 6)
        total.references = [1, 2]
        var square = SymbolIndex.Declaration(name: "Square", file: 0, line: 1)
        square.references = [0, 6]
        square.members = ["s:area", "s:init"]
        map.index = SymbolIndex(
            files: ["Sources/App/Shapes.swift", "Sources/App/Report.swift"],
            declarations: [
                "s:total": total, "s:Square": square,
                "s:area": SymbolIndex.Declaration(name: "area()", file: 0, line: 4),
                "s:init": SymbolIndex.Declaration(name: "init(side:)", file: 0, line: 3),
            ],
            externalNames: ["reduce"])
        return map
    }

    static let sources = ["Sources/App/Shapes.swift": shapes, "Sources/App/Report.swift": report]

    func select(_ new: String, path: String = "Sources/App/Shapes.swift", map: ImpactMap = map) -> ImpactSelection {
        var sources = Self.sources
        sources[path] = new
        return ImpactSelection.select(
            map: map, changes: [ImpactChange(path: path, old: Self.sources[path] ?? Self.shapes, new: new)],
            current: map.tests, sources: sources)
    }

    @Test("a changed signature reaches the function calling it, not one whose local variable has its name")
    func resolved() {
        let scaled = Self.shapes.replacingOccurrences(
            of: "public func total(_ squares: [Square]) -> Int {",
            with: "public func total(_ squares: [Square], scale: Int = 1) -> Int {")
        let byIndex = select(scaled)
        #expect(Set(byIndex.suites.keys) == ["AppTests.ShapeTests", "AppTests.ReportTests"], "\(byIndex.suites)")
        #expect(
            byIndex.suites["AppTests.ReportTests"]?.contains(
                "the function at line 1 of Sources/App/Report.swift, which refers to total(_:) (declared in Sources/App/Shapes.swift:6)"
            )
                == true, "\(byIndex.suites)")
        var unindexed = Self.map
        unindexed.index = nil
        let byNames = select(scaled, map: unindexed)
        #expect(byNames.suites["AppTests.OtherTests"] != nil, "the name rule reaches `let total`: \(byNames.suites)")
        #expect(
            byNames.notes.contains { $0.contains("recorded before it kept the compiler's index") }, "\(byNames.notes)")
    }

    @Test("a removed type reaches what uses its members; an initialiser (no name of its own) is found by its line")
    func membersAndInitialisers() {
        let labelled = Self.shapes.replacingOccurrences(
            of: "public init(side: Int) { self.side = side }",
            with: "public init(length side: Int) { self.side = side }")
        let selection = select(labelled)
        #expect(selection.fallback.isEmpty, "the index knows the initialiser: \(selection.fallback)")
        #expect(selection.suites["AppTests.OtherTests"] == nil, "\(selection.suites)")
    }

    @Test("a module imported before and after in another form changes nothing beyond the file; a re-export does")
    func importForms() {
        let before = "@_implementationOnly import RealModule\n" + Self.shapes
        let after =
            "#if swift(>=5.11)\ninternal import RealModule\n#else\n@_implementationOnly import RealModule\n#endif\n"
            + Self.shapes
        let selection = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: "Sources/App/Shapes.swift", old: before, new: after)],
            current: Self.map.tests,
            sources: ["Sources/App/Shapes.swift": after, "Sources/App/Report.swift": Self.report])
        #expect(selection.fallback.isEmpty, "\(selection.fallback)")
        #expect(Set(selection.suites.keys) == ["AppTests.ShapeTests"], "the file's own suites: \(selection.suites)")
        let exported = ImpactSelection.select(
            map: Self.map,
            changes: [
                ImpactChange(
                    path: "Sources/App/Shapes.swift", old: before,
                    new: "@_exported import RealModule\n" + Self.shapes)
            ], current: Self.map.tests, sources: Self.sources)
        #expect(exported.fallback["Sources/App/Shapes.swift"]?.contains("an import no other file") == true)
    }

    @Test("where the index cannot see, names judge, and the note says why")
    func refusals() {
        // A conformance added to a type another file declares; one of its own file's type is found through its uses.
        let conformance = Self.report + "extension Square: Equatable {}\n"
        let refused = select(conformance, path: "Sources/App/Report.swift")
        #expect(refused.notes.contains { $0.contains("changes a conformance") }, "\(refused.notes)")
        let own = select(Self.shapes + "extension Square: Equatable {}\n")
        #expect(!own.notes.contains { $0.contains("by names") }, "\(own.notes)")
        let dynamic = Self.shapes.replacingOccurrences(
            of: "public struct Square {", with: "@dynamicMemberLookup\npublic struct Square {")
        #expect(select(dynamic).notes.contains { $0.contains("dynamic dispatch") }, "\(select(dynamic).notes)")
        let unindexed = select("func report() -> Int {\n    total([1])\n}\n", path: "Sources/App/Other.swift")
        #expect(
            unindexed.notes.contains { $0.contains("the index has no unit for Sources/App/Other.swift") },
            "\(unindexed.notes)")
        // A new declaration named as another module's may capture its uses: those go by names.
        let capture =
            Self.shapes + "extension Array where Element == Square {\n    public func reduce() -> Int { 0 }\n}\n"
        let captured = select(capture)
        #expect(captured.notes.contains { $0.contains("by names for reduce") }, "\(captured.notes)")
        #expect(
            captured.suites["AppTests.ShapeTests"] != nil,
            "the suites that executed a file naming reduce: \(captured.suites)")
    }
}

@Suite("corelibs-xctest's instances: a test class's fixtures are its own suite's")
struct InstanceCreationTests {
    @Test(
        "what every suite executed inside one test class's body stays with that class's suite; shared helpers stay with all"
    )
    func separated() {
        let source = """
            import XCTest

            func sharedHelper() -> Int { 1 }

            final class ATests: XCTestCase {
                let fixture = Fixture.load()
                func testA() { XCTAssertEqual(fixture.count, sharedHelper()) }
            }

            final class BTests: XCTestCase {
                func testB() { XCTAssertEqual(sharedHelper(), 1) }
            }

            """
        let file = "Tests/AppTests/Tests.swift"
        var functions = [
            "AppTests.ATests": [file: [3, 6, 7]],
            "AppTests.BTests": [file: [3, 6, 11]],
        ]
        var files = ["AppTests.ATests": [file], "AppTests.BTests": [file]]
        #expect(InstanceCreation.testClasses(in: source).map(\.name) == ["ATests", "BTests"])
        InstanceCreation.separate(functions: &functions, files: &files) { $0 == file ? source : nil }
        #expect(functions["AppTests.ATests"]?[file] == [3, 6, 7])
        #expect(functions["AppTests.BTests"]?[file] == [3, 11], "ATests' fixture (line 6) is ATests' own")
        #expect(files["AppTests.BTests"] == [file])
    }
}
