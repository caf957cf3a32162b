import Foundation
import Testing

@testable import SnapshotConventions

@Suite("the record command a message gives: SwiftPM's, or in an app xcodebuild's")
struct RecordCommandTests {
    @Test(
        "a package gets SwiftPM's form; an app (a project, or a scheme named) xcodebuild's, placeholders where unnamed")
    func forms() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func command(_ variables: [String: String] = [:]) -> String {
            RecordCommand.text(testFile: "ProfileViewTests", package: folder, variables: variables)
        }
        // Neither a manifest nor a project here (a package in a sub-folder): SwiftPM's.
        #expect(command() == "pipeline refs record ProfileViewTests --push")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("App.xcodeproj"), withIntermediateDirectories: true)
        #expect(
            command()
                == "pipeline refs record ProfileViewTests --push --xcode --scheme SCHEME --destination DESTINATION")
        #expect(
            command([
                "PIPELINE_XCODE_SCHEME": "App", "PIPELINE_XCODE_DESTINATION": "platform=iOS Simulator,name=iPhone 15",
            ])
                == #"pipeline refs record ProfileViewTests --push --xcode --scheme App --destination "platform=iOS Simulator,name=iPhone 15""#
        )
        try Data().write(to: folder.appendingPathComponent("Package.swift"))
        #expect(command(["PIPELINE_XCODE_SCHEME": "App"]) == "pipeline refs record ProfileViewTests --push")
    }
}
