import Foundation
import Testing

/// `pipeline import` and `pipeline plan --format xcodebuild` as an Xcode team runs them in CI,
/// on outputs written the way xcodebuild writes them.
@Suite("Xcode teams: import a run's results, plan the next one's nodes")
struct XcodeCommandTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-xcode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func pipeline(_ arguments: String...) throws -> PipelineBinary.Result {
        try pipeline(arguments)
    }

    func pipeline(_ arguments: [String]) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: scratch, environment: ["CI": "false"])
    }

    /// A serial log: LoginTests' two tests (one failing), ProfileTests' slow one, a restart after a crash.
    static let log = """
        Test Suite 'AppTests.xctest' started at 2026-11-24 10:00:00.000.
        Test Case '-[AppTests.LoginTests testLogin]' started.
        /Users/ci/App/Tests/LoginTests.swift:12: error: -[AppTests.LoginTests testLogin] : XCTAssertEqual failed: ("a") is not equal to ("b")
        Test Case '-[AppTests.LoginTests testLogin]' failed (0.400 seconds).
        Test Case '-[AppTests.LoginTests testLogout]' started.
        Test Case '-[AppTests.LoginTests testLogout]' passed (0.300 seconds).
        Test Case '-[AppTests.ProfileTests testAvatar]' started.
        Test Case '-[AppTests.ProfileTests testAvatar]' passed (12.000 seconds).
        Test Case '-[AppTests.ProfileTests testBio]' started.
        Restarting after unexpected exit, crash, or test timeout in ProfileTests.testBio(); summary will include totals from previous launches.
        Test Case '-[AppTests.ProfileTests testBio]' started.
        Test Case '-[AppTests.ProfileTests testBio]' passed (5.000 seconds).
        Test Case '-[AppTests.SearchTests testQuery]' started.
        Test Case '-[AppTests.SearchTests testQuery]' passed (6.000 seconds).

        """

    static let enumeration = """
        {"errors": [], "values": [{"testPlan": "App", "disabledTests": [], "enabledTests": [
          {"identifier": "AppTests/LoginTests/testLogin()"}, {"identifier": "AppTests/LoginTests/testLogout()"},
          {"identifier": "AppTests/ProfileTests/testAvatar()"}, {"identifier": "AppTests/ProfileTests/testBio()"},
          {"identifier": "AppTests/SearchTests/testQuery()"}, {"identifier": "AppTests/SearchTests/testNew()"}]}]}
        """

    @Test("the flaky and quarantine rules give pipeline test's verdicts; exit 1 only when a test fails the run")
    func verdicts() throws {
        let log = try write("test.log", Self.log)
        let failing = try pipeline("import", "xcodebuild-log", log, "--json")
        #expect(failing.status == 1, "\(failing.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any])
        let tests = Dictionary(
            uniqueKeysWithValues: (report["tests"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
        #expect(tests.count == 5)
        #expect(tests["AppTests.LoginTests/testLogin"]?["status"] as? String == "failed")
        #expect(
            (tests["AppTests.LoginTests/testLogin"]?["message"] as? String)?.contains("LoginTests.swift:12") == true)
        #expect(tests["AppTests.ProfileTests/testBio"]?["status"] as? String == "flaky", "a crash, then a pass")

        let quarantine = scratch.appendingPathComponent("quarantine.yml").path
        let add = try pipeline(
            "quarantine", "add", "AppTests.LoginTests/testLogin", "--owner", "@ios", "--reason", "#7", "--file",
            quarantine)
        #expect(add.status == 0, "\(add.stderr)")
        let flakyFails = try pipeline("import", "xcodebuild-log", log, "--quarantine", quarantine)
        #expect(flakyFails.status == 1, "flaky still fails under the default policy: \(flakyFails.stdout)")
        let passes = try pipeline("import", "xcodebuild-log", log, "--quarantine", quarantine, "--flaky", "pass")
        #expect(passes.status == 0, "\(passes.stdout)\(passes.stderr)")
        #expect(passes.stdout.contains("1 quarantined") || passes.stdout.contains("quarantined"), "\(passes.stdout)")
        let junit = scratch.appendingPathComponent("junit.xml")
        _ = try pipeline("import", "xcodebuild-log", log, "--junit", junit.path)
        #expect(try String(contentsOf: junit, encoding: .utf8).contains(#"tests="5" failures="1""#))
    }

    @Test(
        "the imported durations plan the nodes: every enumerated test once, the slow ones apart; --failed plans the rest"
    )
    func plan() throws {
        _ = try pipeline("import", "xcodebuild-log", try write("test.log", Self.log))
        let tests = try write("tests.json", Self.enumeration)
        let planned = try pipeline("plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests)
        #expect(planned.status == 0, "\(planned.stderr)")
        let nodes = try #require(try JSONSerialization.jsonObject(with: Data(planned.stdout.utf8)) as? [[String: Any]])
        let arguments = nodes.flatMap { $0["arguments"] as? [String] ?? [] }
        #expect(arguments.count == 6 && Set(arguments).count == 6, "every test in exactly one node: \(arguments)")
        #expect(arguments.contains("-only-testing:AppTests/SearchTests/testNew()"), "a test never timed is planned too")
        let seconds = nodes.map { $0["expectedSeconds"] as? Double ?? 0 }
        // 23.7 s recorded, and testNew, never timed, counts as its class's median (6 s): 17 s is the best
        // any split of these durations can do.
        #expect(seconds.max()! <= 17.01 && abs(seconds.reduce(0, +) - 29.7) < 0.05, "\(seconds)")
        let node1 = try pipeline("plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests, "--node", "1")
        #expect(node1.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("-only-testing:AppTests/") })
        let byClass = try pipeline("plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests, "--by", "class")
        #expect(byClass.stdout.contains("\"-only-testing:AppTests/ProfileTests\""), "\(byClass.stdout)")
        // A node's own .xctestrun, for test-without-building without arguments.
        let xctestrun = scratch.appendingPathComponent("DD/App.xctestrun")
        try FileManager.default.createDirectory(
            at: xctestrun.deletingLastPathComponent(), withIntermediateDirectories: true)
        let configuration: [String: Any] = [
            "TestConfigurations": [["Name": "Default", "TestTargets": [["BlueprintName": "AppTests"]]]],
            "__xctestrun_metadata__": ["FormatVersion": 2],
        ]
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(
            to: xctestrun)
        let own = try pipeline(
            "plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests, "--xctestrun", xctestrun.path, "--node",
            "2")
        #expect(
            own.stdout == scratch.appendingPathComponent("DD/App-node-2-of-2.xctestrun").path + "\n", "\(own.stderr)")
        let written = try PropertyListSerialization.propertyList(
            from: try Data(contentsOf: URL(fileURLWithPath: String(own.stdout.dropLast()))), format: nil)
        let only =
            (((written as? [String: Any])?["TestConfigurations"] as? [[String: Any]])?.first?["TestTargets"]
            as? [[String: Any]])?.first?["OnlyTestIdentifiers"] as? [String]
        #expect(only?.isEmpty == false && only?.allSatisfy { !$0.hasPrefix("AppTests/") } == true, "\(only ?? [])")
        let failed = try pipeline(
            "plan", "--nodes", "1", "--format", "xcodebuild", "--tests", tests, "--failed", "--node", "1")
        #expect(
            failed.stdout
                == "-only-testing:AppTests/LoginTests/testLogin()\n-only-testing:AppTests/ProfileTests/testBio()\n",
            "the failed and the flaky, as pipeline test --failed takes them: \(failed.stdout)\(failed.stderr)")
    }

    @Test("failed snapshots from the run's artifacts or its exported attachments are paired with their references")
    func snapshots() throws {
        _ = try write("Tests/AppTests/LoginTests.swift", "import XCTest\nfinal class LoginTests: XCTestCase {}\n")
        _ = try write("Tests/AppTests/__Snapshots__/LoginTests/testLogin.1.txt", "Sign in\n")
        let log = try write("test.log", Self.log)
        let artifacts = scratch.appendingPathComponent("artifacts")
        _ = try write("artifacts/LoginTests/testLogin.1.txt", "Log in\n")
        let page = scratch.appendingPathComponent(".build/pipeline/snapshot-review.html")
        let fromArtifacts = try pipeline("import", "xcodebuild-log", log, "--artifacts", artifacts.path, "--json")
        #expect(fromArtifacts.status == 1)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("LoginTests/testLogin.1.txt") && html.contains("Log in") && html.contains("Sign in"))
        try FileManager.default.removeItem(at: page)

        _ = try write("exported/7F3A.txt", "Log in\n")
        _ = try write("exported/9B1C.txt", "Sign in\n")
        _ = try write(
            "exported/manifest.json",
            """
            [{"testIdentifier": "AppTests/LoginTests/testLogin()", "attachments": [
              {"exportedFileName": "9B1C.txt", "suggestedHumanReadableName": "reference_0_9B1C.txt", "isAssociatedWithFailure": true},
              {"exportedFileName": "7F3A.txt", "suggestedHumanReadableName": "failure_0_7F3A.txt", "isAssociatedWithFailure": true}]}]
            """)
        let exported = scratch.appendingPathComponent("exported").path
        let fromAttachments = try pipeline("import", "xcodebuild-log", log, "--attachments", exported)
        #expect(fromAttachments.status == 1)
        let paired = try String(contentsOf: page, encoding: .utf8)
        #expect(
            paired.contains("LoginTests/testLogin.1.txt") && paired.contains("Log in"), "the failure, not the reference"
        )

        _ = try write(
            "exported/manifest.json",
            #"[{"testIdentifier": "AppTests/LoginTests/testLogin()", "attachments": [{"exportedFileName": "../../etc/passwd", "suggestedHumanReadableName": "failure"}]}]"#
        )
        let evil = try pipeline("import", "xcodebuild-log", log, "--attachments", exported)
        #expect(evil.status == 3 && evil.stderr.contains("is not a file name"), "\(evil.stderr)")
    }

    @Test("a new snapshot test in an app: the missing reference's hint is the Xcode form of refs record")
    func newTestHint() throws {
        _ = try write("Tests/AppTests/ProfileTests.swift", "import XCTest\nfinal class ProfileTests: XCTestCase {}\n")
        let log = try write(
            "new.log",
            """
            Test Suite 'AppTests.xctest' started at 2026-11-24 10:00:00.000.
            Test Case '-[AppTests.ProfileTests testAvatar]' started.
            \(scratch.path)/Tests/AppTests/ProfileTests.swift:4: error: -[AppTests.ProfileTests testAvatar] : failed - No reference was found on disk. New snapshot was not recorded because recording is disabled
            Test Case '-[AppTests.ProfileTests testAvatar]' failed (0.100 seconds).

            """)
        let result = try PipelineBinary.run(
            ["import", "xcodebuild-log", log, "--artifacts", scratch.appendingPathComponent("none").path, "--json"],
            in: scratch,
            environment: [
                "CI": "true", "PIPELINE_XCODE_SCHEME": "App",
                "PIPELINE_XCODE_DESTINATION": "platform=iOS Simulator,name=iPhone 16",
            ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                #"pipeline refs record ProfileTests --push --xcode --scheme App --destination \"platform=iOS Simulator,name=iPhone 16\""#
            ), "an app has no Package.swift: \(result.stdout)")
    }

    @Test("bad input: one line naming the file, exit 3 for what is not a result, 7 for none; a plan needs --tests")
    func badInput() throws {
        let cut = try pipeline("import", "xcresult", try write("cut.json", "{\"testNodes\": [{\"nodeType\""))
        #expect(cut.status == 3 && cut.stderr.hasPrefix("error: \(scratch.path)/cut.json: not JSON"), "\(cut.stderr)")
        #expect(cut.stderr.split(separator: "\n").count == 1)
        let none = try pipeline("import", "xcodebuild-log", try write("none.log", "** BUILD SUCCEEDED **\n"))
        #expect(none.status == 7, "\(none.stderr)")
        let empty = try pipeline(
            "plan", "--nodes", "2", "--format", "xcodebuild", "--tests", try write("e.json", "{\"values\": []}"))
        #expect(empty.status == 7, "\(empty.stderr)")
        #expect(try pipeline("plan", "--nodes", "2", "--format", "xcodebuild").status == 2)
        #expect(try pipeline("import", "junit", "x").status == 2)
        // --render-new keeps renderings beside the failed snapshots, and runs on a destination.
        let log = try write("ok.log", "** TEST EXECUTE SUCCEEDED **\n")
        let alone = try pipeline("import", "xcodebuild-log", log, "--render-new", "run.xctestrun")
        #expect(alone.status == 2 && alone.stderr.contains("--render-new"), "\(alone.stderr)")
        let nowhere = try pipeline(
            "import", "xcodebuild-log", log, "--artifacts", "a", "--render-new", "run.xctestrun")
        #expect(nowhere.status == 2 && nowhere.stderr.contains("PIPELINE_XCODE_DESTINATION"), "\(nowhere.stderr)")
    }

    /// A passing console log of `tests` (`-only-testing:` arguments), as a node's xcodebuild writes it.
    static func log(of arguments: [String]) -> String {
        arguments.map { argument in
            let parts = argument.dropFirst("-only-testing:".count).split(separator: "/")
            let name = "-[\(parts[0]).\(parts[1]) \(parts[2].replacingOccurrences(of: "()", with: ""))]"
            return "Test Case '\(name)' started.\nTest Case '\(name)' passed (0.100 seconds).\n"
        }.joined()
    }

    @Test(
        "imports join a shared run: the report over the nodes fails on a test no node reported, and on one reported twice"
    )
    func sharedRun() throws {
        let tests = try write("tests.json", Self.enumeration)
        let queue = ["--queue", "r1", "--timings", "timings.json"]
        let planned = try pipeline(["plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests] + queue)
        #expect(planned.status == 0, "\(planned.stderr)")
        let nodes = try #require(try JSONSerialization.jsonObject(with: Data(planned.stdout.utf8)) as? [[String: Any]])
        let parts = nodes.map { $0["arguments"] as? [String] ?? [] }
        #expect(parts.count == 2 && parts.allSatisfy { !$0.isEmpty })
        // A node planning after the first imported (its durations folded in) gets the same split.
        let first = try write("node-1.log", Self.log(of: parts[0]))
        let imported = try pipeline(["import", "xcodebuild-log", first, "--node", "1/2"] + queue)
        #expect(imported.status == 0 && imported.stderr.contains("Filed node 1/2's results"), "\(imported.stderr)")
        let again = try pipeline(
            ["plan", "--nodes", "2", "--format", "xcodebuild", "--tests", tests, "--node", "2"] + queue)
        #expect(again.stdout.split(separator: "\n").map(String.init) == parts[1], "\(again.stdout)\(again.stderr)")

        let missing = try pipeline(["report", "--json"] + queue)
        #expect(missing.status == 1, "node 2 filed nothing: \(missing.stdout)")
        #expect(missing.stdout.contains("node 2/2 filed no results"), "\(missing.stdout)")
        // Node 2 imports node 1's run: its own tests missing, node 1's twice.
        _ = try pipeline(["import", "xcodebuild-log", first, "--node", "2/2"] + queue)
        let twice = try pipeline(["report"] + queue)
        #expect(twice.status == 1 && twice.stdout.contains("ran in 2 batches"), "\(twice.stdout)")
        _ = try pipeline(
            ["import", "xcodebuild-log", try write("node-2.log", Self.log(of: parts[1])), "--node", "2/2"] + queue)
        let whole = try pipeline(["report", "--junit", "all.xml"] + queue)
        #expect(whole.status == 0, "every planned test once: \(whole.stdout)\(whole.stderr)")
        #expect(
            try String(contentsOf: scratch.appendingPathComponent("all.xml"), encoding: .utf8).contains(#"tests="6""#))

        // Another split under the same run id, and a node without --queue, are refused with one line.
        let other = try pipeline(["plan", "--nodes", "3", "--format", "xcodebuild", "--tests", tests] + queue)
        #expect(other.status == 2 && other.stderr.contains("was planned as a split over 2 nodes"), "\(other.stderr)")
        let alone = try pipeline("import", "xcodebuild-log", first, "--node", "1/2")
        #expect(alone.status == 2 && alone.stderr.contains("--queue"), "\(alone.stderr)")
    }
}
