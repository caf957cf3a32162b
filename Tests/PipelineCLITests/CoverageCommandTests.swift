import Foundation
import TestSupport
import Testing

/// `pipeline test --coverage` on a copy of the example package (its tests built instrumented, apart
/// from the other suites' build): the reports, SwiftPM's own numbers, crashed processes, the nodes
/// of a split merged, and bad input.
@Suite("coverage of the example package", .serialized)
struct CoverageCommandTests {
    /// A copy of the example package, built once with coverage by the first test that needs it.
    static let copy: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-coverage-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for item in (try? FileManager.default.contentsOfDirectory(atPath: ExamplePackage.root.path)) ?? []
        where item != ".build" {
            try? FileManager.default.copyItem(
                at: ExamplePackage.root.appendingPathComponent(item), to: folder.appendingPathComponent(item))
        }
        return folder
    }()

    /// Runs a command (through env, so PATH finds it) in `folder`: its exit status and output.
    private static func tool(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-cov-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // Built with coverage before each test (a no-op when it is): a pipeline run without coverage
        // in another test rebuilds the copy without it. With the build system pipeline uses
        // (`PIPELINE_BUILD_SYSTEM`, when the test script runs these under Swift Build).
        let system = ProcessInfo.processInfo.environment["PIPELINE_BUILD_SYSTEM"].map { ["--build-system", $0] } ?? []
        let built = try Self.tool(
            ["swift", "build", "--build-tests", "--enable-code-coverage", "--package-path", Self.copy.path] + system,
            in: Self.copy)
        try #require(built.status == 0, "the example package's tests build with coverage: \(built.output)")
    }

    private func pipeline(_ arguments: [String], environment: [String: String] = [:]) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: scratch, environment: environment)
    }

    private func test(_ arguments: [String], environment: [String: String] = [:], timings: String = "t.json") throws
        -> PipelineBinary.Result
    {
        try pipeline(
            ["test", "--package-path", Self.copy.path, "--timings", scratch.appendingPathComponent(timings).path]
                + arguments, environment: environment)
    }

    private func summary(_ folder: URL) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("summary.json")))
                as? [String: Any])
    }

    /// Per file: (covered, total) lines.
    private func lines(_ summary: [String: Any]) -> [String: [Int]] {
        ((summary["files"] as? [[String: Any]]) ?? []).reduce(into: [:]) { result, file in
            let lines = file["lines"] as? [String: Any]
            result[file["path"] as? String ?? ""] = [lines?["covered"] as? Int ?? -1, lines?["total"] as? Int ?? -1]
        }
    }

    @Test("lcov, Cobertura and summary.json of the package's sources, their line counts SwiftPM's own")
    func reports() throws {
        let output = scratch.appendingPathComponent("coverage")
        let stepSummary = scratch.appendingPathComponent("step-summary.md")
        _ = FileManager.default.createFile(atPath: stepSummary.path, contents: Data())
        let result = try test(
            ["--coverage", "--coverage-dir", output.path],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("default.profraw").path),
            "no instrumented process (the listing neither) leaves a profile where pipeline was started")
        let markdown = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(
            markdown.contains("| Coverage | covered | total | % |"), "the job summary shows the totals: \(markdown)")
        #expect(result.stderr.contains("Coverage: lines "), "\(result.stderr)")
        #expect(result.stderr.contains("reports in \(output.path)"))
        let ours = lines(try summary(output))
        #expect(ours.keys.sorted() == ["Sources/ExampleKit/BadgeView.swift", "Sources/ExampleKit/Thumbnail.swift"])
        let lcov = try String(contentsOf: output.appendingPathComponent("lcov.info"), encoding: .utf8)
        #expect(lcov.hasPrefix("SF:Sources/ExampleKit/BadgeView.swift\n"))
        let cobertura = try String(contentsOf: output.appendingPathComponent("cobertura.xml"), encoding: .utf8)
        #expect(cobertura.contains(#"<class name="Thumbnail.swift" filename="Sources/ExampleKit/Thumbnail.swift""#))

        // SwiftPM's own coverage of the same tests, from its native build: under Swift Build, SwiftPM
        // 6.3 exports the coverage of the test runner's generated entry point only (one file), so
        // the native build's numbers are the ones both build systems must equal.
        let swift = try Self.tool(
            ["swift", "test", "--package-path", Self.copy.path, "--enable-code-coverage"], in: scratch)
        #expect(swift.status == 0, "\(swift.output)")
        let path = try Self.tool(
            ["swift", "test", "--package-path", Self.copy.path, "--show-codecov-path"], in: scratch
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let export = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let files = ((export["data"] as? [[String: Any]])?.first?["files"] as? [[String: Any]]) ?? []
        var theirs: [String: [Int]] = [:]
        for file in files {
            let name = file["filename"] as? String ?? ""
            guard
                let relative = name.range(of: "/Sources/ExampleKit/").map({
                    "Sources/ExampleKit/" + name[$0.upperBound...]
                })
            else { continue }
            let lines = (file["summary"] as? [String: Any])?["lines"] as? [String: Any]
            theirs[relative] = [lines?["covered"] as? Int ?? -2, lines?["count"] as? Int ?? -2]
        }
        #expect(!theirs.isEmpty)
        #expect(ours == theirs, "per file, the covered and total lines of swift test --enable-code-coverage")
    }

    @Test(
        "a crashed test's process writes no profile: named as not counted, the rest merged; below the minimum exits 9")
    func crashAndThreshold() throws {
        let output = scratch.appendingPathComponent("coverage")
        let crashed = try test(
            ["--coverage", "--coverage-dir", output.path, "--skip-build"], environment: ["EXAMPLE_CRASH": "1"])
        #expect(crashed.status == 1, "the crash fails the run: \(crashed.stderr)")
        let missing = try summary(output)["missingTests"] as? [String] ?? []
        #expect(missing == ["ExampleKitTests.FaultyTests/testCrashesWhenAsked"], "\(missing)")
        #expect(crashed.stderr.contains("not counted: 1 test(s) ended without writing coverage"))
        #expect(!lines(try summary(output)).isEmpty, "the other processes' profiles are merged")

        let short = try test([
            "--coverage", "--coverage-dir", output.path, "--skip-build", "--coverage-min-lines", "100%",
        ])
        #expect(short.status == 9, "\(short.stderr)")
        #expect(short.stderr.contains("error: line coverage 9"), "\(short.stderr)")
        #expect(short.stderr.contains("is below the minimum of 100 %"))
    }

    @Test("two nodes' profiles merge into the whole suite's coverage, from files and through the store")
    func nodes() throws {
        let whole = scratch.appendingPathComponent("whole")
        #expect(try test(["--coverage", "--coverage-dir", whole.path, "--skip-build"]).status == 0)
        // Both nodes plan from the same timings, as a CI matrix's nodes do (a store pins them): node 1
        // folding its durations into the file node 2 plans from could move a test out of both halves.
        for index in 1...2 {
            try FileManager.default.copyItem(
                at: scratch.appendingPathComponent("t.json"), to: scratch.appendingPathComponent("t\(index).json"))
        }
        for index in 1...2 {
            let result = try test(
                [
                    "--coverage", "--coverage-dir", scratch.appendingPathComponent("node\(index)").path, "--skip-build",
                    "--node", "\(index)/2",
                ], timings: "t\(index).json")
            #expect(result.status == 0, "\(result.stderr)")
        }
        let partial = lines(try summary(scratch.appendingPathComponent("node1")))
        let merged = scratch.appendingPathComponent("merged")
        let merge = try pipeline(
            ["coverage", "merge", "--package-path", Self.copy.path, "--skip-build", "-o", merged.path]
                + (1...2).map { scratch.appendingPathComponent("node\($0)/coverage.profdata").path })
        #expect(merge.status == 0, "\(merge.stderr)")
        let wholeLines = lines(try summary(whole))
        let mergedLines = lines(try summary(merged))
        #expect(
            mergedLines == wholeLines,
            "merged \(mergedLines); node 1 alone had \(partial), the whole run \(wholeLines)")

        // A queue run in a folder store: each node keeps its profile in the run's folder.
        let store = scratch.appendingPathComponent("store/timings.json").path
        let nodes = try (1...2).map { index in
            try PipelineBinary.start(
                [
                    "test", "--package-path", Self.copy.path, "--skip-build", "--shards", "1", "--coverage",
                    "--coverage-dir", scratch.appendingPathComponent("q\(index)").path, "--timings", store,
                    "--node", "\(index)/2", "--queue", "run-c",
                ], in: scratch, environment: ["CI": "true"])
        }
        for result in try nodes.map({ try $0.wait() }) { #expect(result.status == 0, "\(result.stderr)") }
        let reported = scratch.appendingPathComponent("reported")
        let report = try pipeline(
            [
                "report", "--package-path", Self.copy.path, "--timings", store, "--queue", "run-c", "--coverage",
                "--coverage-dir", reported.path, "--skip-build",
            ])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(lines(try summary(reported)) == lines(try summary(whole)))

        // A node's profile that never reached the store: named, exit 9, unless --allow-partial.
        let kept = scratch.appendingPathComponent("store/pipeline-runs/run-c/coverage/node-2-of-2.profdata")
        try FileManager.default.removeItem(at: kept)
        let arguments = [
            "report", "--package-path", Self.copy.path, "--timings", store, "--queue", "run-c", "--coverage",
            "--coverage-dir", reported.path, "--skip-build",
        ]
        let missing = try pipeline(arguments)
        #expect(missing.status == 9, "\(missing.stderr)")
        #expect(missing.stderr.contains("the coverage of node 2/2 never reached"), "\(missing.stderr)")
        let allowed = try pipeline(arguments + ["--allow-partial"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try summary(reported)["missingNodes"] as? [String] == ["2/2"])
    }

    @Test("a pipeline's test stage writes coverage; below its min-lines the run stops with exit 9, naming both")
    func stage() throws {
        // The built copy itself becomes the repository (a moved build folder would rebuild).
        let repo = Self.copy
        defer {
            for item in [".git", "pipelines", ".gitignore", "coverage"] {
                try? FileManager.default.removeItem(at: repo.appendingPathComponent(item))
            }
        }
        func spec(_ minLines: String) throws {
            let folder = repo.appendingPathComponent("pipelines")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(
                """
                name: ci
                description: Test with coverage.
                stages:
                  - test:
                      shards: 2
                      coverage:
                        min-lines: \(minLines)
                        dir: coverage

                """.utf8
            ).write(to: folder.appendingPathComponent("ci.yml"))
        }
        try spec("100")
        try Data(".build/\ncoverage/\n".utf8).write(to: repo.appendingPathComponent(".gitignore"))
        try Git.run(["init", "-q", "-b", "main"], in: repo)
        try Git.run(["add", "-A"], in: repo)
        try Git.run(["commit", "-q", "-m", "package"], in: repo)
        let short = try PipelineBinary.run(["run", "ci"], in: repo)
        #expect(short.status == 9, "\(short.stderr)")
        #expect(short.stderr.contains("is below the minimum of 100 %"), "\(short.stderr)")
        #expect(FileManager.default.fileExists(atPath: repo.appendingPathComponent("coverage/lcov.info").path))

        try spec("50%")
        let stepSummary = scratch.appendingPathComponent("stage-step-summary.md")
        _ = FileManager.default.createFile(atPath: stepSummary.path, contents: Data())
        let passed = try PipelineBinary.run(
            ["run", "ci", "--json"], in: repo,
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary.path])
        #expect(passed.status == 0, "\(passed.stderr)")
        let markdown = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(markdown.contains("pipeline run ci"), "a pipeline run's CI summary: \(markdown)")
        #expect(markdown.contains("| Coverage | covered | total | % |"), "with its coverage: \(markdown)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(passed.stdout.utf8)) as? [String: Any])
        let stage = (run["stages"] as? [[String: Any]])?.first
        #expect((stage?["summary"] as? String)?.contains("; coverage: lines 9") == true, "\(stage ?? [:])")
        let totals = (stage?["coverage"] as? [String: Any])?["lines"] as? [String: Any]
        #expect((totals?["total"] as? Int ?? 0) > 0)

        // Develop records the impact map; a later change that reaches no suite skips the stage.
        for (name, setting) in [("record", "impact: record"), ("pr", "select: impacted")] {
            try Data(
                "name: \(name)\ndescription: Impact.\nstages:\n  - test:\n      timings: .build/impact-timings.json\n      \(setting)\n"
                    .utf8
            ).write(to: repo.appendingPathComponent("pipelines/\(name).yml"))
        }
        try Git.run(["add", "-A"], in: repo)
        try Git.run(["commit", "-q", "-m", "pipelines"], in: repo)
        let recorded = try PipelineBinary.run(["run", "record"], in: repo)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("Impact map of 10 suites"), "\(recorded.stderr)")
        let view = repo.appendingPathComponent("Sources/ExampleKit/BadgeView.swift")
        try Data((try String(contentsOf: view, encoding: .utf8) + "\n// a note\n").utf8).write(to: view)
        let skipped = try PipelineBinary.run(["run", "pr", "--json"], in: repo)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let stages = (try JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [String: Any])?["stages"]
        let first = (stages as? [[String: Any]])?.first
        #expect(first?["status"] as? String == "skipped", "\(first ?? [:])")
        #expect(first?["summary"] as? String == "the change reaches no test of .")
        _ = try? Git.run(["checkout", "-q", "--", "Sources"], in: repo)
    }

    @Test("the impact map: recorded per suite beside the timings; --impacted runs what a change reaches and says why")
    func impact() throws {
        let repo = Self.copy
        defer {
            _ = try? Git.run(["checkout", "-q", "--", "."], in: repo)
            for item in [".git", ".gitignore"] {
                try? FileManager.default.removeItem(at: repo.appendingPathComponent(item))
            }
        }
        try Data(".build/\n".utf8).write(to: repo.appendingPathComponent(".gitignore"))
        try Git.run(["init", "-q", "-b", "main"], in: repo)
        try Git.run(["add", "-A"], in: repo)
        try Git.run(["commit", "-q", "-m", "package"], in: repo)
        let timings = ["--skip-build", "--timings", scratch.appendingPathComponent("t.json").path]
        // Recording measures coverage, so the report options need no --coverage beside it.
        let reports = scratch.appendingPathComponent("impact-coverage")
        let recorded = try test(["--record-impact", "--coverage-dir", reports.path] + timings)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("lcov.info").path))
        #expect(recorded.stderr.contains("Impact map of 10 suites at "), "\(recorded.stderr)")
        #expect(recorded.stderr.contains(", reads traced for 10 kept beside"), "\(recorded.stderr)")
        let mapFile = scratch.appendingPathComponent("pipeline-impact.json")
        let map = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: mapFile)) as? [String: Any])
        #expect(map["package"] as? String == "." && map["configuration"] as? String == "debug")
        // The toolchain and the flags that built it: a map serves builds by the same ones.
        let swiftVersion = try Shell.run("swift", ["--version"])
        #expect(
            (map["toolchain"] as? String).map {
                (swiftVersion.stdout + swiftVersion.stderr).contains("Swift version \($0)")
            }
                == true, "\(map["toolchain"] ?? "none")")
        #expect(map["flags"] as? [String] == [], "\(map)")
        let suites = map["suites"] as? [String: [String]] ?? [:]
        #expect(suites["ExampleKitTests.ThumbnailTests"]?.contains("Sources/ExampleKit/Thumbnail.swift") == true)
        #expect(suites["ExampleKitTests.BadgeViewTests"]?.contains("Sources/ExampleKit/Thumbnail.swift") == false)
        // Per suite and file, the first lines of the functions it executed: `scaled` (line 15) and
        // `matchRatio` (26) of Thumbnail.swift, as its tests call them.
        let functions = map["functions"] as? [String: [String: [Int]]] ?? [:]
        let thumbnail = functions["ExampleKitTests.ThumbnailTests"]?["Sources/ExampleKit/Thumbnail.swift"] ?? []
        #expect(thumbnail.contains(15) && thumbnail.contains(26), "\(thumbnail)")
        #expect(functions.keys.sorted() == suites.keys.sorted())
        // What each suite read: the fixture found from #filePath, the resource through Bundle.module
        // (read from the build's bundle, kept as the package's file), the references.
        let reads = map["reads"] as? [String: [String]] ?? [:]
        #expect(reads["ExampleKitTests.BrandFixtureTests"] == ["Tests/ExampleKitTests/Fixtures/brand.json"])
        #expect(reads["ExampleKitTests.BadgeResourceTests"] == ["Tests/ExampleKitTests/Resources/badges.json"])
        #expect(
            reads["ExampleKitTests.BadgeViewTests"]?.contains(
                "Tests/ExampleKitTests/__Snapshots__/BadgeViewTests/testBadgeLayout.1.txt") == true)
        #expect(reads["ExampleKitTests.ThumbnailTests"] == [])
        #expect(map["unknownReads"] as? [String: String] == [:] && map["pluginTargets"] as? [String] == [])
        #expect(map["excluded"] as? [String] == ["Tests/ExampleKitTests/Fixtures"])
        #expect(map["testTargets"] as? [String] == ["Tests/ExampleKitTests"])
        // The dependencies whose code each suite executed, for Package.resolved's moved pins.
        let dependencies = map["dependencies"] as? [String: [String]] ?? [:]
        #expect(dependencies["ExampleKitTests.BadgeViewTests"] == ["swift-snapshot-testing"], "\(dependencies)")
        #expect(dependencies["ExampleKitTests.ThumbnailTests"] == [])

        func edit(_ path: String, _ change: (String) -> String) throws {
            let file = repo.appendingPathComponent(path)
            try Data(change(try String(contentsOf: file, encoding: .utf8)).utf8).write(to: file)
        }
        // A body change, not committed: the suites that executed the file, and no other.
        try edit("Sources/ExampleKit/Thumbnail.swift") { $0.replacingOccurrences(of: "width >= 0", with: "width >= 1") }
        let body = try test(["--impacted", "--list"] + timings)
        #expect(body.status == 0, "\(body.stderr)")
        #expect(
            body.stderr.contains(
                "impacted: ExampleKitTests.ThumbnailTests, executed Sources/ExampleKit/Thumbnail.swift"))
        #expect(body.stderr.contains("6 left out"), "\(body.stderr)")
        let listed = body.stdout.split(separator: "\n").map(String.init)
        #expect(listed.contains("ExampleKitTests.ThumbnailTests/testScalingDoublesTheSize"), "\(listed)")
        #expect(!listed.contains { $0.hasPrefix("ExampleKitTests.BadgeViewTests/") }, "\(listed)")
        try Git.run(["checkout", "-q", "--", "."], in: repo)

        // A change inside a closure of `matchRatio`: the suites that executed that function.
        try edit("Sources/ExampleKit/Thumbnail.swift") { $0.replacingOccurrences(of: "$0 == $1", with: "$0 != $1") }
        let function = try test(["--impacted", "--list"] + timings)
        #expect(function.status == 0, "\(function.stderr)")
        #expect(
            function.stderr.contains(
                "impacted: ExampleKitTests.ThumbnailTests, executed Sources/ExampleKit/Thumbnail.swift "
                    + "(the changed function at line 26)"), "\(function.stderr)")
        #expect(function.stderr.contains("6 left out") && !function.stderr.contains("BadgeViewTests,"))
        try Git.run(["checkout", "-q", "--", "."], in: repo)

        // Data: a byte of the fixture, of the resource: the suite that read it, which fails; a new
        // file nobody read: nothing.
        try edit("Tests/ExampleKitTests/Fixtures/brand.json") { $0.replacingOccurrences(of: "ffc400", with: "ffc401") }
        try edit("Tests/ExampleKitTests/Resources/badges.json") {
            $0.replacingOccurrences(of: "\"dots\": 3", with: "\"dots\": 4")
        }
        try Data("draft".utf8).write(to: repo.appendingPathComponent("Tests/ExampleKitTests/Fixtures/notes.txt"))
        let data = try test(["--impacted"] + timings)
        #expect(data.status == 1, "the data mutants fail their tests: \(data.stderr)")
        #expect(
            data.stderr.contains(
                "impacted: ExampleKitTests.BrandFixtureTests, it read Tests/ExampleKitTests/Fixtures/brand.json"))
        #expect(
            data.stderr.contains(
                "impacted: ExampleKitTests.BadgeResourceTests, it read Tests/ExampleKitTests/Resources/badges.json"))
        #expect(
            data.stderr.contains(
                "Tests/ExampleKitTests/Fixtures/notes.txt: no target compiles it and no suite read it"),
            "\(data.stderr)")
        #expect(data.stderr.contains("impacted: 2 suite(s) run, 8 left out"), "\(data.stderr)")
        // --skip-build leaves the bundle's copy of the resource as it was built: its test passes here.
        #expect(data.stdout.contains("1 passed, 1 failed"), "\(data.stdout)")
        #expect(data.stdout.contains("✗ ExampleKitTests.BrandFixtureTests/testBrandColoursMatchTheFixture — failed"))
        try Git.run(["checkout", "-q", "--", "."], in: repo)
        try FileManager.default.removeItem(at: repo.appendingPathComponent("Tests/ExampleKitTests/Fixtures/notes.txt"))
        // Nothing the recording or the tracer wrote is in the working tree.
        #expect(try Git.run(["status", "--porcelain"], in: repo).isEmpty)

        // Comments only: nothing to run.
        try edit("Sources/ExampleKit/BadgeView.swift") { $0 + "\n// a note\n" }
        let comment = try test(["--impacted"] + timings)
        #expect(comment.status == 0)
        #expect(comment.stdout.contains("No test is reachable from the change; nothing to run."), "\(comment.stdout)")
        try Git.run(["checkout", "-q", "--", "."], in: repo)

        // An initialiser no code that compiles can call, and a deprecation: nothing runs. The same
        // initialiser available, disfavoured or not, may capture calls: the type's users run.
        func initialiser(_ attributes: String) throws {
            try Git.run(["checkout", "-q", "--", "."], in: repo)
            try edit("Sources/ExampleKit/Thumbnail.swift") {
                $0.replacingOccurrences(
                    of: "    /// Scales by an integer factor, repeating each pixel.\n",
                    with:
                        "    \(attributes)\n    public init(width: Int) { self.init(width: width, height: width) }\n\n"
                        + "    @available(*, deprecated, message: \"scale the source\")\n"
                        + "    /// Scales by an integer factor, repeating each pixel.\n")
            }
        }
        try initialiser("@available(*, unavailable, message: \"give a height\")")
        let unavailable = try test(["--impacted", "--list"] + timings)
        #expect(
            unavailable.stderr.contains(
                "Sources/ExampleKit/Thumbnail.swift: only declarations unavailable on this platform changed"),
            "\(unavailable.stderr)")
        #expect(unavailable.stdout.contains("No test is reachable from the change"), "\(unavailable.stdout)")
        try initialiser("@_disfavoredOverload")
        let disfavoured = try test(["--impacted", "--list"] + timings)
        #expect(
            disfavoured.stderr.contains("impacted: ExampleKitTests.ThumbnailTests, executed"), "\(disfavoured.stderr)")
        try Git.run(["checkout", "-q", "--", "."], in: repo)

        // The manifest by what SwiftPM reads in it: comments or code that changes no package,
        // nothing; a target's settings, its graph; the dependencies, every test. A map that cannot
        // be read: every test, saying why.
        try edit("Package.swift") { $0 + "\n// touched\n" }
        let commented = try test(["--impacted", "--list"] + timings)
        #expect(
            commented.stderr.contains("Package.swift: comments, blank lines or formatting only, no test runs for it"))
        try edit("Package.swift") { $0 + "let touched = true\n" }
        let same = try test(["--impacted", "--list"] + timings)
        #expect(
            same.stderr.contains("Package.swift: SwiftPM reads the same package before and after"), "\(same.stderr)")
        #expect(same.stdout.contains("No test is reachable from the change"), "\(same.stdout)")
        try edit("Package.swift") {
            $0.replacingOccurrences(
                of: #".target(name: "ExampleKit")"#,
                with: #".target(name: "ExampleKit", swiftSettings: [.define("FAST")])"#)
        }
        let settings = try test(["--impacted", "--list"] + timings)
        #expect(
            settings.stderr.contains("fallback: the target ExampleKit: Package.swift changes its settings"),
            "\(settings.stderr)")
        #expect(settings.stdout.split(separator: "\n").count == ExamplePackage.testCount)
        try edit("Package.swift") { $0.replacingOccurrences(of: #"from: "1.17.0""#, with: #"from: "1.17.1""#) }
        let manifest = try test(["--impacted", "--list"] + timings)
        #expect(
            manifest.stderr.contains(
                "impacted: every test runs, since Package.swift changes the package's dependencies: every test"),
            "\(manifest.stderr)")
        #expect(manifest.stdout.split(separator: "\n").count == ExamplePackage.testCount)
        // A map recorded by another Swift: every test, saying why.
        let recordedMap = try Data(contentsOf: mapFile)
        let older = try #require(String(data: recordedMap, encoding: .utf8)).replacingOccurrences(
            of: "\"toolchain\" : \"", with: "\"toolchain\" : \"5.")
        try Data(older.utf8).write(to: mapFile)
        let otherSwift = try test(["--impacted", "--list"] + timings)
        #expect(
            otherSwift.stderr.contains("impacted: every test runs, since the impact map was recorded by Swift 5."),
            "\(otherSwift.stderr)")
        #expect(otherSwift.stdout.split(separator: "\n").count == ExamplePackage.testCount)

        // A test failing in CI on code the map says did not change since it passed: flaky in the
        // history, by that evidence. The change (BadgeView's body) reaches other suites, not its own.
        try Data(recordedMap).write(to: mapFile)
        try Git.run(["checkout", "-q", "--", "."], in: repo)
        try edit("Sources/ExampleKit/BadgeView.swift") { $0 + "\nfunc unusedHelper() -> Int { 1 }\n" }
        try Git.run(["commit", "-q", "-am", "BadgeView"], in: repo)
        try Scratch.write(
            "name: post-merge\ndescription: d\nreferences:\n  feature: store/feature\n  develop: store/develop\n"
                + "stages:\n  - promote:\n      from: feature\n      to: develop\n",
            to: scratch.appendingPathComponent("pipelines/post-merge.yml"))
        for folder in ["store/feature", "store/develop"] {
            try FileManager.default.createDirectory(
                at: scratch.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let ci = [
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/heads/main", "GITHUB_EVENT_NAME": "push",
            "GITHUB_RUN_ID": "77", "EXAMPLE_FAIL": "1",
        ]
        let failing = try test(["--filter", "ThumbnailTests/"] + timings, environment: ci)
        #expect(failing.status == 1, "\(failing.stderr)")
        let history = try pipeline(["history", "--json"], environment: ["CI": "false"])
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
        let failed = (kept["tests"] as? [[String: Any]] ?? []).first {
            $0["name"] as? String == "ExampleKitTests.ThumbnailTests/testFailsWhenAsked"
        }
        #expect(
            (failed?["flaky"] as? String)?.hasPrefix("failed in run 77 on code unchanged since it passed on ") == true,
            "\(String(describing: failed)) \(history.stderr)")
        // Passing again, then failing after a change its suite executes: no such evidence.
        var passing = ci
        passing["EXAMPLE_FAIL"] = nil
        passing["GITHUB_RUN_ID"] = "78"
        #expect(try test(["--filter", "ThumbnailTests/"] + timings, environment: passing).status == 0)
        try edit("Sources/ExampleKit/Thumbnail.swift") { $0.replacingOccurrences(of: "width >= 0", with: "width >= 1") }
        try Git.run(["commit", "-q", "-am", "Thumbnail"], in: repo)
        var broken = ci
        broken["GITHUB_RUN_ID"] = "79"
        #expect(try test(["--filter", "ThumbnailTests/"] + timings, environment: broken).status == 1)
        let records =
            FileManager.default.enumerator(atPath: scratch.appendingPathComponent("store").path)?
            .compactMap { $0 as? String }.filter { $0.contains(".history/") && $0.contains("-79-") } ?? []
        let record = try String(
            contentsOf: scratch.appendingPathComponent("store/" + (try #require(records.first))), encoding: .utf8)
        #expect(record.contains("testFailsWhenAsked") && !record.contains("unchangedSince"), "\(record)")
        try Data("{".utf8).write(to: mapFile)
        let corrupt = try test(["--impacted", "--list"] + timings)
        #expect(corrupt.status == 0)
        #expect(
            corrupt.stderr.contains("impacted: every test runs, since cannot read coverage from"), "\(corrupt.stderr)")
        #expect(corrupt.stderr.contains("pipeline-impact.json: not an impact map"))

        // A store that cannot be reached: exit 5, or with --impacted-or-all every test, planned locally.
        let down = [
            "test", "--package-path", repo.path, "--skip-build", "--timings", "s3://no-bucket/ci", "--list",
        ]
        let environment = [
            "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9",
            "AWS_PROFILE": "",
        ]
        let stopped = try pipeline(down + ["--impacted"], environment: environment)
        #expect(stopped.status == 5, "\(stopped.stderr)")
        let all = try pipeline(down + ["--impacted-or-all"], environment: environment)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.split(separator: "\n").count == ExamplePackage.testCount)
        #expect(
            all.stderr.contains(
                "impacted: every test runs, since the impact map's store cannot be reached (http://127.0.0.1:9"),
            "\(all.stderr)")
    }

    @Test("bad input: one line, a distinct exit code, before any build")
    func badInput() throws {
        let unwritable = try test(["--coverage", "--coverage-dir", "/proc/no-such/coverage"])
        #expect(unwritable.status == 2, "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("error: cannot write coverage to /proc/no-such/coverage"))
        #expect(!unwritable.stderr.contains("Building"), "refused before building")

        let pattern = try test(["--coverage", "--coverage-include", "("])
        #expect(pattern.status == 2)
        #expect(pattern.stderr.contains("'(' is not a regular expression"), "\(pattern.stderr)")

        let alone = try test(["--coverage-dir", "x"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("need --coverage (or --record-impact)"), "\(alone.stderr)")

        // A toolchain without the profile tools: a swift on PATH with nothing beside it.
        let bin = scratch.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let swiftScript = bin.appendingPathComponent("swift")
        try Data("#!/bin/sh\n".utf8).write(to: swiftScript)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swiftScript.path)
        let tools = try test(["--coverage"], environment: ["PATH": bin.path])
        #expect(tools.status == 9, "\(tools.stderr)")
        #expect(tools.stderr.contains("error: llvm-profdata not found"), "\(tools.stderr)")
        #expect(tools.stderr.contains(bin.path), "it names where it looked")
    }
}
