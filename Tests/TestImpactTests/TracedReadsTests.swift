import Foundation
import ReadTracing
import Testing

@testable import TestImpact

@Suite("traced reads: what each suite read, placed in the package, and what a change to it runs")
struct TracedReadsTests {
    static var map: ImpactMap {
        var map = ImpactTests.map
        map.reads = [
            "AppTests.ParserTests": ["Tests/AppTests/Fixtures/input.json", "../shared/words.txt"],
            "AppTests.ViewTests": ["Sources/App/Resources/"],
            "AppTests.BadgeViewTests": [],
        ]
        map.unknownReads = [:]
        map.pluginTargets = ["Sources/Generated"]
        return map
    }

    private func select(_ paths: [String], map: ImpactMap = map) -> ImpactSelection {
        ImpactSelection.select(
            map: map, changes: paths.map { ImpactChange(path: $0, old: "a", new: "b") }, current: ImpactTests.current)
    }

    @Test("a file a suite read runs that suite only; a file in a folder it listed too; one nobody read, nothing")
    func readers() {
        let selection = select([
            "Tests/AppTests/Fixtures/input.json", "Sources/App/Resources/icons/star.svg",
            "Tests/AppTests/Fixtures/new.json",
            "../shared/words.txt",
        ])
        #expect(selection.everything == nil && selection.fallback.isEmpty, "\(selection)")
        #expect(
            selection.suites == [
                "AppTests.ParserTests": "it read ../shared/words.txt",
                "AppTests.ViewTests":
                    "it listed Sources/App/Resources/, which holds Sources/App/Resources/icons/star.svg",
            ])
        #expect(
            selection.notes == [
                "Tests/AppTests/Fixtures/new.json: no target compiles it and no suite read it while the impact map was "
                    + "recorded, no test runs for it"
            ])
    }

    @Test("compiled sources and build-tool plugins' inputs fall back, saying so; unknown reads run their suite")
    func buildInputsAndUnknown() {
        var map = Self.map
        map.unknownReads = ["AppTests.BadgeViewTests": "the read trace of process 7 was cut short"]
        let selection = select(
            ["Sources/CShim/shim.c", "Sources/Generated/model.proto", "Tests/AppTests/data.bin"], map: map)
        #expect(selection.fallback["Sources/CShim/shim.c"]?.contains("is c source a target compiles") == true)
        #expect(selection.fallback["Sources/Generated/model.proto"]?.contains("whose build-tool plugin reads") == true)
        #expect(
            selection.suites == [
                "AppTests.BadgeViewTests":
                    "its reads are unknown (the read trace of process 7 was cut short), and Tests/AppTests/data.bin changed"
            ])
        #expect(selection.notes.isEmpty, "a suite whose reads are unknown may have read it")
    }

    @Test("Swift the manifest excludes from its target runs nothing; the map keeps the exclusions")
    func excluded() {
        var map = Self.map
        map.excluded = ["Sources/App/Legacy", "Sources/App/Old.swift"]
        let selection = select(["Sources/App/Legacy/Parser.swift", "Sources/App/Old.swift"], map: map)
        #expect(selection.suites.isEmpty && selection.fallback.isEmpty && selection.everything == nil, "\(selection)")
        #expect(
            selection.notes == [
                "Sources/App/Legacy/Parser.swift: excluded from its target (exclude: Sources/App/Legacy in Package.swift), "
                    + "no test runs for it",
                "Sources/App/Old.swift: excluded from its target (exclude: Sources/App/Old.swift in Package.swift), "
                    + "no test runs for it",
            ])
    }

    @Test("a map without traced reads falls back as before, saying why reads were not traced")
    func untraced() {
        var map = ImpactTests.map
        #expect(select(["Tests/AppTests/Fixtures/input.json"], map: map).fallback.count == 1)
        map.untraced = "read tracing is built for Linux's LD_PRELOAD only"
        let selection = select(["Tests/AppTests/Fixtures/input.json"], map: map)
        #expect(
            selection.fallback["Tests/AppTests/Fixtures/input.json"]
                == "Tests/AppTests/Fixtures/input.json is not Swift source: coverage cannot see what it changes, "
                + "and reads were not traced (read tracing is built for Linux's LD_PRELOAD only)")
        // An old map's JSON, without the fields, still reads.
        let old =
            #"{"version":1,"commit":"c","package":".","configuration":"debug","recordedAt":"t","suites":{},"tests":{}}"#
        let decoded = try? ImpactMap.decode(Data(old.utf8), name: "old.json")
        #expect(decoded?.reads == nil && decoded?.untraced == nil)
    }

    @Test(
        "placing reads: a resource bundle's file is the package's resource; outside the package is ../; .git and build products are not reads"
    )
    func placing() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("traced-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let repository = scratch.path
        let package = repository + "/pkg"
        for folder in ["pkg/Tests/T/Resources/images", "pkg/Tests/T/Fixtures", "shared", "pkg/.build/debug"] {
            try FileManager.default.createDirectory(
                atPath: repository + "/" + folder, withIntermediateDirectories: true)
        }
        for file in ["pkg/Tests/T/Resources/images/a.png", "pkg/Tests/T/Fixtures/f.json", "shared/w.txt"] {
            try Data().write(to: URL(fileURLWithPath: repository + "/" + file))
        }
        // A link inside the package to a file outside it: both count.
        try FileManager.default.createSymbolicLink(
            atPath: package + "/Tests/T/Fixtures/link.txt", withDestinationPath: repository + "/shared/w.txt")
        let graph = PackageGraph(
            name: "Pkg",
            targets: [
                .init(
                    name: "T", c99name: "T", path: "Tests/T", type: "test",
                    resources: [.init(path: package + "/Tests/T/Resources/images", copies: true)])
            ])
        let bundle = package + "/.build/x86_64-unknown-linux-gnu/debug/Pkg_T.resources"
        let traces: [String: SuiteReads] = [
            "T.A": .read([
                bundle + "/images/a.png", package + "/Tests/T/Fixtures/f.json", package + "/.build/debug",
                package + "/.git/HEAD", repository + "/shared/w.txt", "/etc/hostname",
            ]),
            "T.B": .read([bundle, package + "/Tests/T/Fixtures/link.txt", package + "/Tests/T/Fixtures"]),
            "T.C": .unknown("cut short"),
        ]
        let placed = TracedReads.relate(
            traces, suites: ["T.A", "T.B", "T.C", "T.D"], package: package, repository: repository, graph: graph)
        #expect(
            placed.reads == [
                "T.A": ["../shared/w.txt", "Tests/T/Fixtures/f.json", "Tests/T/Resources/images/a.png"],
                "T.B": [
                    "../shared/w.txt", "Tests/T/Fixtures/", "Tests/T/Fixtures/link.txt", "Tests/T/Resources/images/",
                ],
            ])
        #expect(placed.unknown["T.C"] == "cut short")
        #expect(placed.unknown["T.D"]?.contains("no read trace") == true)
        #expect(TracedReads.covers("./", "a/b") && !TracedReads.covers("./", "../a"))
        #expect(TracedReads.covers("Tests/", "Tests/x") && !TracedReads.covers("Tests/x", "Tests/xy"))
    }
}
