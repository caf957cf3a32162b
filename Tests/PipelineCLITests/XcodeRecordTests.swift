import Foundation
import TestSupport
import Testing

/// `refs record --xcode` and the render environment's Apple fields, in a copy of the example app
/// (Examples/XcodeApp) with the stub `xcodebuild`/`xcrun` (Tests/XcodeStub) on the PATH: what
/// pipeline asks of xcodebuild is read back from the stub's log of its invocations.
@Suite("Xcode teams: refs record --xcode, and render environments named by the simulator")
struct XcodeRecordTests {
    static let destination = "platform=iOS Simulator,name=iPhone 16,OS=18.2"
    let app: URL
    let log: URL
    let environment: [String: String]

    init() throws {
        let scratch = try Scratch.folder("xcode-record")
        app = scratch.appendingPathComponent("app")
        log = scratch.appendingPathComponent("stub.log")
        try FileManager.default.copyItem(at: Shell.repository.appendingPathComponent("Examples/XcodeApp"), to: app)
        try Scratch.write(".build/\nDerivedData/\n", to: app.appendingPathComponent(".gitignore"))
        try Scratch.git(app, "init", "-q")
        try Scratch.git(app, "add", "-A")
        try Scratch.git(app, "commit", "-q", "-m", "app")
        let stub = Shell.repository.appendingPathComponent("Tests/XcodeStub").path
        environment = [
            "PATH": stub + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""), "XCODE_STUB_LOG": log.path,
            "CI": "false",
        ]
    }

    func pipeline(_ arguments: [String], variables: [String: String] = [:]) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: app, environment: environment.merging(variables) { $1 })
    }

    /// xcodebuild's invocations (not xcrun's) since the log was last read, their arguments and the test process's switches.
    func invocations() throws -> [(arguments: [String], switches: [String: String])] {
        defer { try? FileManager.default.removeItem(at: log) }
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            guard entry["tool"] as? String == "xcodebuild" else { return nil }
            return (entry["arguments"] as? [String] ?? [], entry["environment"] as? [String: String] ?? [:])
        }
    }

    var references: URL { app.appendingPathComponent("Tests/BadgeUITests/__Snapshots__/BadgeViewTests") }

    @Test("the named class's tests alone, recording forced, built once: record mode's failures are its recordings")
    func record() throws {
        let record = ["refs", "record", "BadgeViewTests", "--xcode", "--scheme", "BadgeUI", "--destination"]
        let first = try pipeline(record + [Self.destination])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("BadgeViewTests: 2 new, 0 changed"), "\(first.stdout)")
        let calls = try invocations()
        #expect(
            calls.map { $0.arguments.first ?? "" } == [
                "build-for-testing", "test-without-building", "test-without-building",
            ])
        #expect(
            calls[0].arguments.starts(with: [
                "build-for-testing", "-scheme", "BadgeUI", "-destination", Self.destination,
            ]))
        #expect(calls[1].arguments.contains("-enumerate-tests"))
        let only = Set(calls[2].arguments.filter { $0.hasPrefix("-only-testing:") })
        #expect(
            only == [
                "-only-testing:BadgeUITests/BadgeViewTests/testInbox()",
                "-only-testing:BadgeUITests/BadgeViewTests/testDrafts()",
            ],
            "BadgeCountTests is not run: \(only)")
        #expect(calls[2].switches["TEST_RUNNER_SNAPSHOT_TESTING_RECORD"] == "all")
        #expect(FileManager.default.fileExists(atPath: references.appendingPathComponent("testInbox.1.png").path))

        // The view changes: both references change; the products built before are given as the .xctestrun.
        let view = app.appendingPathComponent("Sources/BadgeUI/BadgeView.swift")
        try Data(
            try String(contentsOf: view, encoding: .utf8).replacingOccurrences(
                of: "RGB(32, 96, 208)", with: "RGB(200, 40, 40)"
            ).utf8
        ).write(to: view)
        let changed = try pipeline(record + [Self.destination])
        #expect(changed.stdout.contains("BadgeViewTests: 0 new, 2 changed"), "\(changed.stdout)\(changed.stderr)")
        let built = app.appendingPathComponent(
            ".build/pipeline/xcode/DerivedData/Build/Products/BadgeUI_BadgeUI_iphonesimulator18.2-arm64.xctestrun")
        _ = try invocations()
        let again = try pipeline(
            ["refs", "record", "--all", "--xcode", "--xctestrun", built.path, "--destination", Self.destination])
        #expect(
            again.stdout.contains("BadgeViewTests: 0 new, 0 changed, 2 unchanged"), "\(again.stdout)\(again.stderr)")
        #expect(try invocations().allSatisfy { $0.arguments.first != "build-for-testing" }, "nothing built")
    }

    @Test(
        "a test failing for another reason puts every reference back, exit 1; bad flags and xcodebuild's failure are one line"
    )
    func failures() throws {
        let record = [
            "refs", "record", "BadgeViewTests", "--xcode", "--scheme", "BadgeUI", "--destination", Self.destination,
        ]
        #expect(try pipeline(record).status == 0)
        let before = try Data(contentsOf: references.appendingPathComponent("testInbox.1.png"))
        let tests = app.appendingPathComponent("Tests/BadgeUITests/BadgeViewTests.swift")
        let source = try String(contentsOf: tests, encoding: .utf8)
        try Data(
            source.replacingOccurrences(
                of: "assertSnapshot(of: BadgeView(title: \"Inbox\"), as: .image)",
                with:
                    "assertSnapshot(of: BadgeView(title: \"Inbox\"), as: .image)\n            XCTFail(\"the badge has no title\")"
            ).utf8
        ).write(to: tests)
        let view = app.appendingPathComponent("Sources/BadgeUI/BadgeView.swift")
        try Data(
            try String(contentsOf: view, encoding: .utf8).replacingOccurrences(
                of: "RGB(32, 96, 208)", with: "RGB(1, 2, 3)"
            ).utf8
        ).write(to: view)
        let failed = try pipeline(record)
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(
            failed.stderr.contains("testInbox") && failed.stderr.contains("the badge has no title"), "\(failed.stderr)")
        #expect(try Data(contentsOf: references.appendingPathComponent("testInbox.1.png")) == before, "put back")

        let noDestination = try pipeline(["refs", "record", "--all", "--xcode", "--scheme", "BadgeUI"])
        #expect(noDestination.status == 2 && noDestination.stderr.contains("--destination"), "\(noDestination.stderr)")
        let both = try pipeline(["refs", "record", "--all", "--xcode", "--destination", Self.destination])
        #expect(both.status == 2 && both.stderr.contains("--scheme"), "\(both.stderr)")
        let missing = try pipeline(
            ["refs", "record", "--all", "--xcode", "--xctestrun", "none.xctestrun", "--destination", Self.destination])
        #expect(missing.status == 6, "\(missing.stderr)")
        #expect(
            missing.stderr.contains("xcodebuild test-without-building ended with exit code 64")
                && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    @Test("references: environment: names the simulator's device, its OS and Xcode's version, from the destination")
    func environmentFields() throws {
        try Scratch.write(
            """
            name: app
            description: The app's references, one set per simulator and Xcode.
            references:
              feature: store/feature
              develop: store/develop
              environment: "{device}-{device-os}-xcode{xcode}"
            stages:
              - pull:
                  from: develop

            """, to: app.appendingPathComponent("pipelines/app.yml"))
        let variables = ["PIPELINE_XCODE_DESTINATION": Self.destination]
        let recorded = try pipeline(
            ["refs", "record", "--all", "--xcode", "--scheme", "BadgeUI", "--push"], variables: variables)
        #expect(recorded.status == 0, "\(recorded.stdout)\(recorded.stderr)")
        let set = app.appendingPathComponent("store/feature/iphone-16-18.2-xcode16.2/BadgeViewTests")
        let pushed = (try? FileManager.default.contentsOfDirectory(atPath: set.path)) ?? []
        #expect(
            pushed.filter { $0.hasSuffix(".png") }.sorted() == ["testDrafts.1.png", "testInbox.1.png"], "\(pushed)")
    }
}
