import Testing

@testable import TestRun

/// `TestSession.racing`: the build's heartbeat and a queue claim's renewal beside the work.
@Suite struct RacingTests {
    actor Counter {
        var ticks = 0
        func tick() { ticks += 1 }
    }

    @Test func theSideRunsUntilTheWorkEndsAndNoLonger() async throws {
        let counter = Counter()
        let result = try await TestSession.racing(
            {
                while await counter.ticks < 3 { try await Task.sleep(for: .milliseconds(1)) }
                return "built"
            },
            beside: {
                while true {
                    await counter.tick()
                    try await Task.sleep(for: .milliseconds(5))
                }
            })
        #expect(result == "built")
        let atEnd = await counter.ticks
        try await Task.sleep(for: .milliseconds(50))
        #expect(await counter.ticks == atEnd, "the side was cancelled with the work's end")
    }

    @Test func aSideThatStopsLeavesTheWorkRunning() async throws {
        let result = try await TestSession.racing(
            {
                try await Task.sleep(for: .milliseconds(20))
                return 7
            }, beside: {})
        #expect(result == 7)
    }

    @Test func theWorksErrorIsThrown() async {
        struct Failed: Error {}
        await #expect(throws: Failed.self) {
            try await TestSession.racing(
                { () async throws -> Int in throw Failed() }, beside: { try await Task.sleep(for: .seconds(60)) })
        }
    }
}
