import ChildProcesses
import Foundation

/// The toolchain's profile tools, `llvm-profdata` and `llvm-cov`: those of the `swift` that builds
/// the package. The ones first on PATH may be another LLVM's (Debian's), which rejects the
/// toolchain's profiles ("unsupported instrumentation profile format version").
public struct CoverageTools: Sendable {
    public let profdata: URL
    public let cov: URL

    public init(profdata: URL, cov: URL) {
        self.profdata = profdata
        self.cov = cov
    }

    /// Finds the tools in the toolchain of the `swift` on `variables`'s PATH (`Toolchain`).
    public static func locate(variables: [String: String]) throws(CoverageError) -> CoverageTools {
        let toolchain = Toolchain(variables: variables)
        func find(_ tool: String) throws(CoverageError) -> URL {
            guard let found = toolchain.tool(tool) else {
                throw .toolMissing(
                    tool: tool, swift: toolchain.swift?.resolvingSymlinksInPath().path,
                    lookedIn: toolchain.folders.map(\.path))
            }
            return found
        }
        return CoverageTools(profdata: try find("llvm-profdata"), cov: try find("llvm-cov"))
    }

    /// Runs a tool and returns its standard output (`log`); its standard error goes to
    /// `<log>.stderr`, so warnings never mix into the output. A failure throws with its last lines.
    func run(_ arguments: [String], log: URL) async throws(CoverageError) -> String {
        let name = arguments.prefix(2).map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " ")
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(
                arguments, variables: ProcessInfo.processInfo.environment, log: log,
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
