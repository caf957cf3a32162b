import Coverage
import Foundation
import Testing

@testable import TestImpact

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

    @Test("a map serves only builds of its package, configuration, toolchain and compilation flags")
    func unfit() {
        var map = Self.map
        #expect(
            map.unfit(package: ".", configuration: "debug", toolchain: "6.3.1", arguments: [])
                == "the impact map does not say which toolchain and flags built it (recorded by an older pipeline)")
        map.toolchain = "6.3.1"
        map.flags = ImpactMap.compilationFlags(["--build-system", "native", "-Xswiftc", "-DFAST", "--traits=A"])
        #expect(map.flags == ["-Xswiftc", "-DFAST"])
        let fast = ["-Xswiftc", "-DFAST"]
        #expect(map.unfit(package: ".", configuration: "debug", toolchain: "6.3.1", arguments: fast) == nil)
        // Where, how fast and how loudly it builds, its traits (compared as the traits they enable),
        // and the build cache's hashing change nothing the map saw.
        let same =
            fast + [
                "-j", "4", "--scratch-path", "/tmp/b", "--jobs=2", "-v", "--traits", "B", "--enable-all-traits",
                "-Xswiftc", "-enable-incremental-file-hashing", "--build-system=swiftbuild",
            ]
        #expect(map.unfit(package: ".", configuration: "debug", toolchain: "6.3.1", arguments: same) == nil)
        #expect(
            map.unfit(package: "App", configuration: "debug", toolchain: "6.3.1", arguments: fast)
                == "the impact map was recorded for the package at ., not App")
        #expect(
            map.unfit(package: ".", configuration: "release", toolchain: "6.3.1", arguments: fast)
                == "the impact map was recorded for debug builds, not release")
        #expect(
            map.unfit(package: ".", configuration: "debug", toolchain: "6.2.0", arguments: fast)
                == "the impact map was recorded by Swift 6.3.1, this build uses Swift 6.2.0")
        #expect(
            map.unfit(package: ".", configuration: "debug", toolchain: nil, arguments: fast)
                == "the impact map was recorded by Swift 6.3.1, and this toolchain's version could not be read")
        #expect(
            map.unfit(package: ".", configuration: "debug", toolchain: "6.3.1", arguments: [])
                == "the impact map was recorded with the flags -Xswiftc -DFAST, this build has no flags")
        #expect(
            map.unfit(
                package: ".", configuration: "debug", toolchain: "6.3.1", arguments: fast + ["-Xswiftc", "-Osize"])
                == "the impact map was recorded with the flags -Xswiftc -DFAST, this build has the flags -Xswiftc -DFAST "
                + "-Xswiftc -Osize")
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

    @Test("a body change runs the suites that executed the changed function, where the map knows its functions")
    func bodyByFunction() {
        let two = """
            public struct Parser {
                public func parse(_ text: String) -> Int {
                    let count = text.count
                    return count > 3 ? 1 : 0
                }

                public func reset() -> Int {
                    let zero = 0
                    return zero
                }
            }
            """
        var map = Self.map
        map.functions = [
            "AppTests.ParserTests": ["Sources/App/Parser.swift": [2, 7]],
            "AppTests.ViewTests": ["Sources/App/Parser.swift": [7]],
        ]
        func selected(_ new: String, map: ImpactMap = map) -> [String: String] {
            ImpactSelection.select(
                map: map, changes: [ImpactChange(path: "Sources/App/Parser.swift", old: two, new: new)],
                current: map.tests
            ).suites
        }
        let parse = two.replacingOccurrences(of: "count > 3", with: "count >= 3")
        #expect(SwiftChange.kind(old: two, new: parse) == .bodies([2...5]))
        #expect(
            selected(parse) == [
                "AppTests.ParserTests": "executed Sources/App/Parser.swift (the changed function at line 2)"
            ])
        // A line added alone belongs to the function of the older version at the same place.
        let reset = two.replacingOccurrences(
            of: "        return zero", with: "        print(zero)\n        return zero")
        #expect(SwiftChange.kind(old: two, new: reset) == .bodies([7...10]))
        #expect(selected(reset).keys.sorted() == ["AppTests.ParserTests", "AppTests.ViewTests"])
        // Both functions.
        let both = parse.replacingOccurrences(of: "let zero = 0", with: "let zero = 1")
        #expect(
            selected(both)["AppTests.ViewTests"]
                == "executed Sources/App/Parser.swift (the changed functions at lines 2, 7)")
        // A closure inside the function is a function of its own to coverage, starting inside it.
        var closure = map
        closure.functions?["AppTests.ViewTests"] = ["Sources/App/Parser.swift": [3]]
        #expect(selected(parse, map: closure).keys.sorted() == ["AppTests.ParserTests", "AppTests.ViewTests"])
        // A changed function that no suite executed: it adds no caller, so nothing runs, and it says so.
        var unexecuted = map
        unexecuted.functions?["AppTests.ParserTests"] = ["Sources/App/Parser.swift": [7]]
        #expect(selected(parse, map: unexecuted) == [:])
        let note = ImpactSelection.select(
            map: unexecuted, changes: [ImpactChange(path: "Sources/App/Parser.swift", old: two, new: parse)],
            current: unexecuted.tests
        ).notes
        #expect(
            note == [
                "Sources/App/Parser.swift: no suite executed the changed function at line 2 of Sources/App/Parser.swift, "
                    + "so the changed bodies reach no test, no test runs for it"
            ])
        // A suite whose functions the map does not know for the file still runs: it may have.
        var partly = unexecuted
        partly.functions?["AppTests.ViewTests"] = nil
        #expect(selected(parse, map: partly).keys.sorted() == ["AppTests.ViewTests"])
        // Where the functions cannot be told apart, the whole file: top-level code, and members that
        // no longer pair up (a closing brace moved, so `b` is now inside `a`).
        #expect(SwiftChange.kind(old: "print(1)\nrun()", new: "print(2)\nrun()") == .bodies(nil))
        let apart = "func a() {\n    x()\n}\nfunc b() {\n    y()\n}\n"
        let nested = "func a() {\n    x()\nfunc b() {\n    y()\n}\n}\n"
        #expect(SwiftChange.kind(old: apart, new: nested) == .bodies(nil))
    }

    @Test(
        "a change of declarations runs the suites that executed the members it changes or removes, not the whole file")
    func declarationsByMember() {
        let two = """
            import Foundation
            public struct Parser {
                public func parse(_ text: String) -> Int {
                    text.count
                }
                public func reset() -> Int {
                    0
                }
            }
            """
        var map = Self.map
        map.functions = [
            "AppTests.ParserTests": ["Sources/App/Parser.swift": [3]],
            "AppTests.ViewTests": ["Sources/App/Parser.swift": [6]],
        ]
        func selected(_ new: String) -> [String: String] {
            ImpactSelection.select(
                map: map, changes: [ImpactChange(path: "Sources/App/Parser.swift", old: two, new: new)],
                current: map.tests
            ).suites
        }
        // A removed member: the suites that executed it.
        let removed = two.replacingOccurrences(of: "    public func reset() -> Int {\n        0\n    }\n", with: "")
        #expect(SwiftChange.changedMembers(old: two, new: removed) == [6...8])
        #expect(
            selected(removed)["AppTests.ViewTests"]
                == "executed Sources/App/Parser.swift (the changed declarations at lines 6)")
        #expect(selected(removed)["AppTests.ParserTests"] == nil)
        // A changed signature: the old member's suites.
        let signature = two.replacingOccurrences(
            of: "parse(_ text: String)", with: "parse(_ text: String, strict: Bool = false)")
        #expect(SwiftChange.changedMembers(old: two, new: signature) == [3...5])
        // An added member runs no suite's code.
        let added = two.replacingOccurrences(
            of: "    public func reset()", with: "    public func count() -> Int { 1 }\n    public func reset()")
        #expect(SwiftChange.changedMembers(old: two, new: added) == [])
        // An initial value, an import or a kept type's header: every suite that executed the file.
        let property = two.replacingOccurrences(
            of: "public struct Parser {", with: "public struct Parser {\n    var limit = 3")
        #expect(SwiftChange.changedMembers(old: two, new: property) == nil)
        #expect(
            SwiftChange.changedMembers(
                old: two, new: two.replacingOccurrences(of: "import Foundation", with: "import Dispatch")) == nil)
        #expect(
            SwiftChange.changedMembers(
                old: two,
                new: two.replacingOccurrences(of: "public struct Parser {", with: "public struct Parser: Sendable {"))
                == nil)
    }

    @Test("availability by the platform the tests run on: another platform's attributes change nothing here")
    func platformAvailability() {
        let old = "public struct S {\n    public func f() -> Int { 1 }\n}\n"
        let versioned = old.replacingOccurrences(
            of: "    public func f()", with: "    @available(macOS 10.15, iOS 13, *)\n    public func f()")
        let linux = Availability(platform: nil)
        let mac = Availability(platform: "macOS")
        #expect(
            SwiftChange.kind(old: old, new: versioned, availability: linux)
                == .inert("only attributes that change no compiled call changed"))
        guard case .declarations = SwiftChange.kind(old: old, new: versioned, availability: mac) else {
            Issue.record("on macOS a version of macOS can change what compiles")
            return
        }
        let macOnly = old.replacingOccurrences(
            of: "    public func f()",
            with: "    @available(macOS, unavailable)\n    public func g() {}\n    public func f()")
        #expect(
            SwiftChange.kind(old: old, new: macOnly, availability: linux)
                != SwiftChange.kind(old: old, new: macOnly, availability: mac))
        guard case .inert = SwiftChange.kind(old: old, new: macOnly, availability: mac) else {
            Issue.record("unavailable on macOS is no code there")
            return
        }
        #expect(linux.unavailable("@available(*, unavailable, message: \"a, b\") public init(x: Int)"))
        #expect(!linux.unavailable("@available(*, deprecated) public init(x: Int)"))
        #expect(
            linux.withoutInertAttributes("@discardableResult @inlinable public func f()")
                == "@inlinable public func f()")
        #expect(
            mac.withoutInertAttributes("@available(iOS, unavailable) @_disfavoredOverload func f()")
                == "@_disfavoredOverload func f()")
    }

    @Test("comments and blank lines run nothing; moved statements are a change")
    func comments() {
        let commented = Self.parser.replacingOccurrences(of: "/// Parses.", with: "/// Parses text.\n\n// More.")
        let none = select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: commented)])
        #expect(none.suites.isEmpty && none.fallback.isEmpty)
        #expect(
            none.notes == ["Sources/App/Parser.swift: comments, blank lines or formatting only, no test runs for it"])
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
        #expect(SwiftSource.names(of: "public static func == (a: P, b: P) -> Bool {", members: nil) == ["=="])
        #expect(
            SwiftSource.names(of: "extension Parser: Equatable where Element: Hashable {", members: nil) == ["Parser"])
        #expect(SwiftSource.names(of: "case small, large(Int)", members: nil) == ["small", "large"])
        #expect(SwiftSource.names(of: "@available(macOS 13, *) public var count: Int { 0 }", members: nil) == ["count"])
        #expect(SwiftSource.names(of: "final class func make() -> Parser {", members: nil) == ["make"])
        #expect(SwiftSource.names(of: "final class Parser {", members: nil) == ["Parser"])
        #expect(SwiftSource.names(of: "import Foundation", members: nil) == nil)
        #expect(SwiftSource.names(of: "init?(text: String) {", members: nil) == nil)
    }

    @Test(
        "a body in a file no suite executed runs nothing, unless the build runs it; other files fall back; documentation runs nothing"
    )
    func fallbacks() {
        let selection = select([
            ImpactChange(
                path: "Sources/App/Unused.swift", old: "func f() {\n    g()\n}", new: "func f() {\n    h()\n}"),
            ImpactChange(path: "Sources/App/Resources/data.json", old: "{}", new: "[]"),
            ImpactChange(path: "README.md", old: "a", new: "b"),
            ImpactChange(path: "Sources/App/App.docc/Guide.md", old: "a", new: "b"),
        ])
        #expect(selection.fallback["Sources/App/Unused.swift"] == nil)
        #expect(selection.suites.isEmpty && selection.everything == nil)
        #expect(
            selection.notes.contains(
                "Sources/App/Unused.swift: no suite executed any of Sources/App/Unused.swift, so the changed bodies "
                    + "reach no test, no test runs for it"))
        // Code the build runs is never unexecuted: a macro's implementation, a plugin.
        let macro =
            "import SwiftSyntaxMacros\npublic struct M: ExpressionMacro {\n    static func f() {\n        g()\n    }\n}\n"
        let built = ImpactSelection.select(
            map: Self.map,
            changes: [
                ImpactChange(
                    path: "Sources/Macros/M.swift", old: macro, new: macro.replacingOccurrences(of: "g()", with: "h()")),
                ImpactChange(
                    path: "Plugins/Gen/Gen.swift", old: "func f() {\n    a()\n}", new: "func f() {\n    b()\n}"),
            ], current: Self.current, sources: ["Sources/Macros/M.swift": macro])
        #expect(built.fallback["Sources/Macros/M.swift"]?.contains("a macro implementation") == true, "\(built)")
        #expect(built.fallback["Plugins/Gen/Gen.swift"]?.contains("a package plugin") == true)
        #expect(selection.fallback["Sources/App/Resources/data.json"]?.contains("is not Swift source") == true)
        #expect(selection.fallback["README.md"] == nil && selection.fallback["Sources/App/App.docc/Guide.md"] == nil)
        #expect(
            selection.notes.contains(
                "README.md: documentation or settings swift test does not read, no test runs for it"))
    }

    @Test(
        "files no target builds run nothing: hidden ones, a nested package the root does not depend on, a template of committed Swift"
    )
    func buildsNothing() {
        let sources = [
            "Package.swift": #"let package = Package(name: "A", dependencies: [.package(path: "./Shared")])"#,
            "Benchmarks/Package.swift": "// a package of its own",
            "Benchmarks/Sources/Bench/Bench.swift": "func run() {}",
            "Shared/Package.swift": "// a dependency by path",
            "Sources/App/Generated.swift": "let x = 1",
        ]
        let changes = [
            ImpactChange(path: ".gitignore", old: "a", new: "b"),
            ImpactChange(path: "Sources/App/.swiftlint.yml", old: "a", new: "b"),
            ImpactChange(path: "Benchmarks/Package.swift", old: "// a", new: "// b\nlet x = 1"),
            ImpactChange(
                path: "Benchmarks/Sources/Bench/Bench.swift", old: "func run() {}", new: "func run() { go() }"),
            ImpactChange(path: "Shared/Sources/S/data.json", old: "{}", new: "[]"),
            ImpactChange(path: "Sources/App/Generated.swift.gyb", old: "a", new: "b"),
            ImpactChange(path: "Sources/App/Other.swift.gyb", old: "a", new: "b"),
        ]
        let selection = ImpactSelection.select(map: Self.map, changes: changes, current: Self.current, sources: sources)
        #expect(selection.everything == nil && selection.suites.isEmpty)
        #expect(selection.fallback.keys.sorted() == ["Shared/Sources/S/data.json", "Sources/App/Other.swift.gyb"])
        let reasons = selection.notes.joined(separator: "\n")
        #expect(reasons.contains(".gitignore: hidden (.gitignore), which SwiftPM neither builds nor bundles"))
        #expect(reasons.contains("Sources/App/.swiftlint.yml: hidden (.swiftlint.yml)"))
        #expect(reasons.contains("Benchmarks/Sources/Bench/Bench.swift: in the package nested at Benchmarks/"))
        #expect(reasons.contains("Benchmarks/Package.swift: in the package nested at Benchmarks/"))
        #expect(
            reasons.contains("Sources/App/Generated.swift.gyb: a template whose generated Generated.swift is committed")
        )
    }

    @Test(
        "the manifest runs everything, unless only its comments or formatting changed; references run their suite; new suites and tests run"
    )
    func everythingReferencesAndNew() {
        #expect(
            select([ImpactChange(path: "Package.swift", old: "a", new: "b")]).everything
                == "Package.swift changed: every test")
        let manifest = #"let package = Package(name: "A", targets: [.target(name: "A")])"#
        let commented = select([
            ImpactChange(
                path: "Package.swift", old: manifest,
                new: "// The app.\n" + manifest.replacingOccurrences(of: ", ", with: ",\n    "))
        ])
        #expect(commented.everything == nil && commented.suites.isEmpty && commented.fallback.isEmpty)
        #expect(
            select([ImpactChange(path: "Package.resolved", old: "{}", new: "{ }")]).everything
                == "Package.resolved changed: every test")
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

    @Test("what counts as a declaration: by scope, whatever the indentation")
    func declarations() {
        // Two-space indentation, as swift-algorithms has it: a local `let` four spaces in is code.
        let source = SwiftSource(
            """
            import Foundation
            #if DEBUG
            @MainActor
            class Parser {
              let limit = 3
              @inlinable
              public func parse(
                _ text: String
              ) -> Int {
                let count = text.count
                if case .some(let x) = Optional(count) { return x }
                switch count { case 0: return 0
                default: return 1 }
              }
              class func make() -> Parser { Parser() }
              var size: Int {
                let inner = limit
                return inner
              }
            }
            #endif
            enum Size { case small, large }
            extension Parser {
              func reset() {}
              static let shared = Parser()
            }
            extension Parser: Equatable {}
            """)
        let declarations = source.lines.filter(\.declaration).map(\.text)
        #expect(
            declarations == [
                "import Foundation", "#if DEBUG", "@MainActor class Parser {", "let limit = 3",
                "@inlinable public func parse(", "_ text: String", ") -> Int {",
                "class func make() -> Parser { Parser() }",
                "var size: Int {", "#endif", "enum Size { case small, large }", "extension Parser {", "func reset() {}",
                "static let shared = Parser()", "extension Parser: Equatable {}",
            ], "\(declarations)")
        let names = Dictionary(source.lines.filter(\.declaration).map { ($0.text, $0.names) }) { a, _ in a }
        #expect(names["_ text: String"] == ["parse"], "a signature's lines belong to its declaration")
        #expect(names["@MainActor class Parser {"] == ["Parser"])
        #expect(names["extension Parser {"] == ["reset", "shared"], "an extension without conformances: its members")
        #expect(names["extension Parser: Equatable {}"] == ["Parser"])
        #expect(source.lines.first { $0.text == "let count = text.count" }?.declaration == false)
        #expect(source.lines.first { $0.text == "@inlinable public func parse(" }?.number == 6, "attributes joined")
        #expect(source.members.contains(6...14), "parse: its attribute to its closing brace, \(source.members)")
        #expect(source.members.contains(16...19) && source.members.contains(24...24), "\(source.members)")
        #expect(source.member(holding: 10) == 6...14 && source.member(holding: 5) == nil)
    }

    @Test("comments, strings and braces: what the scanner keeps as code")
    func scanner() {
        let source = SwiftSource(
            #"""
            func f() -> String { // a { in a comment
              let a = "a } // not a comment"
              /* a block /* nested */ still { */ let b = #"raw " } \(x)"#
              let c = "\(["k": "}"]["k"] ?? "")" + """
                { multiline "quote" }
                """
              return a + b + c
            }
            let after = 1
            """#)
        #expect(source.members == [1...8], "\(source.members)")
        #expect(source.lines.map(\.text).contains { $0.hasPrefix("let b = #\"raw") }, "\(source.lines.map(\.text))")
        #expect(!source.lines.contains { $0.text.contains("nested") || $0.text.contains("a comment") })
        #expect(source.lines.last?.text == "let after = 1" && source.lines.last?.declaration == true)
        // Whitespace inside a string is content; outside, formatting.
        #expect(SwiftChange.kind(old: "let s = \"a  b\"", new: "let s = \"a b\"") != .commentsOnly)
        #expect(SwiftChange.kind(old: "let s = \"a  b\"", new: "let  s=\"a  b\"") == .commentsOnly)
        // Braces that do not balance as read (a regex literal): scopes unknown, a declaration without a name.
        let regex = "func f() {\n  let r = /{/\n  g()\n}"
        #expect(!SwiftSource(regex).balanced && SwiftSource("func f() {\n}").balanced)
        guard
            case .declarations(_, nil, _) = SwiftChange.kind(
                old: regex, new: regex.replacingOccurrences(of: "g()", with: "h()"))
        else {
            Issue.record("an unbalanced file's change is a declaration without a name")
            return
        }
    }

    @Test("formatting alone runs nothing; a local variable is a body change; a new member is named")
    func formattingAndScopes() {
        let before = """
            extension Collection {
              public func smallest(_ count: Int, by less: (Element, Element) -> Bool) -> [Element] {
                guard count > 0 else { return [] }
                let prefixCount = Swift.min(count, self.count)
                return Array(sorted(by: less).prefix(prefixCount))
              }
            }
            """
        let reformatted = """
            extension Collection {
                public func smallest(
                    _ count: Int,
                    by less: (Element, Element) -> Bool,
                ) -> [Element] {
                    guard count > 0 else {
                        return []
                    }
                    let prefixCount = Swift.min(count, self.count)
                    return Array(sorted(by: less).prefix(prefixCount))
                }
            }
            """
        #expect(SwiftChange.kind(old: before, new: reformatted) == .commentsOnly)
        let moved = before.replacingOccurrences(
            of: "    guard count > 0 else { return [] }\n    let prefixCount = Swift.min(count, self.count)",
            with: "    let prefixCount = Swift.min(count, self.count)\n    guard prefixCount > 0 else { return [] }")
        #expect(SwiftChange.kind(old: before, new: moved) == .bodies([2...6]))
        let added = before.replacingOccurrences(
            of: "  }\n}", with: "  }\n\n  /// The total.\n  @inlinable\n  public var total: Int { count }\n}")
        #expect(
            SwiftChange.kind(old: before, new: added)
                == .declarations("@inlinable public var total: Int { count }", names: ["total"]))
        #expect(
            SwiftChange.kind(old: nil, new: "extension Sequence {\n  func grouped() {}\n}")
                == .declarations("a new file", names: ["grouped"]))
        // A type added whole is reached through its name, not its members'; a member added to a
        // type that was there is reached through its own.
        let helper = before + "\nstruct Helper {\n  func smallest() {}\n  static let limit = 3\n}\n"
        #expect(
            SwiftChange.kind(old: before, new: helper) == .declarations("struct Helper {", names: ["Helper"]))
        let lazy =
            before
            + "\npublic struct Uniqued<Base: Sequence> {\n  let base: Base\n}\n\nextension Uniqued: Sequence {\n"
            + "  public struct Iterator: IteratorProtocol {\n    public mutating func next() -> Int? { nil }\n  }\n}\n"
        #expect(
            SwiftChange.kind(old: before, new: lazy)
                == .declarations("public struct Uniqued<Base: Sequence> {", names: ["Uniqued"]),
            "its extension's Iterator and next are reached through Uniqued")
        let grown = helper.replacingOccurrences(of: "struct Helper {", with: "struct Helper: Equatable {")
            .replacingOccurrences(of: "  static let limit = 3", with: "  static let limit = 3\n  func reset() {}")
        #expect(
            SwiftChange.kind(old: helper, new: grown)
                == .declarations("struct Helper {", names: ["Helper", "reset"]))
    }

    @Test("a declaration's name reaches only the suites that executed a function naming it, where the map knows")
    func declarationsByFunction() {
        let helpers = """
            enum Helpers {
                static func total(_ parser: Parser) -> Int {
                    parser.parse("x")
                }

                static func other() -> Int { 1 }
            }
            """
        var map = Self.map
        map.suites["AppTests.HelperTests"] = ["Sources/App/Helpers.swift"]
        map.tests["AppTests.HelperTests"] = ["AppTests.HelperTests/testOther"]
        map.suites["AppTests.TotalTests"] = ["Sources/App/Helpers.swift"]
        map.tests["AppTests.TotalTests"] = ["AppTests.TotalTests/testTotal"]
        map.functions = [
            "AppTests.HelperTests": ["Sources/App/Helpers.swift": [6]],
            "AppTests.TotalTests": ["Sources/App/Helpers.swift": [2, 6]],
        ]
        let overload = Self.parser.replacingOccurrences(
            of: "    public func parse", with: "    public func parse(_ n: Int) -> Int { n }\n    public func parse")
        let change = ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: overload)
        func selected(_ map: ImpactMap, helpers: String = helpers, changes: [ImpactChange] = []) -> [String] {
            ImpactSelection.select(
                map: map, changes: [change] + changes, current: map.tests,
                sources: ["Sources/App/Parser.swift": overload, "Sources/App/Helpers.swift": helpers]
            ).suites.keys.sorted()
        }
        #expect(selected(map) == ["AppTests.ParserTests", "AppTests.TotalTests", "AppTests.ViewTests"])
        // Without the functions (an older map), the whole file counts.
        var older = map
        older.functions = nil
        #expect(selected(older).contains("AppTests.HelperTests"))
        // A use outside any function: the whole file.
        let stored = helpers.replacingOccurrences(
            of: "enum Helpers {", with: "enum Helpers {\n    static let p = Parser().parse(\"y\")")
        var shifted = map
        shifted.functions = [
            "AppTests.HelperTests": ["Sources/App/Helpers.swift": [7]],
            "AppTests.TotalTests": ["Sources/App/Helpers.swift": [3, 7]],
        ]
        #expect(selected(shifted, helpers: stored).contains("AppTests.HelperTests"))
        // A file that changed since the map: its recorded lines no longer hold, the whole file counts.
        let edited = ImpactChange(path: "Sources/App/Helpers.swift", old: helpers, new: helpers + "\n")
        #expect(selected(map, changes: [edited]).contains("AppTests.HelperTests"))
    }

    @Test("an import another file of the target has changes nothing elsewhere; a new one falls back")
    func imports() {
        let existing = "import XCTest\n@testable import App\n\nfinal class ParserTests: XCTestCase {}\n"
        let new =
            "import XCTest\n@testable import App\n\nfinal class NewTests: XCTestCase {\n    func testNew() {}\n}\n"
        var current = Self.current
        current["AppTests.NewTests"] = ["AppTests.NewTests/testNew"]
        let sources = ["Tests/AppTests/ParserTests.swift": existing, "Tests/AppTests/NewTests.swift": new]
        let added = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: "Tests/AppTests/NewTests.swift", old: nil, new: new)],
            current: current, sources: sources)
        #expect(added.fallback.isEmpty, "\(added.fallback)")
        #expect(added.suites == ["AppTests.NewTests": "new test suite"], "\(added.suites)")

        let combine = existing.replacingOccurrences(of: "import XCTest", with: "import XCTest\nimport Combine")
        let lone = ImpactSelection.select(
            map: Self.map,
            changes: [ImpactChange(path: "Tests/AppTests/ParserTests.swift", old: existing, new: combine)],
            current: Self.current, sources: ["Tests/AppTests/ParserTests.swift": combine])
        #expect(
            lone.fallback["Tests/AppTests/ParserTests.swift"]?.contains(
                "changes an import no other file of its target has (import Combine)") == true, "\(lone.fallback)")
    }

    @Test("what a test file declares reaches only its own test target's files, unless it adds a conformance")
    func testTargetScope() {
        let test = "import XCTest\nfinal class ParserTests: XCTestCase {\n    func testParse() {}\n}\n"
        let helper = test + "func helper() -> Int { 1 }\n"
        let sources = [
            "Sources/App/View.swift": "func draw() {\n    helper()\n}\n", "Tests/AppTests/ParserTests.swift": helper,
        ]
        func selected(_ new: String, testTargets: [String]?) -> [String] {
            var map = Self.map
            map.testTargets = testTargets
            return ImpactSelection.select(
                map: map, changes: [ImpactChange(path: "Tests/AppTests/ParserTests.swift", old: test, new: new)],
                current: Self.current, sources: sources
            ).suites.keys.sorted()
        }
        #expect(selected(helper, testTargets: nil) == ["AppTests.ParserTests", "AppTests.ViewTests"])
        #expect(selected(helper, testTargets: ["Tests/AppTests"]) == ["AppTests.ParserTests"])
        let conformance =
            helper + "extension Parser: CustomStringConvertible {\n    var description: String { \"\" }\n}\n"
        #expect(selected(conformance, testTargets: ["Tests/AppTests"]).contains("AppTests.ViewTests"))
    }

    @Test(
        "access levels and inlining attributes alone run the suites that executed the file; private ones are declarations"
    )
    func accessLevels() {
        let narrowed = Self.parser.replacingOccurrences(of: "public func parse", with: "@inlinable internal func parse")
        let selection = select([ImpactChange(path: "Sources/App/Parser.swift", old: Self.parser, new: narrowed)])
        #expect(
            selection.suites == [
                "AppTests.ParserTests":
                    "executed Sources/App/Parser.swift (only access levels changed: public func parse(_ text: String) -> Int {)",
                "AppTests.ViewTests":
                    "executed Sources/App/Parser.swift (only access levels changed: public func parse(_ text: String) -> Int {)",
            ])
        #expect(
            SwiftChange.kind(old: "import A\n", new: "internal import A\n")
                == .inert("only the form of its imports of A changed, not what it sees"))
        // Directives around code are no import's form.
        guard
            case .declarations = SwiftChange.kind(
                old: "import A\nfunc f() {}\n", new: "#if canImport(A)\nimport A\nfunc f() {}\n#endif\n")
        else {
            Issue.record("#if around code is a change of what compiles")
            return
        }
        let hidden = Self.parser.replacingOccurrences(of: "public func parse", with: "private func parse")
        guard case .declarations = SwiftChange.kind(old: Self.parser, new: hidden) else {
            Issue.record("a private function counts as an access change: overloads seen elsewhere change")
            return
        }
    }

    @Test("Xcode's projects, schemes, test plans and settings run nothing")
    func xcodeFiles() {
        let selection = select(
            [
                "Xcode/Shared.xcconfig", "Xcode/App.xctestplan", "Xcode/App.xcodeproj/project.pbxproj",
                "Xcode/App.xcodeproj/project.xcworkspace/xcshareddata/IDEWorkspaceChecks.plist",
                ".swiftpm/xcode/xcshareddata/xcschemes/App.xcscheme",
            ].map { ImpactChange(path: $0, old: "a", new: "b") })
        #expect(selection.fallback.isEmpty && selection.suites.isEmpty, "\(selection.fallback)")
        #expect(selection.notes.count == 5)
        #expect(!ImpactSelection.isDocumentation("Sources/App/Resources/settings.plist"))
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
