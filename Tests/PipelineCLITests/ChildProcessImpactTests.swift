import Foundation
import Testing

/// Impact selection on a package whose tests run its own executable as a child process, with an
/// environment of their own (as swift-argument-parser's example tests do): the child's profile is
/// the suite's, nothing is left in the working tree, and a string in the executable's static
/// configuration selects the suite that runs it.
@Suite("impact: tests that run the package's executables", .serialized)
struct ChildProcessImpactTests {
    static let files = [
        "Package.swift": """
        // swift-tools-version:6.0
        import PackageDescription
        let package = Package(
            name: "Tool",
            targets: [
                .executableTarget(name: "greet"),
                .target(name: "Lib"),
                .testTarget(name: "ToolTests", dependencies: ["Lib"]),
                .plugin(
                    name: "Hello",
                    capability: .command(intent: .custom(verb: "hello", description: "Says hello."))),
            ])
        """,
        "Plugins/Hello/Hello.swift": """
        import PackagePlugin

        @main
        struct Hello: CommandPlugin {
            static let greeting = "hello"

            func performCommand(context: PluginContext, arguments: [String]) async throws {
                print(Self.greeting)
            }
        }
        """,
        "Sources/greet/Greet.swift": """
        @main
        struct Greet {
            static let configuration = Configuration(
                abstract: "Says hello.",
                version: "1.0")

            static func main() {
                print(configuration.abstract)
            }
        }

        struct Configuration {
            var abstract: String
            var version: String
        }
        """,
        "Sources/Lib/Lib.swift": """
        public func double(_ value: Int) -> Int {
            value * 2
        }

        @available(*, deprecated, message: "Use double(_:).")
        public func twice(_ value: Int) -> Int {
            value * 2
        }

        public func workers() -> Int {
            #if !canImport(Dispatch)
                return 1
            #else
                return 2
            #endif
        }
        """,
        "Tests/ToolTests/GreetTests.swift": """
        import Foundation
        import XCTest

        final class GreetTests: XCTestCase {
            func testHelp() throws {
                let bundle = Bundle(for: GreetTests.self).bundleURL
                let folder = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
                let process = Process()
                process.executableURL = folder.appendingPathComponent("greet")
                process.environment = ["LANG": "C"]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                XCTAssertEqual(String(decoding: output, as: UTF8.self), "Says hello.\\n")
            }
        }
        """,
        "Tests/ToolTests/LibTests.swift": """
        import Lib
        import XCTest

        final class LibTests: XCTestCase {
            func testDouble() {
                XCTAssertEqual(double(2), 4)
                XCTAssertEqual(workers(), 2)
            }
        }
        """,
        ".gitignore": ".build/\n",
    ]

