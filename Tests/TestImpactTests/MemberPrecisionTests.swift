import Coverage
import Foundation
import Testing

@testable import TestImpact

/// Member-level precision narrows a file's suites only where the changed lines lie in members the
/// map can attribute; code that runs under another name (initial values, default arguments, raw
/// values, custom attributes) falls back to every suite that executed the file.
@Suite("impact: member precision only where its data is complete")
struct MemberPrecisionTests {
    /// swift-argument-parser's `Examples/math/Math.swift`, as its tests run it: a child process
    /// prints its help, built from the static `configuration`'s initial value.
    static let math = """
        import ArgumentParser

        @main
        struct Math: ParsableCommand {
          static let configuration = CommandConfiguration(
            // Optional abstracts and discussions are used for help output.
            abstract: "A utility for performing maths.",
            version: "1.0.0",
            subcommands: [Add.self])
        }

        struct Options: ParsableArguments {
          @Flag(
            name: "--hex-output -x",
            help: "Use hexadecimal notation for the result.")
          var hexadecimalOutput = false

          @OptionGroup var more: More

          var count: Int
        }

        enum Colour: String {
          case red = "r"
          case blue
            = "b"
        }

        let greeting = String(
          "hello")

        extension Math {
          static func format(_ result: Int, usingHex: Bool) -> String {
            usingHex ? String(result, radix: 16) : String(result)
          }
        }
        """

    static let path = "Examples/math/Math.swift"

    /// The map of the scenario: every suite executed the file; one only through a function the map
    /// places at line 0 (unknown), one through `format` (line 33), one without function data.
    static var map: ImpactMap {
        var map = ImpactMap(
            commit: String(repeating: "a", count: 40), package: ".", configuration: "debug",
            recordedAt: "2026-11-29T08:00:00Z",
            suites: [
                "ExampleTests.MathExampleTests": [path],
                "ToolTests.DumpHelpTests": [path],
                "ToolTests.FormatTests": [path],
                "ToolTests.OtherTests": ["Sources/Other.swift"],
            ],
            tests: [
                "ExampleTests.MathExampleTests": ["ExampleTests.MathExampleTests/testHelp"],
                "ToolTests.DumpHelpTests": ["ToolTests.DumpHelpTests/testDump"],
                "ToolTests.FormatTests": ["ToolTests.FormatTests/testFormat"],
                "ToolTests.OtherTests": ["ToolTests.OtherTests/testOther"],
            ])
        map.functions = [
            "ExampleTests.MathExampleTests": [path: [0]],
            "ToolTests.FormatTests": [path: [33]],
        ]
        return map
    }

    static func changed(_ from: String, _ to: String) -> String {
        let changed = math.replacingOccurrences(of: from, with: to)
        precondition(changed != math, "the fixture has no \(from)")
        return changed
    }

    @Test(
        "a string in a command's static configuration, a wrapper's argument, a raw value or a global's initial value, over several lines: every suite that executed the file"
    )
    func initialValues() {
        let edits = [
            ("performing maths.", "performing math."),
            ("Use hexadecimal notation", "Use hex notation"),
            ("@OptionGroup var more", "@OptionGroup(title: \"More\") var more"),
            ("= \"b\"", "= \"B\""),
            ("\"hello\")", "\"hi\")"),
        ]
        for (from, to) in edits {
            let new = Self.changed(from, to)
            #expect(SwiftChange.changedMembers(old: Self.math, new: new) == nil, "\(from) → \(to)")
            let selection = ImpactSelection.select(
                map: Self.map, changes: [ImpactChange(path: Self.path, old: Self.math, new: new)],
                current: Self.map.tests)
            #expect(
                Set(selection.suites.keys)
                    == ["ExampleTests.MathExampleTests", "ToolTests.DumpHelpTests", "ToolTests.FormatTests"],
                "\(from) → \(to)")
            #expect(selection.suites["ToolTests.DumpHelpTests"] == "executed \(Self.path)")
        }
    }

    @Test("a member's body, or a stored property's type, keeps its precision")
    func membersStayPrecise() {
        let body = Self.changed("radix: 16", "radix: 8")
        #expect(SwiftChange.changedMembers(old: Self.math, new: body) == [33...35])
        guard case .bodies(let members) = SwiftChange.kind(old: Self.math, new: body) else {
            Issue.record("a body change is a body change")
            return
        }
        #expect(members == [33...35])
        let selection = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: Self.path, old: Self.math, new: body)], current: Self.map.tests)
        #expect(
            Set(selection.suites.keys) == [
                "ExampleTests.MathExampleTests", "ToolTests.DumpHelpTests", "ToolTests.FormatTests",
            ])
        #expect(selection.suites["ToolTests.FormatTests"] == "executed \(Self.path) (the changed function at line 33)")
        let typed = Self.changed("var count: Int", "var count: Int64")
        #expect(SwiftChange.changedMembers(old: Self.math, new: typed) == [])
    }

    @Test("a changed file the map knows gets suites or a note saying why none: never silence")
    func neverSilent() {
        // A stored property's type: no member executed it, and no file names `count`.
        let typed = Self.changed("var count: Int", "var count: Int64")
        let selection = ImpactSelection.select(
            map: Self.map, changes: [ImpactChange(path: Self.path, old: Self.math, new: typed)],
            current: Self.map.tests)
        #expect(selection.suites.isEmpty && selection.fallback.isEmpty && selection.everything == nil)
        #expect(selection.notes.contains { $0.hasPrefix(Self.path + ": ") }, "\(selection.notes)")
    }

    @Test("a map whose recording lost children's profiles runs every test for a change of code outside the tests")
    func lostProfiles() {
        var map = Self.map
        map.lostProfiles = "1 written where the tests ran"
        map.testTargets = ["Tests/ToolTests"]
        let body = ImpactChange(path: Self.path, old: Self.math, new: Self.changed("radix: 16", "radix: 8"))
        let selection = ImpactSelection.select(map: map, changes: [body], current: map.tests)
        #expect(selection.everything?.contains("lost the profiles of child processes") == true, "\(selection)")
        // The tests' own code, and comments, keep their rules.
        let test = "import XCTest\nfinal class T: XCTestCase {\n    func testA() {\n        f()\n    }\n}\n"
        let own = ImpactSelection.select(
            map: map,
            changes: [
                ImpactChange(
                    path: "Tests/ToolTests/T.swift", old: test, new: test.replacingOccurrences(of: "f()", with: "g()")),
                ImpactChange(path: Self.path, old: Self.math, new: Self.math + "// a comment\n"),
            ], current: map.tests)
        #expect(own.everything == nil, "\(own)")
        // A suite one of whose processes was cut short (a child killed) runs for any change of code.
        map.lostProfiles = nil
        map.unknownReads = ["ToolTests.OtherTests": "a trace was cut short"]
        let cut = ImpactSelection.select(map: map, changes: [body], current: map.tests)
        #expect(cut.suites["ToolTests.OtherTests"]?.hasPrefix("a process of its was cut short") == true, "\(cut)")
        #expect(cut.everything == nil)
    }
}
