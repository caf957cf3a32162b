import Foundation
import TestSupport
import Testing

/// `pipeline test` on the example package (Examples/ExampleSuite): real builds, real test
/// processes, real hangs and crashes, checked on the report rather than the exit code alone.
@Suite("pipeline test on the example package", .serialized)
struct TestCommandTests {
    /// The example package, and a scratch folder for this test's timings and reports.
    let package = ExamplePackage.root
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try ExamplePackage.buildOnce()
    }

    private func test(_ arguments: String..., environment: [String: String] = [:]) throws -> PipelineBinary.Result {
        try ExamplePackage.test(arguments, scratch: scratch, environment: environment)
    }

    private func report(_ result: PipelineBinary.Result) throws -> [String: [String: Any]] {
        try ExamplePackage.report(result)
    }

    @Test("a clean run passes every XCTest and Swift Testing test once, records timings, writes JUnit")
    func cleanRun() throws {
        let junit = scratch.appendingPathComponent("junit.xml")
        let result = try test("--junit", junit.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(ExamplePackage.testCount) passed, 0 failed, 0 skipped"))
        #expect(result.stderr.contains("Running \(ExamplePackage.testCount) tests in"))

        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == ExamplePackage.testCount)
        #expect(
            xml.contains(#"<testcase classname="ExampleKitTests.ThumbnailTests" name="test_初期起動時_画像にhair0が表示されていること""#))
        #expect(xml.contains(#"name="scalingKeepsTheMatch(factor:)""#))
        #expect(xml.contains(#"name="regexCharactersInTheName()""#))

        let timings = try String(contentsOf: scratch.appendingPathComponent("timings.json"), encoding: .utf8)
        #expect(timings.contains("ExampleKitTests.SlowRenderingTests/testRendersLargeCanvas"))
        #expect(timings.contains("ExampleKitTests.MatchRatioTests/スナップショットが一致すること()"))
    }

    @Test("the tests run without the store's credentials: AWS's variables and init's secrets withheld, the rest kept")
    func credentialsWithheld() throws {
        let probed = [
            "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "PIPELINE_PR_AWS_SECRET_ACCESS_KEY", "EXAMPLE_CANARY",
        ]
        let result = try test(
            "--json", "--filter", "ThumbnailTests",
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "s3cret", "AWS_SESSION_TOKEN": "token",
                "PIPELINE_PR_AWS_SECRET_ACCESS_KEY": "pr-s3cret", "EXAMPLE_CANARY": "1",
                "EXAMPLE_FAIL_IF_SET": probed.joined(separator: ","),
            ])
        // The probe fails on the one variable that is not a credential, which proves it looks.
        #expect(result.status == 1, "\(result.stderr)")
        let failed = try report(result).filter { $0.value["status"] as? String == "failed" }
        #expect(failed.keys.sorted() == ["ExampleKitTests.ThumbnailTests/testFailsWhenAsked"], "\(failed)")
        let output = result.stdout + result.stderr
        #expect(output.contains("EXAMPLE_CANARY reached the test process"), "\(output)")
        for name in probed.dropLast() { #expect(!output.contains("\(name) reached"), "\(name)") }
        #expect(!output.contains("s3cret"))
    }

    @Test("a test that calls exit(1) is blamed, and the tests after it in its process run in a new one")
    func exitingTest() throws {
        let result = try test("--shards", "1", "--json", environment: ["EXAMPLE_EXIT": "1"])
        #expect(result.status == 1, "\(result.stderr)")
        let tests = try report(result)
        let statuses = tests.mapValues { $0["status"] as? String ?? "" }
        #expect(statuses["ExampleKitTests.FaultyTests/testCrashesWhenAsked"] == "crashed", "\(statuses)")
        #expect(
            (tests["ExampleKitTests.FaultyTests/testCrashesWhenAsked"]?["message"] as? String)?.contains(
                "the test process ended with exit code 1") == true)
        #expect(statuses.values.filter { $0 == "missing" }.isEmpty, "\(statuses)")
        #expect(statuses.values.filter { $0 == "passed" }.count == ExamplePackage.testCount - 1, "\(statuses)")
    }

    @Test("hangs, crashes, failures and flaky tests are each named, and every other test still runs")
    func faults() throws {
        let flakyMarkers = scratch.appendingPathComponent("flaky")
        try FileManager.default.createDirectory(at: flakyMarkers, withIntermediateDirectories: true)
        let stepSummary = scratch.appendingPathComponent("step-summary.md")
        _ = FileManager.default.createFile(atPath: stepSummary.path, contents: Data("earlier step\n".utf8))
        let result = try test(
            "--timeout", "2s", "--retries", "1", "--json",
            environment: [
                "EXAMPLE_HANG": "1", "EXAMPLE_CRASH": "1", "EXAMPLE_FAIL": "1",
                "EXAMPLE_TESTING_HANG": "1", "EXAMPLE_TESTING_CRASH": "1", "EXAMPLE_FLAKY_DIR": flakyMarkers.path,
                // As on GitHub Actions: annotations and a step summary.
                "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": package.path, "GITHUB_STEP_SUMMARY": stepSummary.path,
            ])
        #expect(result.status == 1)
        let tests = try report(result)
        #expect(tests.count == ExamplePackage.testCount, "each listed test is reported exactly once")
        func status(_ name: String) -> String? { tests["ExampleKitTests." + name]?["status"] as? String }
        func message(_ name: String) -> String { tests["ExampleKitTests." + name]?["message"] as? String ?? "" }

        #expect(status("FaultyTests/testHangsWhenAsked") == "timed-out")
        #expect(message("FaultyTests/testHangsWhenAsked").contains("still running after 2.0 s"))
        #expect(status("SwiftTestingFaults/hangsWhenAsked()") == "timed-out")
        #expect(status("FaultyTests/testCrashesWhenAsked") == "crashed")
        #expect(
            message("FaultyTests/testCrashesWhenAsked").contains("Fatal error: EXAMPLE_CRASH=1 makes this test crash"))
        #expect(status("SwiftTestingFaults/crashesWhenAsked()") == "crashed")
        #expect(message("SwiftTestingFaults/crashesWhenAsked()").contains("EXAMPLE_TESTING_CRASH=1"))
        #expect(status("ThumbnailTests/testFailsWhenAsked") == "failed")
        #expect((tests["ExampleKitTests.ThumbnailTests/testFailsWhenAsked"]?["attempts"] as? Int) == 2)
        #expect(
            (tests["ExampleKitTests.ThumbnailTests/testFailsWhenAsked"]?["output"] as? String)?
                .contains("ThumbnailTests.swift:24: error:") == true, "a failing test's own log is kept")
        #expect(status("FaultyTests/testFlakyWhenAsked") == "flaky")
        #expect(status("SwiftTestingFaults/flakyWhenAsked()") == "flaky")
        // The tests after the hang and the crash in the same shard still ran.
        #expect(status("FaultyTests/testAfterTheFaults") == "passed")
        #expect(status("ThumbnailTests/test_初期起動時_画像にhair0が表示されていること") == "passed")
        #expect(status("MatchRatioTests/scalingKeepsTheMatch(factor:)") == "passed")
        #expect(status("freeStandingTest()") == "passed")
        let passed = tests.values.filter { $0["status"] as? String == "passed" }.count
        #expect(passed == ExamplePackage.testCount - 7)
        #expect(result.stderr.contains("✗ ExampleKitTests.FaultyTests/testHangsWhenAsked timed-out"))

        #expect(
            result.stderr.contains(
                "::error file=Tests/ExampleKitTests/ThumbnailTests.swift,line=24,"
                    + "title=ExampleKitTests.ThumbnailTests/testFailsWhenAsked failed::"), "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").contains {
                $0.hasPrefix("::warning ")
                    && $0.contains("title=ExampleKitTests.FaultyTests/testFlakyWhenAsked flaky::")
            }, "a flaky test is a warning")
        let markdown = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(markdown.hasPrefix("earlier step\n### ❌ pipeline test"), "appended, not replaced")
        #expect(markdown.contains("| `ExampleKitTests.FaultyTests/testHangsWhenAsked` | timed-out |"))
    }

    @Test(
        "a hung test whose timings know its p90 is stopped at the floor, with its evidence; off, or too few runs, waits the whole --timeout"
    )
    func timeoutFromHistory() throws {
        let filters = ["--filter", "FaultyTests/testHangsWhenAsked", "--filter", "SwiftTestingFaults/hangsWhenAsked"]
        // Four runs: too few for a p90; the --timeout stops the hang.
        for _ in 1...4 { #expect(try ExamplePackage.test(filters, scratch: scratch).status == 0) }
        let early = try ExamplePackage.test(
            filters + ["--timeout", "4s", "--history-timeout", "10x/1s"], scratch: scratch,
            environment: ["EXAMPLE_HANG": "1"])
        #expect(
            early.status == 1 && early.stderr.contains("still running after 4.0 s; its process group"),
            "\(early.stderr)")
        #expect(try ExamplePackage.test(filters, scratch: scratch).status == 0)
        // Five runs recorded: the hang is stopped at the floor, the hang in Swift Testing too.
        let started = Date()
        let stopped = try ExamplePackage.test(
            filters + ["--timeout", "30s", "--history-timeout", "10x/1s", "--json"], scratch: scratch,
            environment: ["EXAMPLE_HANG": "1", "EXAMPLE_TESTING_HANG": "1"])
        #expect(Date().timeIntervalSince(started) < 20, "two hangs cost about 1 s each, not 30 s")
        let tests = try report(stopped)
        for name in ["FaultyTests/testHangsWhenAsked", "SwiftTestingFaults/hangsWhenAsked()"] {
            let entry = tests["ExampleKitTests." + name]
            #expect(entry?["status"] as? String == "timed-out", "\(name): \(String(describing: entry))")
            let message = entry?["message"] as? String ?? ""
            // The limit is the rule's (10× the p90, 1 s at least), whatever the p90 measured on
            // this machine was: under load a hang test's quick runs take over 0.1 s, and 10× them
            // is over the floor.
            let figures = try #require(
                message.firstMatch(of: /still running after ([0-9.]+) s, over 10× its p90 of ([0-9.]+) s in its last/),
                "\(message)")
            let (limit, p90) = (try #require(Double(figures.1)), try #require(Double(figures.2)))
            #expect(abs(limit - max(1, 10 * p90)) <= 0.051, "\(message)")
            #expect(limit < 30 && message.contains(" runs (the timeout is 30 s)"), "\(message)")
        }
        // Off: the whole --timeout.
        let off = try ExamplePackage.test(
            filters + ["--timeout", "3s", "--history-timeout", "off"], scratch: scratch,
            environment: ["EXAMPLE_HANG": "1"])
        #expect(off.stderr.contains("still running after 3.0 s; its process group"), "\(off.stderr)")
        #expect(try test("--history-timeout", "10/1s", "--list").status == 2)
    }

    @Test("flaky tests fail the run unless --flaky pass; the summary line counts them apart")
    func flakyPolicy() throws {
        for (policy, expected) in [("fail", Int32(1)), ("pass", Int32(0))] {
            let markers = scratch.appendingPathComponent("flaky-\(policy)")
            try FileManager.default.createDirectory(at: markers, withIntermediateDirectories: true)
            let result = try test(
                "--retries", "2", "--flaky", policy, "--filter", "Flaky|flaky",
                environment: ["EXAMPLE_FLAKY_DIR": markers.path])
            #expect(result.status == expected, "--flaky \(policy): \(result.stdout)")
            let failed = policy == "fail" ? 2 : 0
            #expect(result.stdout.contains("0 passed, \(failed) failed, 0 skipped (2 flaky)"))
        }
    }

    @Test("a test failing only on a snapshot that does not match its reference runs once; another failure is retried")
    func snapshotMismatchNotRetried() throws {
        // Another render environment draws the text snapshots otherwise; EXAMPLE_FAIL fails an assertion.
        let result = try test(
            "--json", "--retries", "2",
            environment: [
                "EXAMPLE_RENDER_ENVIRONMENT": "elsewhere", "SNAPSHOT_TESTING_RECORD": "never", "EXAMPLE_FAIL": "1",
            ])
        #expect(result.status == 1)
        let tests = try report(result)
        let failed = tests.filter { $0.value["status"] as? String == "failed" }
        let mismatches = failed.filter { ($0.value["message"] as? String ?? "").contains("does not match reference") }
        let others = failed.filter { !($0.value["message"] as? String ?? "").contains("Snapshot") }
        #expect(!mismatches.isEmpty && !others.isEmpty, "\(failed.keys.sorted())")
        #expect(mismatches.allSatisfy { $0.value["attempts"] as? Int == 1 }, "mismatches ran once: \(mismatches)")
        #expect(others.allSatisfy { $0.value["attempts"] as? Int == 3 }, "other failures were retried: \(others)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let count = mismatches.count == 1 ? "1 test" : "\(mismatches.count) tests"
        #expect(
            (json["retryNote"] as? String)?.contains(
                "\(count) failed only on snapshots that do not match their references: not retried") == true,
            "\(json["retryNote"] ?? "no note")")
    }

    @Test(
        "--failed runs only what the last run left failing; --max-retried stops retries on mass failure; a corrupt last run is named"
    )
    func failedAndMaxRetried() throws {
        let failing = try test("--json", "--retries", "2", "--max-retried", "0", environment: ["EXAMPLE_FAIL": "1"])
        #expect(failing.status == 1)
        let first = try report(failing)
        let failed = first.filter { $0.value["status"] as? String == "failed" }.map(\.key).sorted()
        #expect(!failed.isEmpty && failed.count < ExamplePackage.testCount)
        #expect(
            failed.allSatisfy { first[$0]?["attempts"] as? Int == 1 }, "more failed than --max-retried 0: none retried")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any])
        // "1 test", never "1 tests".
        let tests = failed.count == 1 ? "1 test" : "\(failed.count) tests"
        #expect(json["retryNote"] as? String == "\(tests) failed, more than --max-retried 0: none was retried")
        #expect(
            failing.stderr.contains("note: \(tests) failed, more than --max-retried 0"),
            "\(failing.stderr)")

        let retried = try test(
            "--json", "--retries", "2", "--max-retried", "\(failed.count)", environment: ["EXAMPLE_FAIL": "1"])
        #expect(
            try failed.allSatisfy { try report(retried)[$0]?["attempts"] as? Int == 3 }, "within the limit: retried")

        let again = try test("--failed", "--json")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try report(again).keys.sorted() == failed, "only the tests that failed ran")
        #expect(
            again.stderr.contains("Running the \(tests) that did not pass last time"), "\(again.stderr)")
        let nothing = try test("--failed")
        #expect(nothing.status == 0)
        #expect(nothing.stdout.contains("left no test failing: nothing to run"), "\(nothing.stdout)")

        let lastRun = package.appendingPathComponent(".build/pipeline/last-run.json")
        try Data("{".utf8).write(to: lastRun)
        let corrupt = try test("--failed")
        #expect(corrupt.status == 2)
        #expect(
            corrupt.stderr.contains("last run's report \(lastRun.path) cannot be read: not a pipeline test report"),
            "\(corrupt.stderr)")
        #expect(corrupt.stderr.contains("run without --failed for a full run"))
        let queued = try test("--failed", "--queue", "q")
        #expect(queued.status == 2)
    }

    @Test(
        "a quarantined failure is reported apart and does not fail the run; an expired entry stops it; unknown tests warn"
    )
    func quarantine() throws {
        let file = scratch.appendingPathComponent("quarantine.yml")
        for (test, days) in [
            ("ExampleKitTests.ThumbnailTests/testFailsWhenAsked", "5"), ("ExampleKitTests.Gone/testRenamed", "1"),
        ] {
            let add = try PipelineBinary.run(
                [
                    "quarantine", "add", test, "--owner", "@alice", "--reason", "known: #12",
                    "--days", days, "--file", file.path,
                ], in: scratch)
            #expect(add.status == 0, "\(add.stderr)")
        }
        let listed = try PipelineBinary.run(["quarantine", "list", "--json", "--file", file.path], in: scratch)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["daysLeft"] as? Int } == [5, 1])

        let junit = scratch.appendingPathComponent("junit.xml")
        let result = try test(
            "--json", "--quarantine", file.path, "--junit", junit.path, environment: ["EXAMPLE_FAIL": "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let tests = try report(result)
        let quarantined = tests.filter { $0.value["quarantine"] != nil }
        #expect(quarantined.keys.sorted() == ["ExampleKitTests.ThumbnailTests/testFailsWhenAsked"])
        #expect(quarantined.values.first?["status"] as? String == "failed")
        #expect((quarantined.values.first?["quarantine"] as? [String: Any])?["owner"] as? String == "@alice")
        #expect(
            result.stderr.contains(
                "\(file.path):8:5: warning: quarantined test 'ExampleKitTests.Gone/testRenamed' matches no test"),
            "\(result.stderr)")
        #expect(try String(contentsOf: junit, encoding: .utf8).contains(#"<property name="quarantined""#))
        #expect(
            result.stderr.contains("⊘ ExampleKitTests.ThumbnailTests/testFailsWhenAsked failed, quarantined: "),
            "\(result.stderr)")
        #expect(
            !result.stderr.contains("✗ ExampleKitTests.ThumbnailTests/testFailsWhenAsked"),
            "live progress knows the quarantine")
        let failing = try test("--quarantine", file.path, environment: ["EXAMPLE_FAIL": "1", "EXAMPLE_CRASH": "1"])
        #expect(failing.status == 1, "a failure outside the quarantine still fails the run")
        #expect(failing.stdout.contains("(1 crashed, 1 quarantined)"), "\(failing.stdout)")

        let text = try String(contentsOf: file, encoding: .utf8)
        let expiry = try #require(text.firstMatch(of: /expires: "([0-9-]+)"/)?.1)
        try Data(text.replacingOccurrences(of: String(expiry), with: "2020-01-31").utf8).write(to: file)
        let expired = try test("--quarantine", file.path)
        #expect(expired.status == 3)
        #expect(
            expired.stderr.contains(
                "\(file.path):7:14: quarantine[0].expires: the quarantine of "
                    + "'ExampleKitTests.ThumbnailTests/testFailsWhenAsked' expired on 2020-01-31"), "\(expired.stderr)")
        let list = try PipelineBinary.run(["quarantine", "list", "--file", file.path], in: scratch)
        #expect(list.status == 3)
        #expect(list.stdout.contains("EXPIRED"), "\(list.stdout)")
    }

    @Test("--repeat runs the selected tests N times in fresh processes and measures each one's failure rate")
    func repeatHunt() throws {
        let markers = scratch.appendingPathComponent("flaky")
        try FileManager.default.createDirectory(at: markers, withIntermediateDirectories: true)
        // Each flaky test fails on every fourth run (counted across processes): exactly 5 of 20.
        let hunt = try test(
            "--filter", "[Ff]lakyWhenAsked|testAfterTheFaults", "--repeat", "20", "--json",
            environment: ["EXAMPLE_FLAKY_DIR": markers.path, "EXAMPLE_FLAKY_EVERY": "4"])
        #expect(hunt.status == 1, "\(hunt.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(hunt.stdout.utf8)) as? [String: Any])
        #expect(json["completed"] as? Int == 20)
        let tests = try #require(json["tests"] as? [[String: Any]])
        let rates = Dictionary(
            uniqueKeysWithValues: tests.map { ($0["name"] as! String, $0["failureRate"] as! Double) })
        #expect(
            rates == [
                "ExampleKitTests.FaultyTests/testFlakyWhenAsked": 0.25,
                "ExampleKitTests.SwiftTestingFaults/flakyWhenAsked()": 0.25,
                "ExampleKitTests.FaultyTests/testAfterTheFaults": 0,
            ])
        #expect(tests.allSatisfy { $0["runs"] as? Int == 20 })
        let first = try #require(tests.first?["firstFailure"] as? [String: Any])
        #expect(first["run"] as? Int ?? 0 >= 1)
        #expect((first["message"] as? String)?.contains("fails on its first attempt") == true)
        let logs = package.appendingPathComponent(".build/pipeline/logs")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: logs.path).filter { $0.hasSuffix(".log") }.count >= 40,
            "every run in processes of its own")

        let stop = try test(
            "--filter", "testFlakyWhenAsked", "--repeat", "50", "--until-failure", "--shards", "2", "--json",
            environment: ["EXAMPLE_FLAKY_DIR": markers.path, "EXAMPLE_FLAKY_EVERY": "1"])
        #expect(stop.status == 1)
        let stopped = try #require(try JSONSerialization.jsonObject(with: Data(stop.stdout.utf8)) as? [String: Any])
        #expect(stopped["completed"] as? Int == 1)
        #expect(stopped["stoppedEarly"] as? Bool == true)

        let hang = try test(
            "--filter", "FaultyTests/testHangsWhenAsked", "--repeat", "2", "--timeout", "1s",
            environment: ["EXAMPLE_HANG": "1"])
        #expect(hang.status == 1)
        #expect(
            hang.stdout.contains("100.0%  2/2  ExampleKitTests.FaultyTests/testHangsWhenAsked (2 timed out after 1 s)"),
            "\(hang.stdout)")
        let clean = try test("--filter", "testAfterTheFaults", "--repeat", "3")
        #expect(clean.status == 0)
        #expect(try test("--repeat", "0").status == 2)
        #expect(try test("--until-failure").status == 2)
        #expect(try test("--repeat", "2", "--queue", "q").status == 2)
        // A render environment's name is one folder of a store: refused before anything runs.
        let environment = try test("--environment", "../up")
        #expect(environment.status == 2)
        #expect(environment.stderr.contains("--environment '../up' holds '/'; an environment name is one folder"))
    }

    @Test("zero selected tests is an error with its own exit status, not a pass")
    func zeroTests() throws {
        let result = try test("--filter", "NoSuchTest")
        #expect(result.status == 7)
        #expect(result.stderr.contains("error: no test matches 'NoSuchTest': zero tests is an error, not a pass"))
        let invalid = try test("--filter", "(unclosed")
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("--filter '(unclosed' is not a valid regular expression"))
        let node = try test("--node", "4/3")
        #expect(node.status == 2)
        #expect(node.stderr.contains("--node '4/3' must be I/N"))
    }

    @Test("N machines with --node I/N run disjoint parts whose union is the suite")
    func nodes() throws {
        let all = try test("--list")
        let everyTest = all.stdout.split(separator: "\n").map(String.init)
        #expect(everyTest.count == ExamplePackage.testCount)
        var seen: [String] = []
        for index in 1...3 {
            let plan = try test("--node", "\(index)/3", "--plan", "--json", "--shards", "\(index)")
            #expect(plan.status == 0)
            let shards = try #require(
                try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])
            seen += shards.flatMap { ($0["tests"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        }
        #expect(seen.sorted() == everyTest.sorted())
    }

    @Test(
        "Ctrl-C or SIGTERM ends every test process within seconds (SIGKILL after 0.5 s) and exits 130",
        arguments: ["SIGINT", "SIGTERM"])
    func interrupt(signal: String) throws {
        let process = Process()
        process.executableURL = PipelineBinary.url
        process.arguments = ["test", "--package-path", package.path, "--skip-build", "--no-record"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "EXAMPLE_HANG": "1", "EXAMPLE_TESTING_HANG": "1",
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // This package's own product (other suites may run copies of the example elsewhere).
        let product = package.appendingPathComponent(ExamplePackage.productPath).path
        // pipeline records each process group as it starts a test process, so once one is seen the
        // interrupt reaches it.
        #expect(poll(seconds: 20) { !ExamplePackage.processes(named: product).isEmpty }, "test processes started")
        let interrupted = Date()
        if signal == "SIGINT" { process.interrupt() } else { process.terminate() }
        process.waitUntilExit()
        // The grace is 0.5 s; the rest of the bound is for a loaded machine's scheduling (a hang
        // that was not killed would last until the test's own limit).
        #expect(Date().timeIntervalSince(interrupted) < 5)
        #expect(process.terminationStatus == 130)
        #expect(ExamplePackage.processes(named: product).isEmpty, "no test process outlives pipeline")
    }
}

@Suite("pipeline test on packages that cannot run")
struct TestCommandFailureTests {
    /// A throwaway package with the given files, removed when the test ends.
    private func package(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("package-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test("a build failure exits 6 and names the file and line of each compiler error, once")
    func buildFailure() throws {
        let root = try package([
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "Broken", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])
            """,
            "Sources/Lib/Value.swift": "public let value: Int = \"text\"\n",
            "Tests/LibTests/ValueTests.swift": "import XCTest\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try PipelineBinary.run(["test"], in: root)
        #expect(result.status == 6)
        #expect(result.stderr.contains("error: the tests of \(root.path) did not build:"))
        let located = result.stderr.split(separator: "\n").filter { $0.contains("Sources/Lib/Value.swift:1:") }
        #expect(located.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("full build log: \(root.path)/.build/pipeline/logs/build.log"))
    }

    @Test("a package without test targets exits 7: zero tests is never a pass")
    func noTestTargets() throws {
        let root = try package([
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "NoTests", targets: [.target(name: "Lib")])
            """,
            "Sources/Lib/Value.swift": "public let value = 1\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try PipelineBinary.run(
            ["test", "--package-path", root.path], in: FileManager.default.temporaryDirectory)
        #expect(result.status == 7)
        #expect(result.stderr.contains("no test product (*PackageTests.xctest)"))
    }
}

@Suite("pipeline timings merge")
struct TimingsMergeTests {
    @Test("files of several machines merge into one weighted by samples; a bad file is named")
    func merge() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try #"{"version":1,"tests":{"M.C/a":{"seconds":1,"samples":1},"M.C/テスト":{"seconds":4,"samples":1}}}"#
            .write(to: folder.appendingPathComponent("node1.json"), atomically: true, encoding: .utf8)
        try #"{"version":1,"tests":{"M.C/a":{"seconds":3,"samples":3}}}"#
            .write(to: folder.appendingPathComponent("node2.json"), atomically: true, encoding: .utf8)
        let result = try PipelineBinary.run(
            ["timings", "merge", "node1.json", "node2.json", "-o", "all.json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let merged = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("all.json")))
                as? [String: Any])
        let tests = try #require(merged["tests"] as? [String: [String: Any]])
        #expect(tests["M.C/a"]?["seconds"] as? Double == 2.5)
        #expect(tests["M.C/テスト"]?["seconds"] as? Double == 4)

        try "{".write(to: folder.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        let broken = try PipelineBinary.run(
            ["timings", "merge", "node1.json", "broken.json", "-o", "all.json"], in: folder)
        #expect(broken.status == 2)
        #expect(
            broken.stderr.contains("timings file \(folder.appendingPathComponent("broken.json").path) cannot be read"))
        let missing = try PipelineBinary.run(["timings", "merge", "nope.json", "-o", "all.json"], in: folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.json cannot be read: no such file"))
    }

    @Test("a cache file folds into the timings kept in the spec's develop store, which plan and test then read")
    func intoStore() throws {
        let workspace = try Workspace(pipelines: ["post-merge.yml": Specs.postMerge])
        try workspace.write(
            #"{"version":1,"tests":{"M.C/a":{"seconds":1,"samples":1},"M.C/b":{"seconds":3,"samples":1}}}"#,
            to: "cache.json")
        for _ in 1...2 {
            let result = try workspace.run("timings", "merge", "cache.json", "-o", "develop")
            #expect(result.status == 0, "\(result.stderr)")
        }
        let stored = try #require(
            RecordFiles.find(
                "pipeline-timings.json", of: workspace.root.appendingPathComponent(".pipeline/storage/develop")))
        let merged = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: stored)) as? [String: Any])
        let tests = try #require(merged["tests"] as? [String: [String: Any]])
        #expect(tests["M.C/b"]?["samples"] as? Int == 2, "folded in twice: \(tests)")
        let plan = try workspace.run("plan", "--nodes", "2", "--timings", "develop")
        #expect(plan.status == 0, "\(plan.stderr)")
        let nodes = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])
        #expect(nodes.compactMap { $0["tests"] as? Int }.reduce(0, +) == 2)
        let unknown = try workspace.run("plan", "--nodes", "2", "--timings", "gs://team/ci")
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains("--timings 'gs://team/ci' must be a file, s3://bucket/prefix, feature or develop"))
    }
}

