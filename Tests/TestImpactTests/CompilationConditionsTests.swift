import ChildProcesses
import Foundation
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

    @Test(
        "canImport by the toolchain's modules and the package's names; compiler() and swift() by the compiler's version"
    )
    func modulesAndVersions() throws {
        var linux = linux
        linux.modules = ImportableModules(
            toolchain: ["Dispatch", "Foundation", "SwiftGlibc"], package: ["ArgumentParser"])
        linux.compiler = [6, 3, 1]
        let cases: [(String, Bool?)] = [
            ("canImport(Dispatch)", true), ("!canImport(Dispatch)", false), ("canImport(SwiftGlibc)", true),
            ("canImport(ArgumentParser)", nil), ("canImport(NoSuchModule)", false), ("canImport(UIKit)", false),
            ("compiler(>=6)", true), ("compiler(>=6.3.1)", true), ("compiler(>=6.4)", false), ("compiler(<6)", false),
            ("swift(>=5.9)", true), ("swift(>=5.10)", true), ("swift(<5.9)", false), ("swift(>=7)", false),
            ("swift(>=6)", nil), ("swift(>=6.0) && canImport(Dispatch)", nil), ("compiler(>=six)", nil),
        ]
        for (condition, expected) in cases {
            #expect(linux.evaluate(condition) == expected, "\(condition)")
        }
        // On a platform with an SDK beyond the toolchain, a module the toolchain lacks may be there.
        var mac = CompilationConditions(os: "macOS", arch: "arm64", debug: true)
        mac.modules = linux.modules
        #expect(mac.evaluate("canImport(NoSuchModule)") == nil)
        // The toolchain this runs with: Dispatch and Foundation are its own.
        let found = try #require(
            ImportableModules.find(
                package: FileManager.default.temporaryDirectory,
                swift: Toolchain(variables: ProcessInfo.processInfo.environment).swift))
        #expect(found.toolchain.isSuperset(of: ["Dispatch", "Foundation", "XCTest", "Swift"]), "\(found.toolchain)")
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

    @Test("traits: enabled by SwiftPM's reading and the build's flags; a file all under one not enabled is no code")
    func traits() async throws {
        // The issue's shape: traits built in a variable, the default computed, a trait enabling another.
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("traits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: package) }
        try FileManager.default.createDirectory(
            at: package.appendingPathComponent("Sources/T"), withIntermediateDirectories: true)
        try Data(
            """
            // swift-tools-version: 6.1
            import PackageDescription
            var traits: Set<Trait> = [.trait(name: "Fast"), .trait(name: "Extra", enabledTraits: ["Fast"])]
            traits.insert(.default(enabledTraits: Context.environment["NO_FAST"] == nil ? ["Fast"] : []))
            let package = Package(name: "T", traits: traits, targets: [.target(name: "T")])

            """.utf8
        ).write(to: package.appendingPathComponent("Package.swift"))
        try Data("public let t = 1\n".utf8).write(to: package.appendingPathComponent("Sources/T/T.swift"))
        func enabled(_ arguments: [String]) async throws -> [String] {
            try await ImpactedTests.traits(of: package, arguments: arguments).get().enabledList
        }
        #expect(try await enabled([]) == ["Fast"])
        #expect(try await enabled(["--traits", "Extra"]) == ["Extra", "Fast"])
        #expect(try await enabled(["--traits=default,Extra"]) == ["Extra", "Fast"])
        #expect(try await enabled(["--disable-default-traits"]) == [])
        #expect(try await enabled(["--enable-all-traits"]) == ["Extra", "Fast"])
        #expect(
            PackageTraits.mayDeclare(
                try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)))

        var build = linux
        build.traits = PackageTraits(declarations: ["Extra": ["Fast"], "Fast": [], "default": ["Fast"]], arguments: [])
        #expect(build.evaluate("Fast") == true && build.evaluate("Extra") == false && build.evaluate("FAST") == nil)
        #expect(build.build == "Linux (debug, traits: Fast)")
        // A new file whose code is all under a trait the build does not enable, and a test file
        // likewise: nothing runs, and the reason says which build.
        let file = "#if Extra\npublic struct Wide {\n    public init() {}\n}\n#endif\n"
        let selection = ImpactSelection.select(
            map: ImpactTests.map,
            changes: [
                ImpactChange(path: "Sources/App/Wide.swift", old: nil, new: file),
                ImpactChange(
                    path: "Tests/AppTests/WideTests.swift", old: nil,
                    new: "#if Extra\nimport XCTest\nfinal class WideTests: XCTestCase {}\n#endif\n"),
            ],
            current: ImpactTests.current, conditions: build)
        #expect(selection.suites.isEmpty && selection.fallback.isEmpty && selection.everything == nil, "\(selection)")
        #expect(
            selection.notes.contains(
                "Sources/App/Wide.swift: only code in #if branches Linux (debug, traits: Fast) does not compile changed, no test runs for it"
            ), "\(selection.notes)")
        // Enabled, the same file is new code.
        build.traits = PackageTraits(
            declarations: ["Extra": ["Fast"], "Fast": [], "default": ["Fast"]], arguments: ["--traits", "Extra"])
        let enabledSelection = ImpactSelection.select(
            map: ImpactTests.map, changes: [ImpactChange(path: "Sources/App/Wide.swift", old: nil, new: file)],
            current: ImpactTests.current, conditions: build)
        #expect(!enabledSelection.notes.contains { $0.contains("does not compile") }, "\(enabledSelection.notes)")
    }
}
