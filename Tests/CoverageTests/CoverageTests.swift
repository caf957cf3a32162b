import ChildProcesses
import Foundation
import Testing

@testable import Coverage

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("coverage: lcov, llvm-cov's counts, filters, Cobertura, the tools")
struct CoverageTests {
    static let lcov = """
        SF:/pkg/Sources/App/View.swift
        FN:3,$s3App4ViewV4drawyyF
        FN:9,$s3App4ViewV5closeyyF
        FNDA:2,$s3App4ViewV4drawyyF
        FNDA:0,$s3App4ViewV5closeyyF
        FNF:2
        FNH:1
        DA:3,2
        DA:4,2
        DA:9,0
        DA:10,0
        LF:4
        LH:2
        end_of_record
        SF:/pkg/Tests/AppTests/ViewTests.swift
        DA:1,1
        LF:1
        LH:1
        end_of_record

        """

    @Test("an lcov tracefile reads back as it was written; two merge by adding counts, as merged profiles would")
    func lcovRoundTripAndMerge() throws {
        let first = try LineCoverage.parse(lcov: Self.lcov, name: "a.info")
        let view = try #require(first.files["/pkg/Sources/App/View.swift"])
        #expect(view.lines == [3: 2, 4: 2, 9: 0, 10: 0])
        #expect(view.lineCount == CoverageCount(covered: 2, total: 4))
        #expect(view.functionCount == CoverageCount(covered: 1, total: 2))
        #expect(try LineCoverage.parse(lcov: first.lcov(), name: "again") == first)

        // Another node ran close(): its lines and function are covered once merged.
        let second = try LineCoverage.parse(
            lcov: "SF:/pkg/Sources/App/View.swift\nFN:9,$s3App4ViewV5closeyyF\nFNDA:1,$s3App4ViewV5closeyyF\n"
                + "DA:9,1\nDA:10,1\nend_of_record\n", name: "b.info")
        var merged = first
        merged.add(second)
        let both = try #require(merged.files["/pkg/Sources/App/View.swift"])
        #expect(both.lines == [3: 2, 4: 2, 9: 1, 10: 1])
        #expect(both.functionCount == CoverageCount(covered: 2, total: 2))
        #expect(merged.lines == CoverageCount(covered: 5, total: 5))
    }