/// The example package in this repository, built once per test run.
enum ExamplePackage {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/ExampleSuite")
    /// The test product's path below the package: the native build's `.xctest`, or Swift Build's
    /// runner of the one test target when the test script runs under it (`PIPELINE_BUILD_SYSTEM`).
    static var productPath: String {
        ProcessInfo.processInfo.environment["PIPELINE_BUILD_SYSTEM"] == "swiftbuild"
            ? ".build/out/Products/Debug-linux/ExampleKitTests-test-runner"
            : ".build/debug/ExampleSuitePackageTests.xctest"
    }
    /// 17 XCTest methods and 11 Swift Testing functions, 5 of them snapshot tests.
    static let testCount = 30

    private static let build: Result<Void, BuildError> = {
        do {
            let result = try PipelineBinary.run(["test", "--package-path", root.path, "--list"], in: root)
            return result.status == 0 ? .success(()) : .failure(BuildError(message: result.stderr))
        } catch {
            return .failure(BuildError(message: "\(error)"))
        }
    }()

    struct BuildError: Error { let message: String }

    static func buildOnce() throws { try build.get() }

    /// `pipeline test` on the example, already built, with its timings in `scratch`.
    static func test(_ arguments: [String], scratch: URL, environment: [String: String] = [:]) throws
        -> PipelineBinary.Result
    {
        try PipelineBinary.run(
            [
                "test", "--package-path", root.path, "--skip-build",
                "--timings", scratch.appendingPathComponent("timings.json").path,
            ] + arguments,
            in: scratch, environment: environment)
    }

    /// The tests of a `--json` report, by name.
    static func report(_ result: PipelineBinary.Result) throws -> [String: [String: Any]] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let tests = try #require(json["tests"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: tests.map { ($0["name"] as! String, $0) })
    }

    /// Live processes whose command line mentions `name` (from /proc).
    static func processes(named name: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data, as: UTF8.self)
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
                .dropFirst(2).first
            // A listing (`--list-tests`) ends at once; only processes running tests count.
            return line.contains(name) && !line.contains("--list-tests") && state != "Z" ? pid : nil
        }
    }
}
