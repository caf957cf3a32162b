import Foundation
import TestSupport
import Testing

extension TestCommandTests {
    /// 30 CI runs of the example package (built once for every suite, `ExamplePackage`) on develop keep
    /// their records in the team's store, a folder or the S3 server with signature checks on;
    /// `pipeline history` reads them back: its flaky test made to fail on 1 run in 5, its long test
    /// slowing down run by run. Nested in TestCommandTests, whose runs it would otherwise share the
    /// example's log folder with at once.
    @Suite("the test history across CI runs: records kept per run, read by pipeline history", .serialized)
    struct HistoryCommandTests {
        /// The tests each run runs: the flaky one, the slowing one, a steady one and a suite of four.
        static let filters = [
            "FaultyTests/testFlakyWhenAsked", "FaultyTests/testCrashesWhenAsked",
            "SlowRenderingTests/testRendersLargeCanvas",
            "ThumbnailTests/",
        ]

        /// A repository whose spec names the store, its CODEOWNERS, and the example's test files
        /// (copied: the runs test the example package's build, in place).
        static func repository(_ backend: RefsBackend) async throws -> URL {
            let root = try Scratch.folder("history")
            try Scratch.write(
                "name: post-merge\ndescription: Test, then promote.\n" + (try await backend.references())
                    + "stages:\n  - promote:\n      from: feature\n      to: develop\n",
                to: root.appendingPathComponent("pipelines/post-merge.yml"))
            try Scratch.write(".build/\nstore/\n", to: root.appendingPathComponent(".gitignore"))
            try Scratch.write(
                "* @everyone\nTests/ExampleKitTests/ @team-screens\n",
                to: root.appendingPathComponent(".github/CODEOWNERS")
            )
            let tests = ExamplePackage.root.appendingPathComponent("Tests/ExampleKitTests")
            for file in try FileManager.default.contentsOfDirectory(atPath: tests.path) where file.hasSuffix(".swift") {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent("Tests/ExampleKitTests"), withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    at: tests.appendingPathComponent(file),
                    to: root.appendingPathComponent("Tests/ExampleKitTests/" + file)
                )
            }
            for folder in ["store/feature", "store/develop"] {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            try Git.run(["init", "-q", "-b", "develop"], in: root)
            try Git.run(["add", "-A"], in: root)
            try Git.run(["commit", "-q", "-m", "the team's repository"], in: root)
            return root
        }

        @Test(
            "30 CI runs on develop: history names the test failing on 1 run in 5 as flaky (one tree), the one slowing down with its trend, per suite; the page is kept in the store and linked from the summary; quarantine propose writes the first with its owner",
            arguments: RefsBackend.available)
        func acrossRuns(backend: RefsBackend) async throws {
            try ExamplePackage.buildOnce()
            let root = try await Self.repository(backend)
            defer { try? FileManager.default.removeItem(at: root) }
            let filters = Self.filters.flatMap { ["--filter", $0] }
            let credentials = backend == .s3 ? RefsBackend.environment : [:]
            func pipeline(_ arguments: [String]) throws -> PipelineBinary.Result {
                try PipelineBinary.run(arguments, in: root, environment: credentials.merging(["CI": "false"]) { $1 })
            }

            let local = try ExamplePackage.test(filters, scratch: root, environment: ["CI": "false"])
            #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
            let empty = try pipeline(["history"])
            #expect(
                empty.status == 0 && empty.stdout.hasPrefix("No run's record in"), "outside CI none is kept: \(empty)")

            let flaky = root.appendingPathComponent("flaky")
            try FileManager.default.createDirectory(at: flaky, withIntermediateDirectories: true)
            for run in 1...30 {
                let ci = credentials.merging([
                    "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/heads/develop",
                    "GITHUB_EVENT_NAME": "push",
                    "GITHUB_RUN_ID": "\(500 + run)",
                    "GITHUB_STEP_SUMMARY": root.appendingPathComponent("summary.md").path,
                    // The flaky test fails on runs 1, 6, 11, …; the long test takes 20 ms more each run.
                    "EXAMPLE_FLAKY_DIR": flaky.path, "EXAMPLE_FLAKY_EVERY": "5",
                    "EXAMPLE_LONG_SECONDS": String(format: "%.2f", 0.02 + Double(run) * 0.02),
                ]) { $1 }
                try Scratch.write("", to: root.appendingPathComponent("summary.md"))
                let result = try ExamplePackage.test(filters, scratch: root, environment: ci)
                #expect(result.status == (run % 5 == 1 ? 1 : 0), "run \(run): \(result.stdout)\(result.stderr)")
            }

