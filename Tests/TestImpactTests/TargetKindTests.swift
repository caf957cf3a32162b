import Foundation
import Testing

@testable import TestImpact

/// A change bounded by what can run the code: an executable by the suites that ran it, a command
/// plugin by nothing (no build or test runs it), code the build runs by the targets built with it.
@Suite("impact: executables, plugins and macros, by what runs them")
struct TargetKindTests {
    static var map: ImpactMap {
        var map = ImpactMap(
            commit: String(repeating: "a", count: 40), package: ".", configuration: "debug",
            recordedAt: "2026-11-29T08:00:00Z",
            suites: [
                "ExampleTests.MathExampleTests": ["Examples/math/Math.swift", "Sources/Parser/Parser.swift"],
                "UnitTests.ParserTests": ["Sources/Parser/Parser.swift"],
                "UnitTests.OtherTests": ["Sources/Other/Other.swift"],
            ],
            tests: [
                "ExampleTests.MathExampleTests": ["ExampleTests.MathExampleTests/testHelp"],
                "UnitTests.ParserTests": ["UnitTests.ParserTests/testParse"],
                "UnitTests.OtherTests": ["UnitTests.OtherTests/testOther"],
            ])
        map.executableTargets = ["Examples/math", "Examples/count"]
        map.plugins = ["Plugins/GenerateManual": "command", "Plugins/GenerateDocc": "command"]
        map.pluginTargets = []
        return map
    }

    static let math = """
        import ArgumentParser

        @main
        struct Math: ParsableCommand {
            func run() {
                print(1)
            }
        }
        """

    private func select(_ map: ImpactMap, _ changes: [ImpactChange]) -> ImpactSelection {
        ImpactSelection.select(map: map, changes: changes, current: map.tests)
    }

    @Test("an import changed in an executable's file runs the suites that ran that executable, not every test")
    func executableImport() {
        let new = Self.math.replacingOccurrences(
            of: "import ArgumentParser", with: "import ArgumentParser\nimport Foundation")
        let selection = select(Self.map, [ImpactChange(path: "Examples/math/Math.swift", old: Self.math, new: new)])
        #expect(Set(selection.suites.keys) == ["ExampleTests.MathExampleTests"], "\(selection)")
        #expect(selection.everything == nil)
        // Another executable's file that no suite ran: its fallback finds no suite by the map either.
        let count = select(
            Self.map, [ImpactChange(path: "Examples/count/Count.swift", old: Self.math, new: new)])
        #expect(count.suites.isEmpty && count.fallback["Examples/count/Count.swift"] != nil, "\(count)")
    }

    @Test("a command plugin's code, its own or shared under Plugins/, runs nothing and says so")
    func commandPlugin() {
        let old = "import PackagePlugin\n\nstruct P {\n    static let name = \"manual\"\n}\n"
        let new = old.replacingOccurrences(of: "\"manual\"", with: "\"manuals\"")
        for path in [
            "Plugins/GenerateManual/GenerateManualPlugin.swift", "Plugins/GenerateCommon/GeneratePlugin.swift",
        ] {
            let selection = select(Self.map, [ImpactChange(path: path, old: old, new: new)])
            #expect(selection.suites.isEmpty && selection.fallback.isEmpty && selection.everything == nil, "\(path)")
            #expect(selection.notes.first?.hasPrefix(path + ": ") == true, "\(selection.notes)")
            #expect(selection.notes.first?.contains("no build or test runs") == true, "\(selection.notes)")
        }
        // With a build-tool plugin beside them, shared code may be its, and the targets it builds run.
        var map = Self.map
        map.plugins?["Plugins/Generate"] = "buildTool"
        map.pluginTargets = ["Sources/Parser"]
        let shared = select(
            map, [ImpactChange(path: "Plugins/GenerateCommon/GeneratePlugin.swift", old: old, new: new)])
        #expect(shared.fallback["Plugins/GenerateCommon/GeneratePlugin.swift"] != nil, "\(shared)")
        #expect(shared.fallback["Sources/Parser/"]?.contains("built with a build-tool plugin") == true, "\(shared)")
        // An older map does not know the capabilities: a plugin's change falls back as before.
        map.plugins = nil
        let older = select(
            map, [ImpactChange(path: "Plugins/GenerateManual/GenerateManualPlugin.swift", old: old, new: new)])
        #expect(older.fallback["Plugins/GenerateManual/GenerateManualPlugin.swift"] != nil, "\(older)")
    }

    @Test("a macro implementation's change runs the suites that executed it and falls back to its dependents")
    func macro() {
        let old = """
            import SwiftSyntaxMacros

            public struct StringifyMacro: ExpressionMacro {
                static let prefix = "a"
                public static func expansion() -> String {
                    prefix
                }
            }
            """
        var map = Self.map
        map.suites["MacroTests.StringifyTests"] = ["Sources/Macros/Stringify.swift"]
        map.tests["MacroTests.StringifyTests"] = ["MacroTests.StringifyTests/testExpansion"]
        for new in [
            old.replacingOccurrences(of: "\"a\"", with: "\"b\""),
            old.replacingOccurrences(of: "        prefix\n", with: "        prefix + prefix\n"),
        ] {
            let selection = ImpactSelection.select(
                map: map, changes: [ImpactChange(path: "Sources/Macros/Stringify.swift", old: old, new: new)],
                current: map.tests, sources: ["Sources/Macros/Stringify.swift": new])
            #expect(Set(selection.suites.keys) == ["MacroTests.StringifyTests"], "\(selection)")
            #expect(
                selection.fallback["Sources/Macros/Stringify.swift"]?.contains("a macro implementation") == true,
                "\(selection)")
        }
    }
}
