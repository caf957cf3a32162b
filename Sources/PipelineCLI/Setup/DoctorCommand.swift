import ArgumentParser
import Foundation
import ProjectSetup

/// `pipeline doctor`: what will surprise this repository's team before its first run, each with
/// its file, line and fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Find what will surprise a team before its first run, each with its file, line and fix.",
        discussion: """
            Reads the repository: record overrides in the tests (record: arguments, var record =, \
            isRecording), a swift-snapshot-testing older than 1.17 (which ignores SNAPSHOT_TESTING_RECORD: \
            the migration's steps), a device name the tests assert that CI's destination contradicts, \
            references both in git and in a store, a .gitignore without .build/ (or a folder store inside \
            the repository). pipeline init runs it. Exits 0 either way; --json for the findings as data.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "The findings as JSON (docs/json.md: pipeline doctor --json).")
    var json = false

    func run() async throws {
        let findings = ProjectDoctor.examine(global.workingDirectory, version: Version.number)
        if json { return try Console.json(findings) }
        guard !findings.isEmpty else {
            Console.out(
                "Nothing found: no record override, swift-snapshot-testing 1.17 or later (or none pinned), "
                    + ".gitignore complete")
            return
        }
        for finding in findings { Console.out(finding.rendered) }
        Console.out("\(findings.count) finding(s): each fix is an edit of the file named")
    }
}
