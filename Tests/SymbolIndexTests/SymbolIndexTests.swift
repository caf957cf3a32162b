import Foundation
import SymbolIndex
import TestSupport
import Testing

/// The index store of a real debug build of a small package (a protocol, two conforming types, an
/// `==`, a free function), read through the toolchain's libIndexStore.
@Suite("the index store, read: declarations and the uses the compiler resolved")
struct SymbolIndexTests {
    /// The package, built once for every test here.
    static let built: Result<(package: URL, index: SymbolIndex), any Error> = Result {
        let package = try Scratch.folder("symbol-index")
        try Scratch.write(
            """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "Idx", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

            """, to: package.appendingPathComponent("Package.swift"))
        try Scratch.write(
            """
            public protocol Shape { var area: Double { get } }
            public struct Square: Shape, Equatable {
                public var side: Double
                public init(side: Double) { self.side = side }
                public var area: Double { side * side }
                public static func == (a: Square, b: Square) -> Bool { a.side == b.side }
            }
            public struct Circle: Shape {
                public var radius: Double
                public init(radius: Double) { self.radius = radius }
                public var area: Double { 3.14 * radius * radius }
            }
            public func total(_ shapes: [any Shape]) -> Double { shapes.reduce(0) { $0 + $1.area } }

            """, to: package.appendingPathComponent("Sources/Lib/Shapes.swift"))
        try Scratch.write(
            """
            import Lib
            import XCTest
            final class SquareTests: XCTestCase {
                func testArea() { XCTAssertEqual(Square(side: 2).area, 4) }
                func testEqual() { XCTAssertEqual(Square(side: 2), Square(side: 2)) }
            }

            """, to: package.appendingPathComponent("Tests/LibTests/SquareTests.swift"))
        try Scratch.write(
            """
            import Lib
            import XCTest
            final class CircleTests: XCTestCase {
                func testArea() { XCTAssertEqual(Circle(radius: 1).area, 3.14) }
                func testTotal() { XCTAssertEqual(total([Circle(radius: 1)]), 3.14) }
                func testInts() { XCTAssertEqual(1, 1) }
            }

            """, to: package.appendingPathComponent("Tests/LibTests/CircleTests.swift"))
        let built = try Shell.run("swift", ["build", "--build-tests", "--package-path", package.path])
        guard built.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: built.stderr])
        }
        let library = try #require(IndexStoreReader.library(variables: ProcessInfo.processInfo.environment))
        let index = try IndexStoreReader.read(
            store: IndexStoreReader.store(bin: package.appendingPathComponent(".build/debug")), library: library,
            package: package)
        return (package, index)
    }

    func declaration(_ index: SymbolIndex, _ name: String, in file: String) throws -> (
        usr: String, SymbolIndex.Declaration
    ) {
        let found = index.declarations.filter { $0.value.name == name && index.files[$0.value.file] == file }
        try #require(found.count == 1, "\(name) in \(file): \(found.map(\.value))")
        return (found.first!.key, found.first!.value)
    }

    @Test("each declaration with its line and the lines that use it; XCTAssertEqual's == is Equatable's, not named")
    func declarationsAndUses() throws {
        let (_, index) = try Self.built.get()
        #expect(
            Set(index.files) == [
                "Sources/Lib/Shapes.swift", "Tests/LibTests/SquareTests.swift", "Tests/LibTests/CircleTests.swift",
            ])
        let (_, initializer) = try declaration(index, "init(side:)", in: "Sources/Lib/Shapes.swift")
        #expect(initializer.line == 4)
        let uses = initializer.uses.map { "\(index.files[$0.file]):\($0.line)" }
        #expect(Set(uses) == ["Tests/LibTests/SquareTests.swift:4", "Tests/LibTests/SquareTests.swift:5"], "\(uses)")
        // XCTAssertEqual compares through Equatable: the test names no ==, and the index has no use of it.
        let (_, equal) = try declaration(index, "==(_:_:)", in: "Sources/Lib/Shapes.swift")
        #expect(equal.line == 6 && equal.uses.isEmpty, "\(equal)")
        let (_, total) = try declaration(index, "total(_:)", in: "Sources/Lib/Shapes.swift")
        #expect(total.uses.map { index.files[$0.file] } == ["Tests/LibTests/CircleTests.swift"])
        #expect(index.externalNames.contains("XCTAssertEqual") && index.externalNames.contains("reduce"))
        #expect(!index.externalNames.contains("total"), "the package's own")
    }

    @Test("a protocol requirement reaches its witnesses, a property its accessors, a type its members")
    func relations() throws {
        let (_, index) = try Self.built.get()
        let requirement = try #require(index.declarations.first { $0.value.name == "area" && $0.value.line == 1 }?.key)
        let reached = index.closure(of: [requirement]).compactMap { index.declarations[$0] }
        #expect(
            Set(reached.filter { $0.name == "area" }.map(\.line)) == [1, 5, 11], "the requirement and both witnesses")
        let (square, _) = try declaration(index, "Square", in: "Sources/Lib/Shapes.swift")
        #expect(index.closure(of: [square]).contains { index.declarations[$0]?.name == "side" })
        #expect(
            index.declarations(in: "Sources/Lib/Shapes.swift", lines: 6...6).count == 1, "==, its parameters left out")
    }
}