    @Test("a broken tracefile is named with its line; a tool's warning line is skipped")
    func badTracefile() {
        #expect(throws: CoverageError.unreadable(path: "x.info:2", reason: "not a DA:line,count record")) {
            try LineCoverage.parse(lcov: "SF:/a.swift\nDA:one,1\nend_of_record\n", name: "x.info")
        }
        #expect(throws: CoverageError.unreadable(path: "x.info", reason: "the last record has no end_of_record")) {
            try LineCoverage.parse(lcov: "SF:/a.swift\nDA:1,1\n", name: "x.info")
        }
        #expect(
            throws: CoverageError.unreadable(
                path: "x.info:1", reason: "a line outside a file's record (SF: … end_of_record)")
        ) {
            try LineCoverage.parse(lcov: "DA:1,1\n", name: "x.info")
        }
        #expect(
            (try? LineCoverage.parse(lcov: "warning: 1 functions have mismatched data\n", name: "x"))?.files.isEmpty
                == true)
    }

    @Test("llvm-cov's own counts (SwiftPM's) are what summaries report; lcov and Cobertura list each line once")
    func llvmCounts() throws {
        var coverage = try LineCoverage.parse(lcov: Self.lcov, name: "a.info")
        let json = """
            {"data":[{"files":[{"filename":"/pkg/Sources/App/View.swift",
              "summary":{"lines":{"count":5,"covered":3,"percent":60},"functions":{"count":2,"covered":1}}}]}],
             "type":"llvm.coverage.json.export","version":"2.0.1"}
            """
        try coverage.addSummaries(json: Data(json.utf8), name: "export")
        let view = try #require(coverage.files["/pkg/Sources/App/View.swift"])
        #expect(view.lineCount == CoverageCount(covered: 3, total: 5), "llvm-cov counts a shared line per function")
        #expect(view.distinctLines == CoverageCount(covered: 2, total: 4))
        #expect(coverage.lcov().contains("LF:4\nLH:2\n"))
        #expect(throws: CoverageError.self) { try coverage.addSummaries(json: Data("{}".utf8), name: "export") }
    }

    @Test("the package's sources are shown relative to it; tests, .build and other folders only when included")
    func filter() throws {
        let coverage = try LineCoverage.parse(
            lcov: [
                "/pkg/Sources/App/View.swift", "/pkg/Tests/AppTests/ViewTests.swift",
                "/pkg/.build/checkouts/dep/Sources/Dep.swift", "/pkg/.build/debug/runner.swift", "/other/Lib.swift",
                "/pkg/Sources/App/Generated/Model.swift",
            ].map { "SF:\($0)\nDA:1,1\nend_of_record\n" }.joined(), name: "x")
        func shown(include: [String] = [], exclude: [String] = []) throws -> [String] {
            let filter = try CoverageFilter(package: URL(fileURLWithPath: "/pkg"), include: include, exclude: exclude)
            return coverage.selecting(filter.selector()).files.keys.sorted()
        }
        #expect(try shown() == ["Sources/App/Generated/Model.swift", "Sources/App/View.swift"])
        #expect(try shown(exclude: ["/Generated/"]) == ["Sources/App/View.swift"])
        #expect(
            try shown(include: ["^Tests/", "^/other/"]) == [
                "/other/Lib.swift", "Sources/App/Generated/Model.swift", "Sources/App/View.swift",
                "Tests/AppTests/ViewTests.swift",
            ])
        let bad = #expect(throws: CoverageError.self) {
            _ = try CoverageFilter(package: URL(fileURLWithPath: "/pkg"), include: ["("])
        }
        #expect(bad?.description.hasPrefix("'(' is not a regular expression: ") == true)
    }

    @Test(
        "Cobertura: one package per folder, one class per file, each line with its hits; summary.json and the threshold"
    )
    func reports() throws {
        let filter = try CoverageFilter(package: URL(fileURLWithPath: "/pkg"))
        var report = CoverageReport(
            coverage: try LineCoverage.parse(lcov: Self.lcov, name: "a").selecting(filter.selector()),
            missing: ["AppTests.ViewTests/testCrash"])
        let xml = report.cobertura(sourceRoot: "/pkg", timestamp: Date(timeIntervalSince1970: 1))
        let document = try XMLDocument(data: Data(xml.utf8))
        let root = try #require(document.rootElement())
        #expect(root.attribute(forName: "lines-valid")?.stringValue == "4")
        #expect(root.attribute(forName: "lines-covered")?.stringValue == "2")
        #expect(root.attribute(forName: "line-rate")?.stringValue == "0.5000")
        let classes = try document.nodes(forXPath: "//package[@name='Sources.App']/classes/class")
        #expect(classes.count == 1)
        let lines = try document.nodes(forXPath: "//class[@filename='Sources/App/View.swift']/lines/line")
        #expect(
            lines.compactMap { ($0 as? XMLElement)?.attribute(forName: "hits")?.stringValue } == ["2", "2", "0", "0"])

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try report.write(to: folder, sourceRoot: "/pkg")
        let summary = try JSONDecoder().decode(
            CoverageReport.Summary.self, from: Data(contentsOf: folder.appendingPathComponent("summary.json")))
        #expect(summary.totals.lines == CoverageCount(covered: 2, total: 4))
        #expect(summary.files.map(\.path) == ["Sources/App/View.swift"])
        #expect(summary.missingTests == ["AppTests.ViewTests/testCrash"])
        #expect(
            try String(contentsOf: folder.appendingPathComponent("lcov.info"), encoding: .utf8).hasPrefix(
                "SF:Sources/App/View.swift\n"))
        #expect(report.text().contains("not counted: 1 test(s) ended without writing coverage"))

        #expect(report.shortfall == nil)
        report.minimumLines = 50
        #expect(report.shortfall == nil, "50 % meets 50 %")
        report.minimumLines = 80
        #expect(report.shortfall?.description == "line coverage 50 % is below the minimum of 80 %")
        #expect(Percent.text(79.99) == "79.9 %", "never rounded up to a threshold")
    }

    @Test("the tools are the toolchain's, beside the real swift; without them, the error names where it looked")
    func tools() throws {
        let tools = try CoverageTools.locate(variables: ProcessInfo.processInfo.environment)
        let swift = try #require(Toolchain.executable("swift", in: ProcessInfo.processInfo.environment["PATH"]))
        #expect(tools.cov.deletingLastPathComponent() == swift.resolvingSymlinksInPath().deletingLastPathComponent())

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-llvm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A swift with nothing beside it (a link to /bin/true would find Debian's LLVM in /usr/bin).
        let swiftScript = folder.appendingPathComponent("swift")
        try Data("#!/bin/sh\n".utf8).write(to: swiftScript)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swiftScript.path)
        let missing = #expect(throws: CoverageError.self) {
            _ = try CoverageTools.locate(variables: ["PATH": folder.path])
        }
        let text = missing?.description ?? ""
        #expect(text.hasPrefix("llvm-profdata not found: coverage needs the toolchain's own"), "\(text)")
        #expect(text.contains("swift is \(swiftScript.path), and llvm-profdata is not in "), "\(text)")
        #expect(text.contains(folder.path), "it names the folders it looked in: \(text)")
    }
}

@Suite("profiles written where a process ran")
struct StrayProfileTests {
    @Test(
        "a profile an instrumented child wrote into the package during the run is moved into the run's; an older one stays"
    )
    func adopted() throws {
        let package = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-stray-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: package) }
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let old = package.appendingPathComponent("old.profraw")
        try Data("old".utf8).write(to: old)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old.path)
        let settings = try CoverageSettings(package: package)
        try settings.clearProfiles()
        let stray = package.appendingPathComponent("default.profraw")
        try Data("new".utf8).write(to: stray)
        // The run's own profiles, written later, move the folder's date past the stray's.
        try Data("own".utf8).write(to: settings.profiles.appendingPathComponent("1-a.profraw"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 600)], ofItemAtPath: settings.profiles.path)
        let moved = settings.adoptStrayProfiles(in: [package, package])
        #expect(moved == [stray.path], "once, though the folder is named twice")
        #expect(!FileManager.default.fileExists(atPath: stray.path) && FileManager.default.fileExists(atPath: old.path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: settings.profiles.path).filter {
                $0.hasSuffix(".profraw")
            }
            .sorted() == ["1-a.profraw", "stray-0-default.profraw"])
    }
}
