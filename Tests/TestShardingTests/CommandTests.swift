import Foundation
import Testing

@testable import TestSharding

@Suite("short commands: output, exit status, and a timeout that stops them")
struct CommandTests {
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString).log")

    @Test("a command past its timeout is killed and says so; one within it is not")
    func timeout() async throws {
        defer { try? FileManager.default.removeItem(at: log) }
        let started = ContinuousClock.now
        // The timeout is checked when the waiting task runs; the other suites' blocking tests can keep
        // it from running for tens of seconds on two cores, so the command outlasts that by far.
        let stuck = try await Command.run(
            ["sleep", "300"], environment: ProcessInfo.processInfo.environment, log: log, timeout: .milliseconds(300))
        #expect(stuck.timedOut)
        #expect(stuck.termination == .signalled(SIGKILL))
        #expect(ContinuousClock.now - started < .seconds(240), "stopped at the timeout, not after 300 s")
        let quick = try await Command.run(
            ["sh", "-c", "echo listed"], environment: ProcessInfo.processInfo.environment, log: log,
            timeout: .seconds(30))
        #expect(!quick.timedOut)
        #expect(quick.termination == .exited(0))
        #expect(quick.output == "listed\n")
    }
}
