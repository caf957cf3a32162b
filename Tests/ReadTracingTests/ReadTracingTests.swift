import ChildProcesses
import Foundation
import PipelineCore
import TestCore
import TestSharding
import TestSupport
import Testing

@testable import ReadTracing

@Suite("read tracing: the files a process opens for reading, by suite")
final class ReadTracingTests {
    let scratch: URL
    let root: URL
    let traces: URL

    init() throws {
        scratch = try Scratch.folder("read-tracing")
        root = scratch.appendingPathComponent("repository")
        traces = scratch.appendingPathComponent("traces")
        for folder in [root.appendingPathComponent("fixtures/deep"), traces] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Data("a".utf8).write(to: root.appendingPathComponent("fixtures/a.json"))
        try Data("b".utf8).write(to: root.appendingPathComponent("fixtures/deep/b.json"))
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// Runs `script` in `sh` with the tracer, as the processes of `suite`.
    private func traced(_ script: String, suite: String, tracer: ReadTracer) async throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(
            tracer.variables(
                tracing: traces.appendingPathComponent(SuiteFiles.name(of: suite, "")), inherited: environment)
        ) { $1 }
        return try await ChildProcess.run(
            ["/bin/sh", "-c", "cd '\(root.path)' && " + script], variables: environment,
            log: traces.deletingLastPathComponent().appendingPathComponent("\(suite).log"))
    }

    private func tracer() async throws -> ReadTracer {
        try await ReadTracer.prepare(roots: [root], variables: ProcessInfo.processInfo.environment).get()
    }

    @Test("reads under the roots, relative ones and `..` too; not writes, nor files outside; folders listed")
    func reads() async throws {
        let tracer = try await tracer()
        let result = try await traced(
            "cat fixtures/a.json fixtures/deep/../deep/b.json /etc/hostname >/dev/null; echo x > written.txt; "
                + "ls fixtures/deep >/dev/null",
            suite: "Module.Suite", tracer: tracer)
        #expect(result.termination == .exited(0), "\(result.output)")
        let reads = ReadTraces.read(folder: traces)
        let path = root.resolvingSymlinksInPath().path
        #expect(
            reads == [
                "Module.Suite": .read([
                    path + "/fixtures/a.json", path + "/fixtures/deep/b.json", path + "/fixtures/deep",
                ])
            ])
    }

    @Test(
        "a child started with an environment of its own keeps the tracer and LLVM_PROFILE_FILE; values the test set stay"
    )
    func childrenKeepTheirVariables() async throws {
        let tracer = try await tracer()
        let profile = scratch.appendingPathComponent("profiles/Suite-%p.profraw").path
        let result = try await traced(
            "LLVM_PROFILE_FILE='\(profile)'; export LLVM_PROFILE_FILE; env -i /usr/bin/env > bare.txt; "
                + "env -i LLVM_PROFILE_FILE=own.profraw /usr/bin/env > own.txt; env -i /bin/cat fixtures/a.json >/dev/null",
            suite: "Module.Spawning", tracer: tracer)
        #expect(result.termination == .exited(0), "\(result.output)")
        let bare = try String(contentsOf: root.appendingPathComponent("bare.txt"), encoding: .utf8)
        #expect(bare.contains("LLVM_PROFILE_FILE=\(profile)\n"), "\(bare)")
        #expect(bare.contains("PIPELINE_TRACE_FILE=") && bare.contains("LD_PRELOAD=\(tracer.library.path)"), "\(bare)")
        let own = try String(contentsOf: root.appendingPathComponent("own.txt"), encoding: .utf8)
        #expect(own.contains("LLVM_PROFILE_FILE=own.profraw\n") && !own.contains(profile), "\(own)")
        // What the child with an emptied environment read is its suite's.
        let reads = ReadTraces.read(folder: traces)
        guard case .read(let files) = reads["Module.Spawning"] else {
            Issue.record("the suite's reads: \(String(describing: reads["Module.Spawning"]))")
            return
        }
        #expect(files.contains(root.resolvingSymlinksInPath().path + "/fixtures/a.json"), "\(files)")
    }

    @Test("a process killed before its end leaves its suite's reads unknown, never empty")
    func cutShort() async throws {
        let tracer = try await tracer()
        _ = try await traced("cat fixtures/a.json >/dev/null", suite: "Whole", tracer: tracer)
        _ = try await traced("cat fixtures/a.json >/dev/null; kill -9 $$", suite: "Crashed", tracer: tracer)
        let reads = ReadTraces.read(folder: traces)
        #expect(reads["Whole"] == .read([root.resolvingSymlinksInPath().path + "/fixtures/a.json"]))
        guard case .unknown(let why) = reads["Crashed"] else {
            Issue.record("a killed process's trace counts as complete: \(String(describing: reads["Crashed"]))")
            return
        }
        #expect(why.contains("was cut short"), "\(why)")
    }

    @Test("a file that is not a trace, or one cut before its end line, is unknown")
    func corrupt() throws {
        let name = SuiteFiles.name(of: "S", "")
        try Data("garbage\n".utf8).write(to: traces.appendingPathComponent(name + "1.trace"))
        try Data("pipeline-read-trace 1\nr /x/a\nen".utf8).write(to: traces.appendingPathComponent(name + "2.trace"))
        for file in ["1", "2"] {
            guard case .unknown = ReadTraces.parse(traces.appendingPathComponent(name + file + ".trace")) else {
                Issue.record("trace \(file) was read as complete")
                continue
            }
        }
        #expect(ReadTraces.standardized("/a//b/./c/../d") == "/a/b/d")
        #expect(ReadTraces.standardized("/../a") == "/a")
    }

    @Test("built once and kept in the cache; switched off, or its C not warning-free, is said")
    func building() async throws {
        let first = try await tracer()
        let modified = try FileManager.default.attributesOfItem(atPath: first.library.path)[.modificationDate] as? Date
        let second = try await tracer()
        #expect(first.library == second.library)
        #expect(
            try FileManager.default.attributesOfItem(atPath: second.library.path)[.modificationDate] as? Date
                == modified)
        #expect(!first.library.path.hasPrefix(FileManager.default.currentDirectoryPath + "/"), "never the working tree")
        let off = await ReadTracer.prepare(roots: [root], variables: ["PIPELINE_TRACE_READS": "0"])
        guard case .failure(let why) = off else {
            Issue.record("PIPELINE_TRACE_READS=0 still traced")
            return
        }
        #expect(why.reason == "PIPELINE_TRACE_READS=0 turned read tracing off")
        // The C source builds without a warning, as strictly as the package's own code.
        let source = traces.appendingPathComponent("tracer.c")
        try Data(TracerSource.text.utf8).write(to: source)
        let clang = try #require(Toolchain(variables: ProcessInfo.processInfo.environment).tool("clang"))
        let strict = try await ChildProcess.run(
            [
                clang.path, "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o",
                traces.appendingPathComponent("t.so").path, source.path,
            ], variables: ProcessInfo.processInfo.environment, log: traces.appendingPathComponent("clang.log"))
        #expect(strict.termination == .exited(0), "\(strict.output)")
    }
}
