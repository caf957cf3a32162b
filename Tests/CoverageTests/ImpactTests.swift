import Foundation
import Testing

@testable import Coverage

@Suite("impact: which suites a change can reach, and why")
struct ImpactTests {
    static let map = ImpactMap(
        commit: String(repeating: "a", count: 40), package: ".", configuration: "debug",
        recordedAt: "2026-11-23T08:00:00Z",
        suites: [
            "AppTests.ParserTests": ["Sources/App/Parser.swift", "Tests/AppTests/ParserTests.swift"],
            "AppTests.ViewTests": ["Sources/App/View.swift", "Sources/App/Parser.swift"],
            "AppTests.BadgeViewTests": ["Sources/App/Badge.swift"],
        ],
        tests: [
            "AppTests.ParserTests": ["AppTests.ParserTests/testParse"],
            "AppTests.ViewTests": ["AppTests.ViewTests/testDraw"],
            "AppTests.BadgeViewTests": ["AppTests.BadgeViewTests/testBadge"],
        ])
    static let current = map.tests

    static let parser = """
        /// Parses.
        public struct Parser {
            public func parse(_ text: String) -> Int {
                let count = text.count
                return count > 3 ? 1 : 0
            }
        }
        """

    private func select(_ changes: [ImpactChange], current: [String: [String]] = current) -> ImpactSelection {
        ImpactSelection.select(map: Self.map, changes: changes, current: current)
    }

