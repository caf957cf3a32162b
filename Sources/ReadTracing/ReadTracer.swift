import ChildProcesses
import Foundation
import PipelineCore

/// Traces the files a test process opens for reading: a small shared library (`TracerSource`)
/// that `LD_PRELOAD` puts into the process, writing what it opens under the traced roots to one
/// trace file per process (`ReadTraces` reads them). Built once per source and compiler with the
/// toolchain's `clang` (which every machine that runs `swift test` has) and kept in the user's
/// cache folder, so the installed single binary needs nothing beside it. Linux only: macOS's
/// `DYLD_INSERT_LIBRARIES` is not tried yet (no Mac has run it), so there tracing is unavailable.
public struct ReadTracer: Sendable {
    /// The compiled tracer.
    public let library: URL
    /// The folders whose files are traced (real paths and the paths as given, when they differ).
    public let roots: [String]

    /// Why reads cannot be traced here.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The tracer for files under `roots`, built if the cache lacks it; `Unavailable` says why it
    /// cannot be (another platform, no C compiler, a failed build: the compiler's last line), or
    /// that `PIPELINE_TRACE_READS=0` turned it off.
    public static func prepare(roots: [URL], variables: [String: String]) async -> Result<ReadTracer, Unavailable> {
        if variables["PIPELINE_TRACE_READS"] == "0" {
            return .failure(Unavailable(reason: "PIPELINE_TRACE_READS=0 turned read tracing off"))
        }
        #if os(Linux)
            let toolchain = Toolchain(variables: variables)
            guard
                let compiler = toolchain.tool("clang") ?? Toolchain.executable("cc", in: variables["PATH"])
                    ?? Toolchain.executable("clang", in: variables["PATH"])
            else {
                return .failure(Unavailable(reason: "no C compiler (clang beside swift, or cc) builds the read tracer"))
            }
            var paths: [String] = []
            for root in roots {
                for path in [root.path, root.resolvingSymlinksInPath().path] where !paths.contains(path) {
                    guard !path.contains(":") else { continue }
                    paths.append(path)
                }
            }
            do {
                return .success(
                    ReadTracer(library: try await build(with: compiler, variables: variables), roots: paths))
            } catch {
                return .failure(error)
            }
        #else
            return .failure(
                Unavailable(
                    reason: "read tracing is built for Linux's LD_PRELOAD only; this platform is not traced yet"))
        #endif
    }

    /// The variables that trace a process of `suite`'s into `folder` (files named by `SuiteFiles`
    /// with the process id), over `inherited`'s `LD_PRELOAD`.
    public func variables(tracing fileStem: URL, inherited: [String: String]) -> [String: String] {
        let preload = [library.path] + (inherited["LD_PRELOAD"].map { [$0] } ?? [])
        return [
            "LD_PRELOAD": preload.joined(separator: ":"),
            "PIPELINE_TRACE_FILE": fileStem.path,
            "PIPELINE_TRACE_ROOTS": roots.joined(separator: ":"),
        ]
    }

    /// The compiled library: from the cache when its source and compiler built it before, else
    /// built there (into a temporary name, then renamed, so two runs at once never see half a file).
    private static func build(with compiler: URL, variables: [String: String]) async throws(Unavailable) -> URL {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in (TracerSource.text + compiler.resolvingSymlinksInPath().path).utf8 {
            hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
        }
        let folder = cacheFolder(variables)
        let library = folder.appendingPathComponent("read-tracer-\(String(hash, radix: 16)).so")
        if FileManager.default.fileExists(atPath: library.path) { return library }
        let stem = "read-tracer-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        let source = folder.appendingPathComponent(stem + ".c")
        let built = folder.appendingPathComponent(stem + ".so")
        let log = folder.appendingPathComponent(stem + ".log")
        defer {
            for file in [source, built, log] { try? FileManager.default.removeItem(at: file) }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(TracerSource.text.utf8).write(to: source)
        } catch {
            throw Unavailable(
                reason: "the read tracer cannot be written to \(folder.path): \(error.localizedDescription)")
        }
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(
                [compiler.path, "-shared", "-fPIC", "-O2", "-o", built.path, source.path, "-ldl", "-lpthread"],
                variables: variables, log: log, timeout: .seconds(120))
        } catch {
            throw Unavailable(
                reason: "\(compiler.lastPathComponent) could not start to build the read tracer: \(error)")
        }
        guard result.termination == .exited(0) else {
            let last = result.output.split(separator: "\n").last.map(String.init) ?? "no output"
            throw Unavailable(reason: "\(compiler.lastPathComponent) failed to build the read tracer: \(last)")
        }
        do {
            if !FileManager.default.fileExists(atPath: library.path) {
                try FileManager.default.moveItem(at: built, to: library)
            }
        } catch {
            // Another run may have put it there first.
            if !FileManager.default.fileExists(atPath: library.path) {
                throw Unavailable(
                    reason: "the read tracer cannot be kept in \(folder.path): \(error.localizedDescription)")
            }
        }
        return library
    }

    /// `$XDG_CACHE_HOME/pipeline`, else `~/.cache/pipeline`, else the temporary folder's
    /// `pipeline-cache`: never the working tree.
    static func cacheFolder(_ variables: [String: String]) -> URL {
        if let cache = variables["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("pipeline")
        }
        if let home = variables["HOME"], home.hasPrefix("/"), FileManager.default.isWritableFile(atPath: home) {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/pipeline")
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-cache")
    }
}
