import ArgumentParser
import Foundation
import References

struct PipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "A daemon-less CI orchestrator for Swift packages with snapshot reference images.",
        discussion: """
            Pipelines are described in pipelines/<name>.yml ('pipeline init' writes them). Start with \
            'pipeline list' to see them and 'pipeline run NAME --dry-run' to see what one would do.

            Exit codes: 0 success, 1 tests failed, 2 usage error, 3 invalid or missing spec, \
            4 git error, 5 storage error, 6 build failed, 7 no tests selected, \
            8 promotion refused (develop changed after the branch was cut; the merged commit's CI renderings \
            never accepted; a candidate refused), 9 coverage missing or below the \
            minimum, 10 develop would be stale (a test the merge touched did not get its references), \
            70 internal error, \
            130 interrupted.
            """,
        version: "pipeline \(Version.number)",
        subcommands: [
            InitCommand.self, ListCommand.self, ValidateCommand.self, RunCommand.self, ChangesCommand.self,
            TestCommand.self,
            PlanCommand.self, ImportCommand.self, ReportCommand.self, VerdictCommand.self, CoverageCommand.self,
            TimingsCommand.self, QuarantineCommand.self, HistoryCommand.self, RefsCommand.self, DoctorCommand.self,
            VersionCommand.self,
        ]
    )
}

/// `pipeline version`: the version and the C libraries it loads, or why one cannot be. `--version` prints the first line
/// only, without loading them, so it starts as fast as the binary can.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Show the version and the libgit2 and libcurl in use.")

    /// Exits with the git status (4) when libgit2 cannot be loaded, the storage status (5) when libcurl
    /// cannot, so an install step fails naming the library.
    func run() throws {
        let libraries = LibraryVersions.read()
        Console.out((["pipeline \(Version.number)"] + libraries.lines).joined(separator: "\n"))
        if let missing = libraries.missing { throw missing }
    }
}

enum Version {
    static let number = "0.1.0"
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: [.customShort("C"), .customLong("directory")],
        help: ArgumentHelp("Run as if started in this folder.", valueName: "path"))
    var directory: String?

    /// The folder to work in, absolute.
    var workingDirectory: URL {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        guard let directory else { return current }
        return URL(fileURLWithPath: directory, isDirectory: true, relativeTo: current).standardizedFileURL
    }

    /// A path from the command line, absolute, relative to the working folder.
    func resolve(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: workingDirectory).standardizedFileURL
    }

    var availableCores: Int {
        ProcessInfo.processInfo.activeProcessorCount
    }
}
