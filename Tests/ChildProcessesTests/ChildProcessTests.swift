import ChildProcesses
import Foundation
import Testing

@Suite("every process the tool starts")
struct ChildProcessTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    @Test("output and errors to one file, or kept apart; the exit code read back")
    func output() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ProcessInfo.processInfo.environment
        let script = "echo out; echo err >&2; exit 3"
        let together = try await ChildProcess.run(["sh", "-c", script], variables: environment, log: file("a.log"))
        #expect(together.termination == .exited(3))
        #expect(together.output == "out\nerr\n" && together.errors == nil)
        let apart = try await ChildProcess.run(
            ["sh", "-c", script], variables: environment, log: file("b.log"), errors: file("b.err"))
        #expect(apart.output == "out\n" && apart.errors == "err\n")
        #expect(!apart.timedOut)
    }

    @Test("past its timeout a process is asked to end, and killed after the grace if it will not")
    func timeout() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ProcessInfo.processInfo.environment
        // Ends on SIGTERM, writing that it did.
        let polite = try await ChildProcess.run(
            ["sh", "-c", "trap 'echo stopping; exit 5' TERM; while true; do sleep 0.05; done"],
            variables: environment, log: file("polite.log"), timeout: .milliseconds(300), grace: .seconds(5))
        #expect(polite.timedOut)
        #expect(polite.termination == .exited(5) && polite.output.contains("stopping"), "\(polite)")
        // Ignores SIGTERM, and never ends by itself: killed once the grace has passed (no time bound
        // here: on two cores other suites' blocking tests can hold the waiting task up for long).
        let stubborn = try await ChildProcess.run(
            ["sh", "-c", "trap '' TERM; while true; do sleep 0.05; done"], variables: environment,
            log: file("stubborn.log"), timeout: .milliseconds(200), grace: .milliseconds(300))
        #expect(stubborn.timedOut && stubborn.termination == .signalled(SIGKILL), "\(stubborn.termination)")
    }

    @Test("the whole process group ends: a grandchild does not outlive a kill")
    func group() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = file("grandchild.pid")
        let process = try await ChildProcess.start(
            // Long enough to outlast a starved test pool (blocking tests can hold its threads for
            // half a minute on a 2-core machine): the kill, not the sleep, must end it.
            ["sh", "-c", "sleep 600 & echo $! > \(pidFile.path); wait"],
            variables: ProcessInfo.processInfo.environment,
            log: file("group.log"))
        var grandchild: pid_t?
        for _ in 0..<100 where grandchild == nil {
            try await Task.sleep(for: .milliseconds(20))
            grandchild = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap {
                pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        let pid = try #require(grandchild)
        process.kill()
        let ended = await process.wait()
        #expect(ended == .signalled(SIGKILL), "\(ended)")
        var gone = false
        for _ in 0..<100 where !gone {
            gone = kill(pid, 0) != 0
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone, "the grandchild \(pid) was killed with its group")
    }

    @Test("a program that cannot start is an error naming it, never a crash")
    func cannotStart() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: ProcessError.self) {
            try await ChildProcess.run(["/nonexistent/tool"], variables: [:], log: file("x.log"))
        }
        #expect(error?.command == "/nonexistent/tool")
        await #expect(throws: ProcessError.self) {
            try await ChildProcess.run([], variables: [:], log: file("y.log"))
        }
        await #expect(throws: ProcessError.self) {
            try await ChildProcess.run(
                ["true"], variables: [:], log: folder.appendingPathComponent("no/such/folder.log"))
        }
    }

    /// The bug this names: `run` removed its output files before starting, and a caller passing
    /// `/dev/null` for the errors (as root) deleted the device, breaking every process after it.
    @Test("output going to /dev/null leaves the device as it is; a regular file is started afresh")
    func devNullIsNotRemoved() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let null = URL(fileURLWithPath: "/dev/null")
        let result = try await ChildProcess.run(
            ["sh", "-c", "echo out; echo err >&2"], variables: ProcessInfo.processInfo.environment,
            log: file("out.log"), errors: null)
        #expect(result.output == "out\n")
        let type = try FileManager.default.attributesOfItem(atPath: null.path)[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial, "/dev/null is still a device")
        try Data("stale\n".utf8).write(to: file("again.log"))
        let again = try await ChildProcess.run(
            ["sh", "-c", "echo new"], variables: ProcessInfo.processInfo.environment, log: file("again.log"))
        #expect(again.output == "new\n", "an old log's content is not kept")
    }
}
