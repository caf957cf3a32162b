import Foundation
import ObjectStorage
import TestSupport
import Testing
import Yams

/// The iOS team this tool was designed for moves over: a stand-in of their repository (an app
/// folder whose tests keep no references in git, their helper's record flag, an older
/// swift-snapshot-testing, their bitrise.yml) and a folder store laid out like their S3, with
/// their references in it already.
@Suite("moving over: a store the team's own scripts filled, adopted as it is")
struct AdoptionTests {
    let root: URL
    var store: URL { root.appendingPathComponent("store") }

    init() throws {
        root = try Scratch.folder("adoption")
        let test = """
            import SnapshotTesting
            import XCTest

            final class ProfileViewTests: XCTestCase {
                var record = false

                func testProfile() {
                    assertSnapshots(matching: ProfileView(), as: [.image], record: record)
                }
            }
            """
        let files = [
            "App/AppTests/ProfileViewTests.swift": test,
            "App/AppTests/SettingsViewTests.swift": test.replacingOccurrences(of: "Profile", with: "Settings"),
            "App/AppTests/NewCardTests.swift": test.replacingOccurrences(of: "Profile", with: "NewCard"),
            "App/AppTests/ParserTests.swift": "import XCTest\nfinal class ParserTests: XCTestCase {}\n",
            // Their helper: a record parameter, and the device their references were rendered on.
            "App/AppTests/SnapshotHelper.swift": """
            import SnapshotTesting
            import UIKit
            import XCTest

            func assertDeviceSnapshot(_ view: UIView, record: Bool = false, line: UInt = #line) {
                XCTAssertEqual(UIDevice.current.name, "iPhone 15", "references are rendered on an iPhone 15")
                assertSnapshot(matching: view, as: .image(precision: 0.985), record: record, line: line)
            }
            """,
            // Their Bitrise workflow: unit tests on pull requests and the archive after a merge, with
            // their own SPM cache steps.
            "bitrise.yml": Self.theirBitrise,
            "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved": """
            {
              "pins" : [
                {
                  "identity" : "swift-snapshot-testing",
                  "kind" : "remoteSourceControl",
                  "location" : "https://github.com/pointfreeco/swift-snapshot-testing",
                  "state" : {
                    "revision" : "26ed3a2b4a2df47917ca9b790a57f91285b923fb",
                    "version" : "1.12.0"
                  }
                }
              ],
              "version" : 2
            }
            """,
            // Their references, as setup_snapshot.sh's `aws s3 cp --recursive` lays them out.
            "store/develop/__Snapshots__/ProfileViewTests/testProfile_iPhone15.1.png": "profile 15",
            "store/develop/__Snapshots__/ProfileViewTests/testProfile_iPadPro.1.png": "profile pad",
            "store/develop/__Snapshots__/SettingsViewTests/testSettings_iPhone15.1.png": "settings",
            "store/develop/__Snapshots__/OldScreenTests/testOld_iPhone15.1.png": "gone",
            "store/feature/__Snapshots__/SettingsViewTests/testSettings_iPhone15.1.png": "settings v2",
        ]
        for (path, text) in files { try Scratch.write(text, to: root.appendingPathComponent(path)) }
        try Git.run(["init", "-q", "-b", "develop"], in: root)
        try Git.run(["add", "App", "App.xcodeproj", "bitrise.yml"], in: root)
        try Git.run(["commit", "-q", "-m", "app"], in: root)
    }

    static let theirBitrise = """
        format_version: '11'
        default_step_lib_source: https://github.com/bitrise-io/bitrise-steplib.git
        project_type: ios
        trigger_map:
        - push_branch: develop
          workflow: deploy
        - pull_request_target_branch: "*"
          workflow: primary
        workflows:
          primary:
            steps:
            - git-clone@8: {}
            - restore-spm-cache@2: {}
            - script@1:
                inputs:
                - content: bash scripts/setup_snapshot.sh && xcodebuild test -scheme App
            - save-spm-cache@1: {}
          deploy:
            steps:
            - git-clone@8: {}
            - restore-spm-cache@2: {}
            - script@1:
                inputs:
                - content: bash scripts/copy_snapshot.sh && xcodebuild archive -scheme App
        meta:
          bitrise.io:
            stack: osx-xcode-16.2.x

        """

