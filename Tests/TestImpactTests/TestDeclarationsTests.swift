import Testing

@testable import TestImpact

@Suite("which tests a test file declares, by the one Swift lexer")
struct TestDeclarationsTests {
    @Test("types declared or extended, and free @Test functions; not those in comments, strings or nested")
    func declarations() {
        let source = """
            import XCTest
            // class Commented: XCTestCase {}
            final class BadgeViewTests: XCTestCase {
                func testImage() { let text = "struct InString {}" }
                struct Nested {}
            }
            extension BadgeViewTests { func testMore() {} }
            @Suite struct BadgeSuite { @Test func inside() {} }
            @Test("free") func freeStanding() {}
            /* enum Hidden {} */
            func notATest() {}
            """
        let declarations = TestDeclarations(source)
        #expect(declarations.types == ["BadgeViewTests", "BadgeSuite"])
        #expect(declarations.freeFunctions == ["freeStanding"])
    }

    @Test("raw strings, nested comments and interpolations hide neither braces nor declarations")
    func lexing() {
        let source = #"""
            /* outer /* nested { */ class HiddenInComment {} */
            final class RawTests: XCTestCase {
                let pattern = #"a "quoted" } brace"#
                let text = "interpolated \(values.map { "}" }) done"
                let block = """
                    struct InMultiline {
                    """
            }
            @Test func afterRaw() {}
            struct AfterAll {}
            """#
        let declarations = TestDeclarations(source)
        #expect(declarations.types == ["RawTests", "AfterAll"])
        #expect(declarations.freeFunctions == ["afterRaw"])
    }

    @Test("a file whose last string is never closed still reads what comes before it")
    func unterminated() {
        let declarations = TestDeclarations("struct Before {}\nlet broken = \"never closed {\nstruct After {}\n")
        #expect(declarations.types == ["Before", "After"])
    }
}
