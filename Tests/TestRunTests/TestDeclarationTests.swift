import Foundation
import References
import TestSupport
import Testing

@testable import SnapshotReview

@Suite("which tests a test file declares")
struct TestDeclarationTests {
    @Test("filters select the file's types and free functions in any module, escaped")
    func filters() throws {
        let folder = try Scratch.folder("filters")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("CartTests.swift")
        try Scratch.write("final class CartTests: XCTestCase {}\n@Test func total() {}\n", to: file)
        let filters = try ReferenceRecorder.filters((test: "CartTests", url: file))
        #expect(filters == [#"^[^./]+\.CartTests(/|$)"#, #"^[^./]+\.total\("#])
        let regexes = try filters.map { try Regex($0) }
        let matches = { (name: String) in
            regexes.contains { name.wholeMatch(of: $0) != nil || name.firstMatch(of: $0) != nil }
        }
        #expect(matches("AppTests.CartTests/testAdd"))
        #expect(matches("AppTests.total()"))
        #expect(!matches("AppTests.CartTestsExtra/testAdd"))
        #expect(!matches("AppTests.OtherTests/testCartTests"))
    }

    @Test("a file declaring no test is refused, naming it")
    func noTests() throws {
        let folder = try Scratch.folder("none")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("HelperTests.swift")
        try Scratch.write("func helper() {}\n", to: file)
        #expect(
            throws: ReferenceError.notATest(
                "HelperTests", reason: "HelperTests.swift declares no test type or @Test function")
        ) {
            try ReferenceRecorder.filters((test: "HelperTests", url: file))
        }
    }
}