    /// Every file below `folder` with its bytes: what a command must leave as it was.
    func contents(of folder: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard !url.hasDirectoryPath, let data = FileManager.default.contents(atPath: url.path) else { continue }
            found[String(url.path.dropFirst(folder.path.count))] = data
        }
        return found
    }

    @Test(
        "init --existing-store reads the store through the layout named, lists what it finds per test, writes no reference, and names no record or promotion; a layout that reads nothing writes nothing"
    )
    func existingStore() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let before = try contents(of: store)
        let layout = ["--store", "store", "--feature", "feature/__Snapshots__", "--develop", "develop/__Snapshots__"]

        // Their layout mistyped (references straight below develop/): nothing is written.
        let wrong = try PipelineBinary.run(
            ["init", "--ci", "bitrise", "--store", "store", "--existing-store"], in: root)
        #expect(wrong.status == 5, "a storage error: \(wrong.stderr)")
        #expect(
            wrong.stderr.contains("store/develop keeps its references one folder deeper, in __Snapshots__/"),
            "\(wrong.stderr)")
        #expect(
            wrong.stderr.contains("--develop develop/__Snapshots__") && wrong.stderr.contains("nothing was written"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("pipelines").path))
        #expect(
            try String(contentsOf: root.appendingPathComponent("bitrise.yml"), encoding: .utf8) == Self.theirBitrise)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("bitrise.yml.pipeline.patch").path))

        let adopted = try PipelineBinary.run(["init", "--ci", "bitrise"] + layout + ["--existing-store"], in: root)
        #expect(adopted.status == 0, "\(adopted.stderr)")
        let out = adopted.stdout
        #expect(
            out.contains(
                "store/develop/__Snapshots__: 3 references of 2 tests in this checkout; feature holds 1 objects"),
            "\(out)")
        #expect(out.contains("ProfileViewTests: 2 (") && out.contains("SettingsViewTests: 1 ("), "\(out)")
        #expect(
            out.contains("snapshot tests with no references in develop (they fail until recorded):\n    NewCardTests"),
            "NewCardTests asserts snapshots and has none; ParserTests asserts none: \(out)")
        #expect(!out.contains("ParserTests"), "\(out)")
        #expect(
            out.contains("whose test is not in this checkout (another layout? see --develop):\n    OldScreenTests: 1"))
        #expect(out.contains("pipeline refs pull"), "\(out)")
        #expect(!out.contains("refs record --all") && !out.contains("promote --all --force"), "\(out)")
        #expect(try contents(of: store) == before, "the store is as their scripts left it")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("pipelines/post-merge.yml").path))
    }

    @Test(
        "doctor names the record overrides, the library older than 1.17 (a migration), the device the destination contradicts; init runs it and ignores the folder store"
    )
    func doctor() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let initialized = try PipelineBinary.run(
            [
                "init", "--ci", "bitrise", "--store", "store", "--feature", "feature/__Snapshots__", "--develop",
                "develop/__Snapshots__", "--existing-store", "--xcode", "--scheme", "App",
            ], in: root)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        #expect(initialized.stdout.contains("updated .gitignore: store/ ignored"), "\(initialized.stdout)")
        #expect(initialized.stdout.contains("Before the first run (pipeline doctor):"), "\(initialized.stdout)")
        #expect(
            initialized.stdout.contains("the test asserts the device \"iPhone 15\", and CI's destination is iPhone 16"),
            "init's own destination, before its bitrise.yml patch is applied: \(initialized.stdout)")
        let applied = try Shell.run("git", ["apply", "bitrise.yml.pipeline.patch"], in: root)
        #expect(applied.status == 0, "\(applied.stderr)")
        try FileManager.default.removeItem(at: root.appendingPathComponent("bitrise.yml.pipeline.patch"))
        #expect(try String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8) == "store/\n")

        let doctor = try PipelineBinary.run(["doctor"], in: root)
        #expect(doctor.status == 0, "\(doctor.stderr)")
        let out = doctor.stdout
        // `var record = false` and `record: record` in each test file; the helper's parameter and its pass-through.
        #expect(
            out.contains(
                "App/AppTests/ProfileViewTests.swift:5: `record` fixed in the test's code: it overrides the "
                    + "record mode pipeline sets (SNAPSHOT_TESTING_RECORD) in every run"), "\(out)")
        #expect(
            out.contains(
                "App/AppTests/ProfileViewTests.swift:8: record: record passed to a snapshot assertion"),
            "\(out)")
        #expect(out.contains("fix: delete ', record: record' from this call"), "\(out)")
        #expect(out.contains("App/AppTests/SnapshotHelper.swift:5: the helper takes a record parameter"), "\(out)")
        #expect(
            out.contains(
                "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved:9: swift-snapshot-testing "
                    + "1.12.0 ignores SNAPSHOT_TESTING_RECORD"), "\(out)")
        #expect(out.contains("rename assertSnapshot(matching:) and assertSnapshots(matching:) to (of:) (4 test files"))
        #expect(
            out.contains(
                "App/AppTests/SnapshotHelper.swift:6: the test asserts the device \"iPhone 15\", and CI's "
                    + "destination is iPhone 16"), "\(out)")
        #expect(out.contains("--destination 'platform=iOS Simulator,name=iPhone 15'"), "\(out)")
        #expect(!out.contains(".gitignore:"), "init completed it: \(out)")
        #expect(!out.contains("ParserTests"), "\(out)")

        let json = try PipelineBinary.run(["doctor", "--json"], in: root)
        let findings = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(
            Set(findings.compactMap { $0["kind"] as? String }) == ["recordOverride", "libraryVersion", "deviceName"])
        #expect(findings.allSatisfy { $0["file"] is String && $0["problem"] is String && $0["fix"] is String })

        // Fixed: the overrides gone, 1.17 resolved, the destination the references' device.
        for file in [
            "App/AppTests/ProfileViewTests.swift", "App/AppTests/SettingsViewTests.swift",
            "App/AppTests/NewCardTests.swift", "App/AppTests/SnapshotHelper.swift",
        ] {
            let url = root.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
                .replacingOccurrences(of: ", record: record", with: "")
                .replacingOccurrences(of: "    var record = false\n", with: "")
                .replacingOccurrences(of: ", record: Bool = false", with: "")
                .replacingOccurrences(of: "\"iPhone 15\"", with: "\"iPhone 16\"")
                .replacingOccurrences(of: "matching:", with: "of:")
            try Data(text.utf8).write(to: url)
        }
        let resolved = root.appendingPathComponent(
            "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved")
        try Data(
            try String(contentsOf: resolved, encoding: .utf8).replacingOccurrences(of: "1.12.0", with: "1.18.1").utf8
        )
        .write(to: resolved)
        let clean = try PipelineBinary.run(["doctor"], in: root)
        #expect(clean.stdout.hasPrefix("Nothing found"), "\(clean.stdout)")
    }

    /// Their four scripts, as the team wrote them (aws s3 cp of whole prefixes), on the bucket's
    /// `ios/` prefix.
    static let scripts = [
        "scripts/setup_snapshot.sh":
            "aws s3 cp --recursive --only-show-errors \"s3://$BUCKET/ios/develop/\" App/AppTests/\n",
        "scripts/upload_snapshot.sh":
            "aws s3 cp --recursive --only-show-errors App/AppTests/__Snapshots__ \"s3://$BUCKET/ios/feature/__Snapshots__\"\n",
        "scripts/copy_snapshot.sh":
            "aws s3 cp --recursive --only-show-errors \"s3://$BUCKET/ios/feature/\" \"s3://$BUCKET/ios/develop/\"\n",
        "scripts/clean_snapshot.sh": "rm -rf App/AppTests/__Snapshots__\n",
    ]

    @Test(
        "side by side on one S3 store: their scripts and pipeline run a full loop each, and the scripts' copies of develop/ and feature/ hold references only",
        .enabled(if: RefsBackend.s3Endpoint != nil && Shell.which("aws") != nil))
    func sideBySide() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let endpoint = try #require(RefsBackend.s3Endpoint)
        let bucket = "ios-\(UUID().uuidString.prefix(18).lowercased())"
        try await S3Store(
            S3Settings(
                endpoint: URL(string: endpoint)!, bucket: bucket,
                credentials: AWSCredentials(accessKey: "test:tester", secret: "testing"))
        ).createBucket()
        let variables = RefsBackend.environment.merging([
            "CI": "false", "BUCKET": bucket, "AWS_ENDPOINT_URL": endpoint, "AWS_DEFAULT_REGION": "us-east-1",
        ]) { $1 }
        for (path, text) in Self.scripts { try Scratch.write(text, to: root.appendingPathComponent(path)) }
        func script(_ name: String) throws {
            // The aws CLI refuses an empty AWS_PROFILE, which pipeline's runs here are given.
            let result = try Shell.run(
                "bash", ["scripts/\(name).sh"], in: root, environment: variables.filter { $0.key != "AWS_PROFILE" })
            #expect(result.status == 0, "\(name): \(result.stderr)")
        }
        func pipeline(_ arguments: String...) throws -> PipelineBinary.Result {
            let result = try PipelineBinary.run(arguments, in: root, environment: variables)
            #expect(
                result.status == 0, "pipeline \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)")
            return result
        }
        let references = root.appendingPathComponent("App/AppTests/__Snapshots__")
        func write(_ test: String, _ file: String, _ text: String) throws {
            try Scratch.write(text, to: references.appendingPathComponent("\(test)/\(file)"))
        }
        func read(_ test: String, _ file: String) -> String? {
            try? String(contentsOf: references.appendingPathComponent("\(test)/\(file)"), encoding: .utf8)
        }
        try Scratch.write("__Snapshots__/\n", to: root.appendingPathComponent(".gitignore"))
        try Git.run(["add", "-A"], in: root)
        try Git.run(["commit", "-q", "-m", "their scripts"], in: root)

        // Their store as it is: references uploaded by their own script, promoted by it.
        try write("ProfileViewTests", "testProfile_iPhone15.1.png", "profile v1")
        try write("SettingsViewTests", "testSettings_iPhone15.1.png", "settings v1")
        try script("upload_snapshot")
        try script("copy_snapshot")
        try script("clean_snapshot")

        // pipeline adopts it and runs a loop: pull, a branch's new reference pushed, merged, promoted.
        let store = "s3://\(bucket)/ios"
        let adopted = try pipeline(
            "init", "--ci", "bitrise", "--store", store, "--feature", "feature/__Snapshots__", "--develop",
            "develop/__Snapshots__", "--endpoint", endpoint, "--existing-store", "--xcode", "--scheme", "App",
            "--nodes", "2")
        #expect(adopted.stdout.contains("2 references of 2 tests in this checkout"), "\(adopted.stdout)")
        // Their bitrise.yml: its triggers take develop's events, so the join is a patch; applied, their
        // workflows and cache steps stay, their archive runs beside pipeline's post-merge (not after
        // it), report and promote run on a Linux stack, and each job reads its trust's credential.
        #expect(adopted.stdout.contains("wrote bitrise.yml.pipeline.patch"), "\(adopted.stdout)")
        #expect(
            try Shell.run("git", ["apply", "bitrise.yml.pipeline.patch"], in: root).status == 0
                && (try? FileManager.default.removeItem(at: root.appendingPathComponent("bitrise.yml.pipeline.patch")))
                    != nil
        )
        let bitrise = try String(contentsOf: root.appendingPathComponent("bitrise.yml"), encoding: .utf8)
        #expect(bitrise.hasPrefix(Self.theirBitrise.components(separatedBy: "trigger_map:")[0]))
        let parsed = try #require(try Yams.load(yaml: bitrise) as? [String: Any])
        let workflows = try #require(parsed["workflows"] as? [String: [String: Any]])
        func steps(_ name: String) -> [String] {
            ((workflows[name]?["steps"] as? [[String: Any]]) ?? []).compactMap(\.keys.first)
        }
        #expect(steps("primary").contains("restore-spm-cache@2") && steps("primary").contains("save-spm-cache@1"))
        #expect(steps("deploy").contains("restore-spm-cache@2"))
        #expect(steps("pipeline-build").contains("restore-cache@2") && steps("pipeline-build").contains("save-cache@1"))
        for name in ["pipeline-report", "pipeline-promote", "pipeline-accept"] {
            let meta = (workflows[name]?["meta"] as? [String: Any])?["bitrise.io"] as? [String: Any]
            #expect((meta?["stack"] as? String)?.hasPrefix("ubuntu-") == true, "\(name): \(meta ?? [:])")
        }
        #expect((workflows["pipeline-build"]?["meta"]) == nil, "the build runs on the app's Xcode stack")
        let flows = try #require(parsed["pipelines"] as? [String: [String: Any]])
        let postMerge = try #require(flows["pipeline-post-merge"]?["workflows"] as? [String: Any])
        #expect((postMerge["deploy"] as? [String: Any])?.isEmpty == true, "deploy waits on nothing: \(postMerge)")
        #expect(
            bitrise.contains("PIPELINE_PR_AWS_ACCESS_KEY_ID") && bitrise.contains("PIPELINE_DEVELOP_AWS_ACCESS_KEY_ID"))
        #expect(!bitrise.contains("--unshallow"), "no job fetches the whole history up front")
        try Git.run(["add", "-A"], in: root)
        try Git.run(["commit", "-q", "-m", "pipeline init"], in: root)
        _ = try pipeline("refs", "pull", "--pipeline", "post-merge")
        #expect(read("ProfileViewTests", "testProfile_iPhone15.1.png") == "profile v1")
        try Git.run(["checkout", "-q", "-b", "profile"], in: root)
        try write("ProfileViewTests", "testProfile_iPhone15.1.png", "profile v2")
        try Scratch.write("// v2\n", to: root.appendingPathComponent("App/AppTests/ProfileViewTests.swift"))
        try Git.run(["commit", "-q", "-am", "profile v2"], in: root)
        _ = try pipeline("refs", "push", "ProfileViewTests", "--pipeline", "post-merge")
        try Git.run(["checkout", "-q", "develop"], in: root)
        try Git.run(["merge", "-q", "--no-ff", "-m", "merge profile", "profile"], in: root)
        _ = try pipeline("refs", "promote", "--pipeline", "post-merge")

        // The tool's records are in the store, and outside both roles' folders.
        let listing = try Shell.run(
            "aws", ["s3", "ls", "--recursive", "s3://\(bucket)/ios/"], in: root,
            environment: variables.filter { $0.key != "AWS_PROFILE" })
        let keys = listing.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(keys.contains { $0.hasPrefix("ios/.pipeline/") }, "\(keys)")
        #expect(
            keys.filter { $0.hasPrefix("ios/develop/") || $0.hasPrefix("ios/feature/") }.allSatisfy {
                $0.contains("/__Snapshots__/") && $0.hasSuffix(".png")
            }, "references only below their prefixes: \(keys)")

        // Their loop on the same store (upload, copy feature/ to develop/ whole), then their setup
        // script in a checkout: references only, pipeline's promotion among them.
        try script("clean_snapshot")
        try write("SettingsViewTests", "testSettings_iPhone15.1.png", "settings v2")
        try script("upload_snapshot")
        try script("copy_snapshot")
        try script("clean_snapshot")
        try script("setup_snapshot")
        let copied = FileManager.default.subpaths(atPath: root.appendingPathComponent("App/AppTests").path) ?? []
        #expect(
            copied.filter { $0.hasPrefix("__Snapshots__/") && $0.hasSuffix(".png") }.sorted() == [
                "__Snapshots__/ProfileViewTests/testProfile_iPhone15.1.png",
                "__Snapshots__/SettingsViewTests/testSettings_iPhone15.1.png",
            ])
        #expect(!copied.contains { $0.contains(".pipeline") || $0.contains("pipeline-") }, "\(copied)")
        #expect(read("ProfileViewTests", "testProfile_iPhone15.1.png") == "profile v2")
        #expect(read("SettingsViewTests", "testSettings_iPhone15.1.png") == "settings v2")

        // pipeline's pull reads what their scripts promoted.
        try script("clean_snapshot")
        _ = try pipeline("refs", "pull", "--pipeline", "post-merge")
        #expect(read("SettingsViewTests", "testSettings_iPhone15.1.png") == "settings v2")
        #expect(read("ProfileViewTests", "testProfile_iPhone15.1.png") == "profile v2")
    }
}
