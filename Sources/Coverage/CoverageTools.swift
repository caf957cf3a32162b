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
            for tool in ["llvm-profdata", "llvm-cov"] {
                if let found = try? xcrunFind(tool) { folders.append(found.deletingLastPathComponent()) }
            }
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
        private static func xcrunFind(_ tool: String) throws -> URL? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/xcrun")
            process.arguments = ["--find", tool]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
            return process.terminationStatus == 0 && !path.isEmpty ? URL(fileURLWithPath: path) : nil
        }
    #endif

    /// Runs a tool and returns its standard output (`log`); its standard error goes to
    /// `<log>.stderr`, so warnings never mix into the output. A failure throws with its last lines.
    func run(_ arguments: [String], log: URL) async throws(CoverageError) -> String {
        let name = arguments.prefix(2).map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " ")
        let errors = log.appendingPathExtension("stderr")
        try? FileManager.default.removeItem(at: errors)
        let command: Command
        do {
            command = try await Command.run(
                ["/bin/sh", "-c", "exec \"$@\" 2>\"$0\"", errors.path] + arguments,
                environment: ProcessInfo.processInfo.environment, log: log)
        } catch {
            throw .toolFailed(command: name, output: "\(error)")
        }
        guard command.termination == .exited(0) else {
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw .toolFailed(command: name, output: stderr.isEmpty ? command.output : stderr)
        }
        return command.output
    }
}
