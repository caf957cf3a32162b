import Foundation
import TestSupport
import Testing

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
            "App/AppTests/Profile/ProfileViewTests.swift": test,
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
        try Git.run(["add", "App", "App.xcodeproj"], in: root)
        try Git.run(["commit", "-q", "-m", "app"], in: root)
    }

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
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("bitrise.yml").path))

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
        #expect(try String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8) == "store/\n")

        let doctor = try PipelineBinary.run(["doctor"], in: root)
        #expect(doctor.status == 0, "\(doctor.stderr)")
        let out = doctor.stdout
        // `var record = false` and `record: record` in each test file; the helper's parameter and its pass-through.
        #expect(
            out.contains(
                "App/AppTests/Profile/ProfileViewTests.swift:5: `record` fixed in the test's code: it overrides the "
                    + "record mode pipeline sets (SNAPSHOT_TESTING_RECORD) in every run"), "\(out)")
        #expect(
            out.contains(
                "App/AppTests/Profile/ProfileViewTests.swift:8: record: record passed to a snapshot assertion"),
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
            "App/AppTests/Profile/ProfileViewTests.swift", "App/AppTests/SettingsViewTests.swift",
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
}
