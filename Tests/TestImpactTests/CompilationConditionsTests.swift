import Testing

@testable import TestImpact

@Suite("#if: what this platform compiles")
struct CompilationConditionsTests {
    let linux = CompilationConditions(os: "Linux", arch: "x86_64", debug: true, namedFlags: ["FAST"])

    @Test("conditions: told where they can be, unknown where not")
    func evaluate() {
        let cases: [(String, Bool?)] = [
            ("os(Linux)", true), ("os(macOS)", false), ("!os(Linux)", false), ("os(iOS) || os(tvOS)", false),
            ("canImport(UIKit)", false), ("canImport(Glibc)", true), ("canImport(Parsing)", nil),
            ("swift(>=5.9)", nil), ("os(Linux) || swift(>=5.9)", true), ("os(macOS) && swift(>=5.9)", false),
            ("os(Linux) && compiler(>=6)", nil), ("DEBUG", true), ("SWIFT_PACKAGE", true),
            ("ALGORITHMS_DARWIN_ONLY", false),
            ("FAST", nil), ("(os(Linux) && !DEBUG) || arch(x86_64)", true), ("targetEnvironment(simulator)", false),
            ("_runtime(_ObjC)", false), ("os(Linux", nil), ("os(Linux) &&", nil), ("", nil),
        ]
        for (condition, expected) in cases {
            #expect(linux.evaluate(condition) == expected, "\(condition)")
        }
        #expect(
            CompilationConditions.here(
                configuration: "release", manifest: #".define("FAST")"#, arguments: ["-Xswiftc", "-DSLOW"]
            ).namedFlags.isSuperset(of: ["FAST", "SLOW"]))
    }

    @Test("branches never compiled here are blanked, line for line; unknown ones stay as the group now reads")
    func active() {
        // swift-algorithms' acb4100b: a branch for a flag only its Xcode project sets, before the rest.
        let old = """
            #if swift(>=5.11)
            internal import RealModule
            #elseif swift(>=5.10)
            import RealModule
            #else
            @_implementationOnly import RealModule
            #endif
            func f() {}
            """
        let new = """
            #if ALGORITHMS_DARWIN_ONLY
            internal import Darwin
            extension Double {
              static func log(_ x: Double) -> Double { Darwin.log(x) }
            }
            #elseif
            """ + old.dropFirst("#if".count)
        #expect(linux.active(old) == old)
        let active = linux.active(new)
        #expect(active.split(separator: "\n", omittingEmptySubsequences: false).count == 13)
        #expect(SwiftChange.kind(old: old, new: active) == .commentsOnly, "\(active)")
        #expect(SwiftChange.kind(old: old, new: new) != .commentsOnly)
        // Decided groups lose their directives; nested ones inside a dead branch go with it.
        let decided = "#if os(Linux)\na()\n#if os(macOS)\nb()\n#endif\n#else\nc()\n#if DEBUG\nd()\n#endif\n#endif"
        #expect(linux.active(decided) == "\na()\n\n\n\n\n\n\n\n\n")
        let unknown = "#if os(macOS)\na()\n#elseif compiler(>=6)\nb()\n#else\nc()\n#endif"
        #expect(linux.active(unknown) == "\n\n#if compiler(>=6)\nb()\n#else\nc()\n#endif")
        #expect(linux.active("#if os(Linux)\na()\n") == "#if os(Linux)\na()\n", "unbalanced: left as it is")
    }

    @Test("a change only where this platform compiles nothing runs nothing; elsewhere the usual rules")
    func selection() {
        let file = "func f() {\n#if os(macOS)\n    mac()\n#else\n    linux()\n#endif\n}\n"
        func select(_ call: String) -> ImpactSelection {
            let new = file.replacingOccurrences(of: call, with: "other()")
            return ImpactSelection.select(
                map: ImpactTests.map, changes: [ImpactChange(path: "Sources/App/Parser.swift", old: file, new: new)],
                current: ImpactTests.current, conditions: linux)
        }
        let mac = select("mac()")
        #expect(mac.suites.isEmpty && mac.fallback.isEmpty && mac.everything == nil)
        #expect(
            mac.notes == [
                "Sources/App/Parser.swift: only code in #if branches Linux (debug) does not compile changed, no test runs for it"
            ])
        let here = select("linux()")
        #expect(here.suites.keys.sorted() == ["AppTests.ParserTests", "AppTests.ViewTests"], "\(here)")
    }
}
