import GitChanges
import ObjectStorage
import PipelineCore

/// The C libraries pipeline loads, each loaded to ask its version: what `pipeline version` prints,
/// and what an install step checks before a job depends on them.
public struct LibraryVersions: Sendable {
    /// `libgit2 1.5.1`, `libcurl 7.88.1`, or `libcurl not available (why)`, one line each.
    public let lines: [String]
    /// The first library that could not be loaded, as the error a command needing it ends with
    /// (libgit2: the git status; libcurl: the storage status).
    public let missing: (any ExitCoded)?

    public static func read() -> LibraryVersions {
        var lines: [String] = []
        var missing: (any ExitCoded)?
        func line(_ name: String, _ version: () throws -> String) {
            do {
                lines.append("\(name) \(try version())")
            } catch let error as any ExitCoded {
                lines.append("\(name) not available (\(error.description))")
                missing = missing ?? error
            } catch {
                lines.append("\(name) not available (\(error))")
            }
        }
        line("libgit2", LibGit2.version)
        line("libcurl", Curl.version)
        return LibraryVersions(lines: lines, missing: missing)
    }
}
