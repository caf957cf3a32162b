import ChildProcesses
import Foundation
import TestSharding

/// The toolchain's profile tools, `llvm-profdata` and `llvm-cov`, beside the real path of the
/// `swift` that builds the package. The ones first on PATH may be another LLVM's (Debian's), which
/// rejects the toolchain's profiles ("unsupported instrumentation profile format version").
public struct CoverageTools: Sendable {
    public let profdata: URL
    public let cov: URL

    public init(profdata: URL, cov: URL) {
        self.profdata = profdata
        self.cov = cov
    }

    /// Finds the tools beside `swift` on `environment`'s PATH (its symbolic links followed); on
    /// macOS, where `/usr/bin/swift` is a shim, also where `xcrun` says they are.
    public static func locate(environment: [String: String]) throws(CoverageError) -> CoverageTools {
        let swift = executable("swift", in: environment["PATH"])
        var folders: [URL] = []
        if let swift {
            folders.append(swift.resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(swift.deletingLastPathComponent())
        }
        #if os(macOS)
            folders += developerToolFolders(environment: environment)
        #endif
        var unique: [URL] = []
        for folder in folders where !unique.contains(folder) { unique.append(folder) }
        func find(_ tool: String) throws(CoverageError) -> URL {
            for folder in unique {
                let candidate = folder.appendingPathComponent(tool)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw .toolMissing(
                tool: tool, swift: swift?.resolvingSymlinksInPath().path, lookedIn: unique.map(\.path))
        }
        return CoverageTools(profdata: try find("llvm-profdata"), cov: try find("llvm-cov"))
    }

    /// The first executable `name` in the folders of `path`.
    static func executable(_ name: String, in path: String?) -> URL? {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    #if os(macOS)
        /// Where `xcrun` finds the tools, without running it: the active developer folder
        /// (`DEVELOPER_DIR`, else `xcode-select`'s link), its default toolchain, and the Command Line Tools.
        /// Not yet run on a Mac.
        private static func developerToolFolders(environment: [String: String]) -> [URL] {
            var developer: [URL] = []
            if let path = environment["DEVELOPER_DIR"] { developer.append(URL(fileURLWithPath: path)) }
            let link = URL(fileURLWithPath: "/var/db/xcode_select_link")
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path) {
                developer.append(URL(fileURLWithPath: target))
            }
            developer.append(URL(fileURLWithPath: "/Library/Developer/CommandLineTools"))
            return developer.flatMap {
                [
                    $0.appendingPathComponent("Toolchains/XcodeDefault.xctoolchain/usr/bin"),
                    $0.appendingPathComponent("usr/bin"),
                ]
            }
        }
    #endif

    /// Runs a tool and returns its standard output (`log`); its standard error goes to
    /// `<log>.stderr`, so warnings never mix into the output. A failure throws with its last lines.
    func run(_ arguments: [String], log: URL) async throws(CoverageError) -> String {
        let name = arguments.prefix(2).map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " ")
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(
                arguments, environment: ProcessInfo.processInfo.environment, log: log,
                errors: log.appendingPathExtension("stderr"))
        } catch {
            throw .toolFailed(command: name, output: "\(error)")
        }
        guard result.termination == .exited(0) else {
            let stderr = result.errors ?? ""
            throw .toolFailed(command: name, output: stderr.isEmpty ? result.output : stderr)
        }
        return result.output
    }
}
