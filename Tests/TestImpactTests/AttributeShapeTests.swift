import Foundation
import Testing

@testable import TestImpact

/// Attributes and conditions read as the compiler reads them, in the layouts real code has.
@Suite("impact: attributes over several lines, conditions decided for the build")
struct AttributeShapeTests {
    static let deprecated = """
        extension Parser {
          @available(*, deprecated, message: "Use 'map' instead.")
          public func flatMap(_ transform: (Output) -> Int) -> Int {
            transform(parse())
          }

          public func map(_ transform: (Output) -> Int) -> Int {
            transform(parse())
          }
        }
        """

    /// As swift-format writes a long attribute.
    static let unavailable = deprecated.replacingOccurrences(
        of: "  @available(*, deprecated, message: \"Use 'map' instead.\")\n",
        with: "  @available(\n    *, unavailable,\n    message:\n      \"Use 'map' instead.\"\n  )\n")

    @Test("an attribute over several lines is one attribute of the declaration after it")
    func multiLineAttribute() throws {
        #expect(Self.unavailable != Self.deprecated)
        let source = SwiftSource(Self.unavailable)
        let flatMap = try #require(source.lines.first { $0.text.contains("func flatMap") })
        #expect(flatMap.starts && flatMap.keyword == "func" && flatMap.names == ["flatMap"], "\(flatMap)")
        #expect(flatMap.number == 2, "the attribute's first line")
        #expect(flatMap.text.hasPrefix("@available( *, unavailable, message: "), "\(flatMap.text)")
        #expect(source.inUnavailable(source.lines.firstIndex(of: flatMap)!, Availability(platform: nil)))
        // Made unavailable: as the same attribute on one line reads.
        let oneLine = Self.deprecated.replacingOccurrences(
            of: "@available(*, deprecated, message: \"Use 'map' instead.\")",
            with: "@available(*, unavailable, message: \"Use 'map' instead.\")")
        func names(_ kind: SwiftChange) -> [String]? {
            guard case .declarations(_, let names, _) = kind else { return ["not declarations: \(kind)"] }
            return names
        }
        #expect(names(SwiftChange.kind(old: Self.deprecated, new: Self.unavailable)) == ["flatMap"])
        #expect(
            names(SwiftChange.kind(old: Self.deprecated, new: Self.unavailable))
                == names(SwiftChange.kind(old: Self.deprecated, new: oneLine)))
        // Its message changed, over several lines: a declaration no compiled code calls.
        let reworded = Self.unavailable.replacingOccurrences(of: "Use 'map' instead.", with: "Use map(_:).")
        guard
            case .inert = SwiftChange.kind(
                old: Self.unavailable, new: reworded, availability: Availability(platform: nil))
        else {
            Issue.record("an unavailable declaration's message is no code")
            return
        }
    }

    @Test("a change inside #if !canImport(Dispatch), false where Dispatch exists, runs nothing and says so")
    func canImportDispatch() {
        let old = """
            import Foundation

            public func work() -> Int {
            #if !canImport(Dispatch)
              return 1
            #else
              return 2
            #endif
            }
            """
        let new = old.replacingOccurrences(of: "return 1", with: "return 3")
        var conditions = CompilationConditions(os: "Linux", arch: "x86_64", debug: true)
        conditions.modules = ImportableModules(toolchain: ["Dispatch", "Foundation"], package: [])
        let map = ImpactMap(
            commit: String(repeating: "a", count: 40), package: ".", configuration: "debug",
            recordedAt: "2026-11-29T08:00:00Z", suites: ["T.WorkTests": ["Sources/W/Work.swift"]],
            tests: ["T.WorkTests": ["T.WorkTests/testWork"]])
        let selection = ImpactSelection.select(
            map: map, changes: [ImpactChange(path: "Sources/W/Work.swift", old: old, new: new)], current: map.tests,
            conditions: conditions)
        #expect(selection.suites.isEmpty && selection.fallback.isEmpty && selection.everything == nil, "\(selection)")
        #expect(
            selection.notes == [
                "Sources/W/Work.swift: only code in #if branches Linux (debug) does not compile changed, no test runs for it"
            ])
        // Where the toolchain's modules are not known, the branch may compile: the file's suites run.
        let unknown = ImpactSelection.select(
            map: map, changes: [ImpactChange(path: "Sources/W/Work.swift", old: old, new: new)], current: map.tests,
            conditions: CompilationConditions(os: "Linux", arch: "x86_64", debug: true))
        #expect(Array(unknown.suites.keys) == ["T.WorkTests"])
    }
}