            let history = try pipeline(["history", "--json"])
            #expect(history.status == 0, "\(history.stderr)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
            #expect(report["runs"] as? Int == 30 && report["records"] as? Int == 30, "one object per run")
            let bytes = try #require(report["bytes"] as? Int)
            #expect(bytes < 30 * 1_000, "30 runs of 7 tests keep under 1 kB a run: \(bytes) bytes")
            let tests = try #require(report["tests"] as? [[String: Any]])
            let race = try #require(
                tests.first { $0["name"] as? String == "ExampleKitTests.FaultyTests/testFlakyWhenAsked" })
            #expect(race["runs"] as? Int == 30 && race["failures"] as? Int == 6, "\(race)")
            #expect(
                (race["flaky"] as? String)?.contains("failed in run 526 and passed in run 530 on one tree") == true,
                "\(race)")
            #expect(
                ((race["lastFailure"] as? [String: Any])?["message"] as? String)?.contains("fails on its first attempt")
                    == true, "\(race)")
            let render = try #require(
                tests.first { $0["name"] as? String == "ExampleKitTests.SlowRenderingTests/testRendersLargeCanvas" })
            #expect(render["slowing"] as? Bool == true && (render["trend"] as? Double ?? 0) > 2, "\(render)")
            #expect(tests.first?["name"] as? String == "ExampleKitTests.FaultyTests/testFlakyWhenAsked", "flaky first")
            let suites = try #require(report["suites"] as? [[String: Any]])
            let faulty = try #require(suites.first)
            #expect(
                faulty["name"] as? String == "ExampleKitTests.FaultyTests" && faulty["failures"] as? Int == 6
                    && faulty["flaky"] as? Int == 1 && faulty["tests"] as? Int == 2, "\(suites)")
            #expect(
                suites.contains {
                    $0["name"] as? String == "ExampleKitTests.ThumbnailTests" && $0["tests"] as? Int == 4
                })

            // The post-merge page: kept in the store, linked from the step summary, opened by its link.
            let summary = try String(contentsOf: root.appendingPathComponent("summary.md"), encoding: .utf8)
            let link = try #require(
                summary.firstMatch(
                    of:
                        /\*\*Test history\*\* \(30 runs in 14 days\): 1 flaky, 1 slowing test\(s\); \[the page\]\(([^)]+)\)/
                )
                .map { String($0.1) }, "\(summary)")
            let page: String
            if backend == .s3 {
                #expect(
                    link.hasPrefix(RefsBackend.s3Endpoint!) && link.contains("X-Amz-Signature="), "presigned: \(link)")
                let get = try Shell.run("curl", ["-sf", "-D", "-", link])
                #expect(get.status == 0 && get.stdout.lowercased().contains("content-type: text/html"), "\(get.stderr)")
                page = get.stdout
            } else {
                #expect(link.hasSuffix("store/.pipeline/branch/develop/feature/.history/index.html"), "\(link)")
                page = try String(contentsOfFile: link, encoding: .utf8)
            }
            #expect(page.contains("ExampleKitTests.FaultyTests/testFlakyWhenAsked") && page.contains("<h2>Suites</h2>"))

            // The page written here: self-contained; it renders in headless Chromium.
            let written = try pipeline(["history", "--html", "out/history.html"])
            #expect(written.status == 0 && written.stderr.contains("history: the page is "), "\(written.stderr)")
            let file = root.appendingPathComponent("out/history.html")
            let html = try String(contentsOf: file, encoding: .utf8)
            #expect(html.contains("<polyline") && html.contains("fill=\"#d33\"") && !html.contains("<script"))
            #expect(!html.contains("http"), "nothing fetched")
            if Browser.chromium != nil {
                let shot = try Browser.screenshot(of: file.absoluteString, scratch: root)
                let red = stride(from: 0, to: shot.pixels.count - 3, by: 4).filter {
                    shot.pixels[$0] > 180 && shot.pixels[$0 + 1] < 80 && shot.pixels[$0 + 2] < 80
                }.count
                try? FileManager.default.removeItem(
                    at: FileManager.default.temporaryDirectory.appendingPathComponent("history-page-\(backend).html"))
                try? FileManager.default.copyItem(
                    at: file,
                    to: FileManager.default.temporaryDirectory.appendingPathComponent("history-page-\(backend).html"))
                #expect(red > 50, "the failed runs' red squares are drawn: \(red) red pixels")
            }
            let table = try pipeline(["history"])
            #expect(table.stdout.hasPrefix("30 run(s) from "), "\(table.stdout)")
            #expect(
                table.stdout.contains("30 record(s), ") && table.stdout.contains(" kB in the store"), "\(table.stdout)")
            #expect(
                table.stdout.contains("slowing") && table.stdout.contains("flaky: failed in run 526"), "\(table.stdout)"
            )

            // The flaky test proposed for quarantine: its owner from CODEOWNERS (the file declaring
            // FaultyTests is SlowRenderingTests.swift), the evidence as its reason.
            let proposed = try pipeline(["quarantine", "propose", "--days", "7"])
            #expect(proposed.status == 0, "\(proposed.stderr)")
            #expect(
                proposed.stdout.contains(
                    "proposed ExampleKitTests.FaultyTests/testFlakyWhenAsked (owner @team-screens, until "),
                "\(proposed.stdout)")
            #expect(proposed.stdout.contains("1 entry added to pipelines/quarantine.yml"), "\(proposed.stdout)")
            let quarantine = try String(
                contentsOf: root.appendingPathComponent("pipelines/quarantine.yml"), encoding: .utf8)
            #expect(quarantine.contains("ExampleKitTests.FaultyTests/testFlakyWhenAsked"), "\(quarantine)")
            #expect(quarantine.contains("failed 6 of 30 runs in 30 days"), "\(quarantine)")
            let listed = try pipeline(["quarantine", "list"])
            #expect(listed.status == 0 && listed.stdout.contains("owner @team-screens"), "\(listed.stdout)")
            let again = try pipeline(["quarantine", "propose"])
            #expect(again.stdout.contains("No test to propose"), "already quarantined: \(again.stdout)")

            // Retention: today's records are younger than a day.
            let pruned = try pipeline(["history", "--prune-older-than", "1"])
            #expect(pruned.stdout.hasPrefix("Removed 0 record(s) of runs older than 1 day(s)"), "\(pruned.stdout)")
            #expect(try pipeline(["history", "--days", "0"]).status == 2)
        }
    }
}
