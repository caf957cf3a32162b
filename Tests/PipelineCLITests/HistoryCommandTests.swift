import Foundation
import TestSupport
import Testing

/// CI runs of a small package keep their records in the team's store; `pipeline history` reads
/// them back: a test that fails on one run in five, one that slows down run by run.
@Suite("the test history across CI runs: records kept per run, read by pipeline history", .serialized)
struct HistoryCommandTests {
    let root: URL

    init() throws {
        root = try Scratch.folder("history")
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(name: "Pkg", targets: [.testTarget(name: "PkgTests")])
            """,
            // RUN is the CI run's number: the race fails on every fifth, the rendering slows by 30 ms a run.
            "Tests/PkgTests/ScreenTests.swift": """
            import Foundation
            import XCTest

            final class ScreenTests: XCTestCase {
                let run = Int(ProcessInfo.processInfo.environment["RUN"] ?? "") ?? 0

                func testRace() { XCTAssertFalse(run % 5 == 3, "the callback came after the timeout") }
                func testRender() { Thread.sleep(forTimeInterval: 0.02 + Double(run) * 0.03) }
                func testSteady() { XCTAssertEqual(1 + 1, 2) }
            }
            """,
            "pipelines/post-merge.yml": """
            name: post-merge
            description: Test, then promote.
            references:
              feature: store/feature
              develop: store/develop
            stages:
              - promote:
                  from: feature
                  to: develop

            """,
            ".gitignore": ".build/\nstore/\n",
        ]
        for (path, text) in files { try Scratch.write(text, to: root.appendingPathComponent(path)) }
        for folder in ["store/feature", "store/develop"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Git.run(["init", "-q", "-b", "develop"], in: root)
        try Git.run(["add", "-A"], in: root)
        try Git.run(["commit", "-q", "-m", "the package"], in: root)
    }

    @Test(
        "10 CI runs on develop: history names the test failing on 1 run in 5 as flaky (one tree), the one slowing down with its trend, and counts the runs; outside CI no record is kept"
    )
    func acrossRuns() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let build = try PipelineBinary.run(["test", "--build-only"], in: root, environment: ["CI": "false"])
        #expect(build.status == 0, "\(build.stderr)")
        let local = try PipelineBinary.run(["test", "--skip-build"], in: root, environment: ["CI": "false"])
        #expect(local.status == 0, "\(local.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("store/.pipeline").path))
        let empty = try PipelineBinary.run(["history"], in: root)
        #expect(empty.status == 0 && empty.stdout.hasPrefix("No run's record in"), "\(empty.stdout)")

        for run in 1...10 {
            let ci = [
                "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/heads/develop", "GITHUB_EVENT_NAME": "push",
                "GITHUB_RUN_ID": "\(500 + run)", "RUN": "\(run)",
            ]
            let result = try PipelineBinary.run(["test", "--skip-build"], in: root, environment: ci)
            #expect(result.status == (run % 5 == 3 ? 1 : 0), "run \(run): \(result.stdout)\(result.stderr)")
        }
        let days = root.appendingPathComponent("store/.pipeline/branch/develop/feature/.history")
        let kept = FileManager.default.subpaths(atPath: days.path)?.filter { $0.hasSuffix(".json") } ?? []
        #expect(kept.count == 10, "one object per run: \(kept)")
        let bytes = kept.map {
            (try? FileManager.default.attributesOfItem(atPath: days.appendingPathComponent($0).path)[.size] as? Int)
                ?? 0
        }
        #expect(bytes.allSatisfy { $0 < 1_000 }, "a run of 3 tests keeps under 1 kB: \(bytes)")

        let history = try PipelineBinary.run(["history", "--json"], in: root)
        #expect(history.status == 0, "\(history.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
        #expect(report["runs"] as? Int == 10)
        let tests = try #require(report["tests"] as? [[String: Any]])
        let race = try #require(tests.first { $0["name"] as? String == "PkgTests.ScreenTests/testRace" })
        #expect(race["runs"] as? Int == 10 && race["failures"] as? Int == 2, "\(race)")
        #expect((race["flaky"] as? String)?.contains("failed in run 508 and passed in run 510 on one tree") == true)
        #expect(
            ((race["lastFailure"] as? [String: Any])?["message"] as? String)?.contains(
                "the callback came after the timeout") == true, "\(race)")
        let render = try #require(tests.first { $0["name"] as? String == "PkgTests.ScreenTests/testRender" })
        #expect(render["slowing"] as? Bool == true && (render["trend"] as? Double ?? 0) > 2, "\(render)")
        #expect(tests.first?["name"] as? String == "PkgTests.ScreenTests/testRace", "flaky first")

        // The page: self-contained, each test's runs drawn; it renders in headless Chromium.
        let page = root.appendingPathComponent("out/history.html")
        let written = try PipelineBinary.run(["history", "--html", "out/history.html"], in: root)
        #expect(written.status == 0 && written.stderr.contains("history: the page is "), "\(written.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("PkgTests.ScreenTests/testRace") && html.contains("<polyline"), "\(html.prefix(500))")
        #expect(html.contains("fill=\"#d33\"") && !html.contains("<script") && !html.contains("http"))
        if Browser.chromium != nil {
            let shot = try Browser.screenshot(of: page.absoluteString, scratch: root)
            let red = stride(from: 0, to: shot.pixels.count - 3, by: 4).filter {
                shot.pixels[$0] > 180 && shot.pixels[$0 + 1] < 80 && shot.pixels[$0 + 2] < 80
            }.count
            try? FileManager.default.copyItem(
                at: page, to: FileManager.default.temporaryDirectory.appendingPathComponent("history-page-last.html"))
            #expect(red > 50, "the failed runs' red squares are drawn: \(red) red pixels")
        }
        let table = try PipelineBinary.run(["history"], in: root)
        #expect(table.stdout.hasPrefix("10 run(s) from "), "\(table.stdout)")
        #expect(
            table.stdout.contains("slowing") && table.stdout.contains("flaky: failed in run 508"), "\(table.stdout)")
        // The flaky test proposed for quarantine: its owner from CODEOWNERS, the evidence as its reason.
        try Scratch.write(
            "* @everyone\nTests/PkgTests/ @team-screens\n", to: root.appendingPathComponent(".github/CODEOWNERS"))
        let proposed = try PipelineBinary.run(["quarantine", "propose", "--days", "7"], in: root)
        #expect(proposed.status == 0, "\(proposed.stderr)")
        #expect(
            proposed.stdout.contains("proposed PkgTests.ScreenTests/testRace (owner @team-screens, until "),
            "\(proposed.stdout)")
        #expect(proposed.stdout.contains("1 entry added to pipelines/quarantine.yml"), "\(proposed.stdout)")
        let quarantine = try String(
            contentsOf: root.appendingPathComponent("pipelines/quarantine.yml"), encoding: .utf8)
        #expect(
            quarantine.contains("test: PkgTests.ScreenTests/testRace")
                || quarantine.contains("test: \"PkgTests.ScreenTests/testRace\""), "\(quarantine)")
        #expect(quarantine.contains("failed 2 of 10 runs in 30 days"), "\(quarantine)")
        let listed = try PipelineBinary.run(["quarantine", "list"], in: root)
        #expect(listed.status == 0 && listed.stdout.contains("owner @team-screens"), "\(listed.stdout)")
        let again = try PipelineBinary.run(["quarantine", "propose"], in: root)
        #expect(again.stdout.contains("No test to propose"), "already quarantined: \(again.stdout)")

        // Retention: today's records are younger than a day.
        let pruned = try PipelineBinary.run(["history", "--prune-older-than", "1"], in: root)
        #expect(pruned.stdout.hasPrefix("Removed 0 record(s) of runs older than 1 day(s)"), "\(pruned.stdout)")
        #expect(try PipelineBinary.run(["history", "--days", "0"], in: root).status == 2)
    }
}
