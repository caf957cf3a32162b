import Foundation
import TestSupport
import Testing

/// Swift Build (`--build-system swiftbuild`, SwiftPM 6.4's default) beside SwiftPM's native build
/// system, on a package of two test targets (one with a dash in its name) holding XCTest and Swift
/// Testing tests, one of which runs the package's executable: every test target's runner runs its
/// tests, each exactly once across shards, with the outcomes and the coverage the native build
/// gives; a crash stays in its own process; no profile is left in the package; a warm build-cache
/// restore compiles only the changed file.
@Suite("Swift Build beside the native build system", .serialized)
struct SwiftBuildTests {
    /// The package: a library of two files, test targets `AlphaTests` and `Beta-Tests` (module
    /// `Beta_Tests`); two of its six tests fail, one more crashes when `TWIN_CRASH` is set.
    struct Twin {
        let root: URL
        let package: URL

        init() throws {
            root = try Scratch.folder("swift-build")
            package = root.appendingPathComponent("twin")
            let files = [
                "Package.swift": """
                // swift-tools-version:6.0
                import PackageDescription

                let package = Package(
                    name: "Twin",
                    targets: [
                        .target(name: "Twin"),
                        .executableTarget(name: "twin-tool", dependencies: ["Twin"]),
                        .testTarget(name: "AlphaTests", dependencies: ["Twin", "twin-tool"]),
                        .testTarget(name: "Beta-Tests", dependencies: ["Twin"]),
                    ]
                )
                """,
                "Sources/Twin/Twin.swift": "public func twice(_ value: Int) -> Int { value * 2 }\n",
                "Sources/Twin/Other.swift": "public func half(_ value: Int) -> Int { value / 2 }\n",
                "Sources/twin-tool/main.swift": "import Twin\n\nprint(twice(21))\n",
                "Tests/AlphaTests/AlphaTests.swift": """
                import Foundation
                import Testing
                import Twin
                import XCTest

                final class AlphaCaseTests: XCTestCase {
                    func testTwice() { XCTAssertEqual(twice(2), 4) }
                    func testFails() { XCTAssertEqual(twice(2), 5, "alpha fails") }
                    /// Runs the package's executable with an environment of its own (no LLVM_PROFILE_FILE).
                    func testToolRuns() throws {
                        let main = Bundle.main.bundleURL
                        let tool = [main, main.deletingLastPathComponent()].map { $0.appendingPathComponent("twin-tool") }
                            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
                        let process = Process()
                        process.executableURL = try XCTUnwrap(tool, "twin-tool beside the runner")
                        process.environment = ["PATH": "/usr/bin:/bin"]
                        let output = Pipe()
                        process.standardOutput = output
                        try process.run()
                        process.waitUntilExit()
                        XCTAssertEqual(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "42\\n")
                    }
                }

                @Test func alphaHalf() { #expect(half(4) == 2) }
                """,
                "Tests/Beta-Tests/BetaTests.swift": """
                import Foundation
                import Testing
                import Twin
                import XCTest

                final class BetaCaseTests: XCTestCase {
                    func testHalf() { XCTAssertEqual(half(8), 4) }
                    func testCrashes() {
                        if ProcessInfo.processInfo.environment["TWIN_CRASH"] != nil { fatalError("twin crash") }
                    }
                }

                @Suite struct BetaSuite {
                    @Test func twiceOfHalf() { #expect(twice(half(6)) == 6) }
                    @Test func fails() { #expect(half(3) == 2, "beta fails") }
                }
                """,
                ".gitignore": ".build/\n",
            ]
            for (path, text) in files { try Scratch.write(text, to: package.appendingPathComponent(path)) }
            try Scratch.git(package, "init", "-q")
            try Scratch.git(package, "add", "-A")
            try Scratch.git(package, "commit", "-q", "-m", "twin")
        }

        func test(_ system: String, _ arguments: [String], environment: [String: String] = [:], in package: URL? = nil)
            throws -> PipelineBinary.Result
        {
            try PipelineBinary.run(
                ["test", "--package-path", (package ?? self.package).path, "--build-system", system] + arguments,
                // A developer's machine (its build cache scope `local`), whatever CI runs the tests.
                in: root, environment: ["CI": "false"].merging(environment) { $1 })
        }
    }

