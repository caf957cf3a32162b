import Foundation
import Testing

@testable import TestCore
@testable import TestSharding

@Suite("a failure reads well in the terminal; reports keep the whole message")
struct BriefTests {
    @Test(
        "the live line: the first paragraph on one line, cut at a flattened break, at most 160 characters",
        arguments: [
            (
                "BadgeTests.testA : failed - Snapshot does not match reference.\n\n@−\n\"file:///a.png\"",
                "BadgeTests.testA : failed - Snapshot does not match reference."
            ),
            (
                "Badge.swift:8: Issue recorded\nSnapshot does not match reference.\n\n@−\n\"file:///a.png\"",
                "Badge.swift:8: Issue recorded Snapshot does not match reference."
            ),
            (
                "Badge.swift:8: Issue recorded Snapshot does not match reference.  @− \"file:///a.png\" @+ …",
                "Badge.swift:8: Issue recorded Snapshot does not match reference."
            ),
            ("\n\n  boom  \n", "boom"),
            ("", ""),
            (String(repeating: "x", count: 300), String(repeating: "x", count: 159) + "…"),
        ])
    func liveLine(_ message: String, _ expected: String) {
        #expect(RunProgress.brief(message) == expected)
    }

    @Test("a test with a brief shows it instead of its message and output; the message is kept whole")
    func report() throws {
        let failing = TestID("App.BadgeTests/testA", framework: .xctest)
        var report = TestReport(
            shards: [Shard(index: 1, tests: [failing], expectedSeconds: 1)],
            attempts: [
                TestAttempt(
                    test: failing, status: .failed, seconds: 0.1, message: "whole message\nwith the diff",
                    output: "a long log")
            ], seconds: 1, node: .whole, flakyFails: true)
        #expect(report.render().contains("    | a long log"))
        report.brief(failing.name, ["snapshot BadgeTests/a.png differs", "review: page.html#a"])
        let text = report.render()
        #expect(
            text.contains(
                "✗ App.BadgeTests/testA — failed (0.10 s)\n    snapshot BadgeTests/a.png differs\n    review: page.html#a\n"
            ))
        #expect(!text.contains("whole message") && !text.contains("a long log"))
        let decoded = try JSONDecoder().decode(TestReport.self, from: JSONEncoder().encode(report))
        #expect(decoded.tests.first?.message == "whole message\nwith the diff")
        #expect(decoded.tests.first?.brief == ["snapshot BadgeTests/a.png differs", "review: page.html#a"])
    }
}