    @Test("a body change runs the suites that executed the file, and says so")
    func body() {
        let changed = Self.parser.replacingOccurrences(of: "count > 3", with: "count >= 3")
        let selection = select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: changed)])
        #expect(
            selection.suites == [
                "AppTests.ParserTests": "executed Sources/App/Parser.swift",
                "AppTests.ViewTests": "executed Sources/App/Parser.swift",
            ])
        #expect(selection.fallback.isEmpty && selection.everything == nil)
    }

    @Test("comments and blank lines run nothing; moved statements are a change")
    func comments() {
        let commented = Self.parser.replacingOccurrences(of: "/// Parses.", with: "/// Parses text.\n\n// More.")
        let none = select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: commented)])
        #expect(none.suites.isEmpty && none.fallback.isEmpty)
        #expect(none.notes == ["Sources/App/Parser.swift: comments and blank lines only, no test runs for it"])
        let swapped = Self.parser.replacingOccurrences(
            of: "        let count = text.count\n        return count > 3 ? 1 : 0",
            with: "        return count > 3 ? 1 : 0\n        let count = text.count")
        #expect(
            !select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: swapped)]).suites.isEmpty)
    }

    @Test("a changed declaration runs the suites that executed a file naming it; one without a name falls back")
    func declarationsByName() {
        let overload = Self.parser.replacingOccurrences(
            of: "    public func parse", with: "    public func parse(_ n: Int) -> Int { n }\n    public func parse")
        let sources = [
            "Sources/App/Parser.swift": overload, "Sources/App/View.swift": "let n = Parser().parse(\"x\")",
            "Sources/App/Badge.swift": "let parsed = 1  // parsers", "Tests/AppTests/ParserTests.swift": "",
        ]
        let selection = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: overload)],
            current: Self.current, sources: sources)
        #expect(selection.fallback.isEmpty, "\(selection.fallback)")
        #expect(selection.suites["AppTests.ViewTests"] != nil, "it executed View.swift, which calls parse")
        #expect(selection.suites["AppTests.BadgeViewTests"] == nil, "`parsed` and `parsers` are other words")

        let initialiser = Self.parser.replacingOccurrences(
            of: "public struct Parser {", with: "public struct Parser {\n    public init(strict: Bool) {}")
        let fallback = select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: initialiser)])
        #expect(fallback.fallback["Sources/App/Parser.swift"]?.contains("public init(strict: Bool) {}") == true)
        #expect(SwiftChange.declaredNames("    public static func == (a: P, b: P) -> Bool {") == ["=="])
        #expect(SwiftChange.declaredNames("extension Parser: Equatable where Element: Hashable {") == ["Parser"])
        #expect(SwiftChange.declaredNames("    case small, large(Int)") == ["small", "large"])
        #expect(SwiftChange.declaredNames("    @inlinable public var count: Int { 0 }") == ["count"])
        #expect(SwiftChange.declaredNames("import Foundation") == nil)
    }

    @Test("unexecuted files and other files fall back to the target graph; documentation runs nothing")
    func fallbacks() {
        let selection = select([
            ImpactChange(
                path: "Sources/App/Unused.swift", old: "func f() {\n    g()\n}", new: "func f() {\n    h()\n}"),
            ImpactChange(path: "Sources/App/Resources/data.json", old: "{}", new: "[]"),
            ImpactChange(path: "README.md", old: "a", new: "b"),
            ImpactChange(path: "Sources/App/App.docc/Guide.md", old: "a", new: "b"),
        ])
        #expect(selection.fallback["Sources/App/Unused.swift"] == "no suite executed Sources/App/Unused.swift")
        #expect(selection.fallback["Sources/App/Resources/data.json"]?.contains("is not Swift source") == true)
        #expect(selection.fallback["README.md"] == nil && selection.fallback["Sources/App/App.docc/Guide.md"] == nil)
        #expect(selection.notes.contains("README.md: documentation or repository settings, no test runs for it"))
    }

    @Test("the manifest runs everything; references run their suite; new suites and tests run")
    func everythingReferencesAndNew() {
        #expect(
            select([ImpactChange(path: "Package.swift", old: "a", new: "b")]).everything
                == "Package.swift changed: every test")
        let images = select([
            ImpactChange(path: "Tests/AppTests/__Snapshots__/BadgeViewTests/testBadge.1.png", old: "x", new: "y")
        ])
        #expect(images.suites.keys.sorted() == ["AppTests.BadgeViewTests"])
        var current = Self.current
        current["AppTests.NewTests"] = ["AppTests.NewTests/testNew"]
        current["AppTests.ViewTests"]?.append("AppTests.ViewTests/testResize")
        let new = select([], current: current)
        #expect(
            new.suites == [
                "AppTests.NewTests": "new test suite", "AppTests.ViewTests": "new test AppTests.ViewTests/testResize",
            ])
    }

    @Test("what counts as a declaration")
    func declarations() {
        for line in [
            "class Parser {", "    let limit = 3", "    public func parse() {", "    case a, b", "@MainActor",
            "    class func make() -> Parser {", "extension Parser: Equatable {", "#if DEBUG",
            "    static var shared = 1",
            "import Foundation",
        ] {
            #expect(SwiftChange.isDeclaration(line), "\(line)")
        }
        for line in [
            "        let count = text.count", "        return count > 3", "        case .a:",
            "        if case .some(let x) = y {", "    }",
        ] {
            #expect(!SwiftChange.isDeclaration(line), "\(line)")
        }
    }

    @Test("llvm-profdata's listing: the functions with a count above zero")
    func executedFunctions() {
        let listing = """
            Counters:
              $s3App6ParserV5parseySiSSF:
                Hash: 0x0000000000000001
                Counters: 2
                Function count: 3
                Block counts: [1]
              /src/Sources/App/View.swift:$s3App4ViewV4drawyyFyyXEfU_:
                Hash: 0x0000000000000000
                Counters: 2
                Function count: 0
                Block counts: [2]
              $s3App4DeadV4nopeyyF:
                Hash: 0x0000000000000000
                Counters: 1
                Function count: 0
                Block counts: []
            Instrumentation level: Front-end
            """
        #expect(
            ImpactRecorder.executedFunctions(in: listing) == [
                "$s3App6ParserV5parseySiSSF", "/src/Sources/App/View.swift:$s3App4ViewV4drawyyFyyXEfU_",
            ])
    }

    @Test("a map reads back; a corrupt one or another version is named")
    func mapFile() throws {
        let data = try Self.map.encoded()
        #expect(try ImpactMap.decode(data, name: "m.json") == Self.map)
        #expect(throws: CoverageError.self) { try ImpactMap.decode(Data("{".utf8), name: "m.json") }
        var future = Self.map
        future.version = 2
        let error = #expect(throws: CoverageError.self) { try ImpactMap.decode(try future.encoded(), name: "m.json") }
        #expect(error?.description.contains("version 2") == true)
    }
}