    /// Each test's name and status in a `--json` report, and how many times each was reported.
    static func outcomes(_ result: PipelineBinary.Result) throws -> [String: String] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let tests = try #require(json["tests"] as? [[String: Any]])
        let names = tests.compactMap { $0["name"] as? String }
        #expect(Set(names).count == names.count, "each test is reported once: \(names)")
        return Dictionary(uniqueKeysWithValues: tests.map { ($0["name"] as! String, $0["status"] as! String) })
    }

    @Test("every test target's runner runs its tests once across shards, as the native build does")
    func sameTestsAndOutcomes() throws {
        let twin = try Twin()
        defer { try? FileManager.default.removeItem(at: twin.root) }
        let expected = [
            "AlphaTests.AlphaCaseTests/testTwice": "passed", "AlphaTests.AlphaCaseTests/testFails": "failed",
            "AlphaTests.AlphaCaseTests/testToolRuns": "passed",
            "AlphaTests.alphaHalf()": "passed", "Beta_Tests.BetaCaseTests/testHalf": "passed",
            "Beta_Tests.BetaCaseTests/testCrashes": "passed", "Beta_Tests.BetaSuite/twiceOfHalf()": "passed",
            "Beta_Tests.BetaSuite/fails()": "failed",
        ]
        for system in ["native", "swiftbuild"] {
            let junit = twin.root.appendingPathComponent("\(system).xml")
            let run = try twin.test(system, ["--shards", "3", "--json", "--junit", junit.path])
            #expect(run.status == 1, "\(system): \(run.stderr)")
            #expect(run.stderr.contains("(debug, \(system))"), "\(system): \(run.stderr)")
            #expect(try Self.outcomes(run) == expected, "\(system)")
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.components(separatedBy: "<testcase ").count - 1 == expected.count, "\(system): \(xml)")

            // A filter across both runners; a crash ends only its own process.
            let filtered = try twin.test(system, ["--filter", "Half", "--json"])
            #expect(
                Set(try Self.outcomes(filtered).keys)
                    == [
                        "AlphaTests.alphaHalf()", "Beta_Tests.BetaCaseTests/testHalf",
                        "Beta_Tests.BetaSuite/twiceOfHalf()",
                    ],
                "\(system): \(filtered.stderr)")
            let crashed = try twin.test(system, ["--skip-build", "--json"], environment: ["TWIN_CRASH": "1"])
            var crashing = expected
            crashing["Beta_Tests.BetaCaseTests/testCrashes"] = "crashed"
            #expect(try Self.outcomes(crashed) == crashing, "\(system): \(crashed.stderr)")
        }
        let swiftBuildRunners = try FileManager.default.contentsOfDirectory(
            atPath: twin.package.appendingPathComponent(".build/out/Products/Debug-linux").path
        ).filter { $0.hasSuffix("-test-runner") }
        #expect(swiftBuildRunners.sorted() == ["AlphaTests-test-runner", "Beta-Tests-test-runner"])
    }

    @Test("coverage is the same under both build systems, from every runner and the executable a test runs")
    func coverage() throws {
        let twin = try Twin()
        defer { try? FileManager.default.removeItem(at: twin.root) }
        var lines: [String: String] = [:]
        for system in ["native", "swiftbuild"] {
            let run = try twin.test(system, ["--coverage"])
            #expect(run.status == 1, "\(system): \(run.stderr)")
            let summary = (run.stdout + run.stderr).split(separator: "\n").first { $0.hasPrefix("Coverage: lines") }
            lines[system] = summary.map { String($0.prefix { $0 != ";" }) }
            // The instrumented build run again without measuring: the executable's profile, written
            // where the test ran it, ends in the logs, never in the package.
            let plain = try twin.test(system, ["--skip-build"])
            #expect(plain.status == 1, "\(system): \(plain.stderr)")
            let status = try Scratch.git(twin.package, "status", "--porcelain", "--ignored=no")
            #expect(status.isEmpty, "\(system): nothing left in the package: \(status)")
        }
        // Every file, every line reached: the runners' profiles and the executable's merged.
        #expect(lines["native"] == "Coverage: lines 100 % (3/3), functions 100 % (3/3) in 3 files", "\(lines)")
        #expect(lines["swiftbuild"] == lines["native"], "\(lines)")
    }

    @Test("a warm build-cache restore under Swift Build compiles only the changed file")
    func warmRestore() throws {
        let twin = try Twin()
        defer { try? FileManager.default.removeItem(at: twin.root) }
        let cache = twin.root.appendingPathComponent("cache").path
        func checkout() throws -> URL {
            let folder = twin.root.appendingPathComponent("ci")
            try? FileManager.default.removeItem(at: folder)
            try Scratch.git(twin.root, "clone", "-q", twin.package.path, folder.path)
            return folder
        }
        let first = try twin.test("swiftbuild", ["--build-cache", cache, "--build-only"], in: try checkout())
        #expect(first.status == 0, "\(first.stderr)")
        try Scratch.write(
            "public func twice(_ value: Int) -> Int { value + value }\n",
            to: twin.package.appendingPathComponent("Sources/Twin/Twin.swift"))
        try Scratch.git(twin.package, "commit", "-q", "-am", "twice by adding")
        let app = try checkout()
        let objects = app.appendingPathComponent(
            ".build/out/Intermediates.noindex/Twin.build/Debug-linux/Twin.build/Objects-normal/x86_64")
        let warm = try twin.test("swiftbuild", ["--build-cache", cache, "--json"], in: app)
        #expect(warm.status == 1, "\(warm.stderr)")
        #expect(warm.stderr.contains("restored the build of ancestor"), "\(warm.stderr)")
        #expect(warm.stderr.contains("1 changed since"), "\(warm.stderr)")
        func modified(_ name: String) throws -> Date {
            try #require(
                try FileManager.default.attributesOfItem(atPath: objects.appendingPathComponent(name).path)[
                    .modificationDate] as? Date)
        }
        let restoredAt = try modified("Other.o")
        #expect(try modified("Twin.o") > restoredAt, "the changed file was compiled")
        #expect(restoredAt < Date().addingTimeInterval(-1), "the unchanged file kept the restored object")
        #expect(try Self.outcomes(warm).count == 8)
    }
}
