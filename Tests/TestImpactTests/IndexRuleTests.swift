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
        // ShapeTests executed `area` and `init`, not `total`: the changed member is not its.
        #expect(Set(byIndex.suites.keys) == ["AppTests.ReportTests"], "\(byIndex.suites)")
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

    @Test(
        "an unavailable declaration and attributes without effect on a call select nothing; a disfavoured overload and a declaration made available select as a new one does"
    )
    func availability() {
        func adding(_ text: String) -> String {
            Self.shapes.replacingOccurrences(of: "    public func area()", with: text + "\n    public func area()")
        }
        // ReportTests' function names Square, so a new initialiser may capture a call there.
        var map = Self.map
        map.index?.declarations["s:Square"]?.references = [0, 6, 1, 2]
        func select(_ new: String) -> ImpactSelection { self.select(new, map: map) }
        // The case: an initialiser only there to give a clearer compile error.
        let unavailable = select(
            adding(
                "    @available(*, unavailable, message: \"give a side\")\n    public init(area: Int) { fatalError() }")
        )
        #expect(unavailable.suites.isEmpty && unavailable.fallback.isEmpty, "\(unavailable.suites)")
        #expect(
            unavailable.notes.contains {
                $0.contains("only declarations unavailable on this platform changed")
                    && $0.contains("public init(area: Int)")
            }, "\(unavailable.notes)")
        let attributes = select(
            Self.shapes.replacingOccurrences(
                of: "    public func area()",
                with: "    @available(*, deprecated, message: \"use side\")\n    @discardableResult public func area()")
        )
        #expect(attributes.suites.isEmpty, "\(attributes.suites)")
        #expect(
            attributes.notes.contains { $0.contains("only attributes that change no compiled call changed") },
            "\(attributes.notes)")
        // Safety: the same initialiser available, disfavoured or not, may be chosen by a call.
        let available = select(adding("    public init(area: Int) { self.side = area }"))
        #expect(!available.suites.isEmpty, "a new initialiser reaches the type's uses")
        let disfavoured = select(adding("    @_disfavoredOverload\n    public init(area: Int) { self.side = area }"))
        #expect(disfavoured.suites == available.suites, "\(disfavoured.suites)")
        // Made available where it was not: as a new declaration.
        let before = adding("    @available(*, unavailable)\n    public init(area: Int) { self.side = area }")
        let madeAvailable = ImpactSelection.select(
            map: map,
            changes: [
                ImpactChange(
                    path: "Sources/App/Shapes.swift", old: before,
                    new: adding("    public init(area: Int) { self.side = area }"))
            ], current: map.tests, sources: Self.sources)
        #expect(madeAvailable.suites == available.suites, "\(madeAvailable.suites)")
        #expect(available.suites["AppTests.ReportTests"] != nil, "\(available.suites)")
    }

    @Test(
        "a conformance to a protocol found only where named reaches the places naming the type, not every use of its members"
    )
    func conformances() {
        // ReportTests uses Square's `area` only; nothing in it names Square.
        var map = Self.map
        map.index?.declarations["s:area"]?.references = [1, 2]
        func adding(_ text: String) -> ImpactSelection {
            ImpactSelection.select(
                map: map,
                changes: [ImpactChange(path: "Sources/App/Shapes.swift", old: Self.shapes, new: Self.shapes + text)],
                current: map.tests, sources: Self.sources)
        }
        let literal = adding(
            "extension Square: ExpressibleByIntegerLiteral {\n    public init(integerLiteral value: Int) { self.init(side: value) }\n}\n"
        )
        #expect(literal.suites["AppTests.ReportTests"] == nil, "\(literal.suites)")
        #expect(literal.fallback.isEmpty && literal.everything == nil, "\(literal.fallback)")
        // A member added without a conformance may capture a lookup on any value of the type.
        let member = adding("extension Square {\n    public func perimeter() -> Int { 4 * side }\n}\n")
        #expect(member.suites["AppTests.ReportTests"] != nil, "\(member.suites)")
        // `print` and `String(describing:)` find CustomStringConvertible without naming it.
        let described = adding(
            "extension Square: CustomStringConvertible {\n    public var description: String { \"\\(side)\" }\n}\n")
        #expect(described.suites["AppTests.ReportTests"] != nil, "\(described.suites)")
        #expect(
            Conformances.inherited("extension Square: ExpressibleByIntegerLiteral, Swift.Hashable where T: P {") == [
                "ExpressibleByIntegerLiteral", "Hashable",
            ])
    }

    @Test("a module imported before and after in another form changes nothing; a re-export does")
    func importForms() {
        let before = "@_implementationOnly import RealModule\n" + Self.shapes
        let after =
            "#if swift(>=5.11)\ninternal import RealModule\n#else\n@_implementationOnly import RealModule\n#endif\n"
            + Self.shapes
        let selection = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: "Sources/App/Shapes.swift", old: before, new: after)],
            current: Self.map.tests,
            sources: ["Sources/App/Shapes.swift": after, "Sources/App/Report.swift": Self.report])
        #expect(selection.fallback.isEmpty && selection.suites.isEmpty, "\(selection.fallback) \(selection.suites)")
        #expect(
            selection.notes == [
                "Sources/App/Shapes.swift: only the form of its imports of RealModule changed, not what it sees, no test runs for it"
            ], "\(selection.notes)")
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
        // A conformance added to a type another file declares, to a protocol found without being
        // named; one of its own file's type is found through its uses; one found only where named
        // is the index's to judge wherever it is.
        let conformance =
            Self.report
            + "extension Square: CustomStringConvertible {\n    public var description: String { \"\" }\n}\n"
        let refused = select(conformance, path: "Sources/App/Report.swift")
        #expect(refused.notes.contains { $0.contains("changes a conformance") }, "\(refused.notes)")
        let named = select(Self.report + "extension Square: Equatable {}\n", path: "Sources/App/Report.swift")
        #expect(!named.notes.contains { $0.contains("by names") }, "\(named.notes)")
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