    let root: URL
    let scratch: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for (path, text) in Self.files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try Git.run(["init", "-q", "-b", "main"], in: root)
        try Git.run(["add", "-A"], in: root)
        try Git.run(["commit", "-q", "-m", "tool"], in: root)
    }

    private func test(_ arguments: [String], environment: [String: String] = [:]) throws -> PipelineBinary.Result {
        try PipelineBinary.run(
            ["test", "--package-path", root.path, "--timings", scratch.appendingPathComponent("t.json").path]
                + arguments, in: scratch, environment: environment)
    }

    /// Profiles anywhere in the package but its build folder.
    private func strayProfiles() -> [String] {
        let walker = FileManager.default.enumerator(atPath: root.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if path == ".build" || path == ".git" { walker?.skipDescendants() }
            if path.hasSuffix(".profraw") { found.append(path) }
        }
        return found
    }

    private func map() throws -> [String: Any] {
        let file = scratch.appendingPathComponent("pipeline-impact.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    private func commit(_ path: String, _ from: String, _ to: String) throws {
        let url = root.appendingPathComponent(path)
        let text = try String(contentsOf: url, encoding: .utf8)
        try #require(text.contains(from))
        try text.replacingOccurrences(of: from, with: to).write(to: url, atomically: true, encoding: .utf8)
        try Git.run(["commit", "-q", "-am", "change"], in: root)
    }

    @Test(
        "the child's profile is its suite's, nothing is left in the tree, and its configuration's string selects the suite"
    )
    func childProfiles() throws {
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: scratch)
        }
        let recorded = try test(["--record-impact"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(strayProfiles().isEmpty, "left in the working tree: \(strayProfiles())")
        let map = try map()
        #expect(map["lostProfiles"] == nil, "\(map["lostProfiles"] ?? "")")
        // The executable's own functions, placed at their lines: `main` at 7. The static initial
        // value (line 3) runs in no function of its own, which is why a change there counts whole.
        let functions = map["functions"] as? [String: [String: [Int]]] ?? [:]
        let greet = functions["ToolTests.GreetTests"]?["Sources/greet/Greet.swift"] ?? []
        #expect(greet.contains(7), "\(functions)")
        #expect(functions["ToolTests.LibTests"]?["Sources/greet/Greet.swift"] == nil)

        // The shapes real code has, each with the suites it must select (uncommitted edits).
        let shapes: [(String, String, String, [String], String)] = [
            // Made unavailable, the attribute over several lines as swift-format writes it: nothing calls it.
            (
                "Sources/Lib/Lib.swift", "@available(*, deprecated, message: \"Use double(_:).\")",
                "@available(\n    *, unavailable,\n    message:\n      \"Use double(_:).\"\n)", [],
                "Sources/Lib/Lib.swift: no suite executed or read what changed, nor code that uses what it declares"
            ),
            // Under `#if !canImport(Dispatch)`, false where Dispatch exists.
            ("Sources/Lib/Lib.swift", "return 1", "return 3", [], "only code in #if branches"),
            // A command plugin, which no build or test runs.
            ("Plugins/Hello/Hello.swift", "\"hello\"", "\"hi\"", [], "part of the command plugin Plugins/Hello"),
            // An import in the executable's file: the suite that runs it.
            (
                "Sources/greet/Greet.swift", "@main", "import Foundation\n\n@main", ["ToolTests.GreetTests"],
                "impacted: ToolTests.GreetTests, executed Sources/greet/Greet.swift"
            ),
        ]
        for (path, from, to, suites, why) in shapes {
            let url = root.appendingPathComponent(path)
            let text = try String(contentsOf: url, encoding: .utf8)
            try #require(text.contains(from), "\(path) has \(from)")
            try text.replacingOccurrences(of: from, with: to).write(to: url, atomically: true, encoding: .utf8)
            let dry = try test(["--impacted", "--dry-run", "--skip-build"])
            try Git.run(["checkout", "-q", "--", path], in: root)
            let selected = dry.stderr.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("impacted: "), let comma = line.firstIndex(of: ",") else { return nil }
                let suite = line[line.index(line.startIndex, offsetBy: 10)..<comma]
                return suite.contains(" ") ? nil : String(suite)
            }
            #expect(selected == suites, "\(path): \(from) → \(to): \(dry.stderr)")
            #expect(
                dry.stderr.contains("impacted: \(suites.count) suite(s) run, \(2 - suites.count) left out"),
                "\(dry.stderr)")
            #expect(dry.stderr.contains(why), "\(path): a line says why: \(dry.stderr)")
        }

        try commit("Sources/greet/Greet.swift", "Says hello.", "Says hi.")
        let impacted = try test(["--impacted"])
        #expect(impacted.status == 1, "the changed help fails its test: \(impacted.stderr)")
        #expect(
            impacted.stderr.contains("impacted: ToolTests.GreetTests, executed Sources/greet/Greet.swift\n"),
            "\(impacted.stderr)")
        #expect(impacted.stderr.contains("impacted: 1 suite(s) run, 1 left out"), "\(impacted.stderr)")
        #expect(strayProfiles().isEmpty, "left in the working tree: \(strayProfiles())")
    }

    @Test("without the read tracer a child's profile is lost: the map says so, and a change of code runs every test")
    func lostProfiles() throws {
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: scratch)
        }
        let recorded = try test(["--record-impact"], environment: ["PIPELINE_TRACE_READS": "0"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("Profiles of child processes were lost ("), "\(recorded.stderr)")
        #expect(strayProfiles().isEmpty, "left in the working tree: \(strayProfiles())")
        #expect(try map()["lostProfiles"] is String)
        try commit("Sources/Lib/Lib.swift", "value * 2", "value + value")
        let impacted = try test(["--impacted", "--skip-build"])
        #expect(impacted.status == 0, "\(impacted.stderr)")
        #expect(
            impacted.stderr.contains(
                "impacted: every test runs, since Sources/Lib/Lib.swift changed, and the impact map lost"),
            "\(impacted.stderr)")
    }
}
