import Foundation
import Testing

@testable import PipelineSpec

@Suite("The quarantine file: reading, checking, matching and adding entries")
struct QuarantineTests {
    let today = CalendarDay(parsing: "2026-11-23")!

    private func problems(_ text: String) -> [String] {
        do {
            _ = try QuarantineLoader.parse(text, file: "pipelines/quarantine.yml", today: today)
            return []
        } catch {
            return error.lines
        }
    }

    @Test("days: real calendar days only, compared and counted")
    func days() throws {
        #expect(CalendarDay(parsing: "2028-02-29")?.description == "2028-02-29")
        for text in [
            "2026-02-29", "2026-13-01", "2026-1-01", "26-01-01", "2026-01-01T00:00", "", "２０２６-01-01", "2026-00-10",
        ] {
            #expect(CalendarDay(parsing: text) == nil, "\(text)")
        }
        let day = try #require(CalendarDay(parsing: "2026-12-30"))
        #expect(day.adding(days: 3).description == "2027-01-02")
        #expect(today.days(until: day) == 37)
        #expect(day.days(until: today) == -37)
        #expect(today < day)
    }

    @Test("a valid file: tests by name, patterns over whole names, the first entry wins")
    func matching() throws {
        let quarantine = try QuarantineLoader.parse(
            """
            # known-flaky tests
            quarantine:
              - test: AppTests.LoginTests/testTimeout
                owner: "@alice"
                reason: deadlock under wait(for:timeout:)
                expires: 2026-11-23
              - pattern: 'NetworkTests\\..*'
                owner: team-net
                reason: staging server
                expires: 2027-01-31
            """, file: "q.yml", today: today)
        #expect(quarantine.entries.count == 2)
        #expect(quarantine.entries[0].location == SourceLocation(line: 3, column: 5))
        let match = quarantine.matcher()
        #expect(match("AppTests.LoginTests/testTimeout")?.owner == "@alice", "an entry expiring today still holds")
        #expect(match("NetworkTests.Client/testRetry")?.owner == "team-net")
        #expect(match("AppTests.NetworkTests.Client/testRetry") == nil, "a pattern matches the whole name")
        #expect(match("AppTests.LoginTests/testTimeoutOther") == nil)
        #expect(quarantine.unknown(among: ["AppTests.LoginTests/testTimeout"]).map(\.name) == ["NetworkTests\\..*"])
        #expect(
            quarantine.warnings(among: []).first
                == "q.yml:3:5: warning: quarantined test 'AppTests.LoginTests/testTimeout' matches no test of the suite; "
                + "remove the entry if the test is gone")
        #expect(try QuarantineLoader.parse("# nothing yet\n\n", file: "q.yml", today: today).entries.isEmpty)
        #expect(try QuarantineLoader.parse("quarantine: []\n", file: "q.yml", today: today).entries.isEmpty)
    }

    @Test("every problem at once, each with file, line, column and key")
    func problems() {
        let found = problems(
            """
            quarantine:
              - test: A.B/testOne
                reason: flaky
                expires: 2026-12-40
              - test: A.B/testTwo
                owner: bob
                reason: flaky
                expires: 2026-11-22
              - pattern: "(["
                owner: x
                reason: y
                expires: 2027-01-01
              - owner: x
                reason: " "
                expires: 2027-01-01
                colour: red
              - test: A.B/testThree
                pattern: A.*
                owner: x
                reason: y
                expires: 2027-01-01
              - test: A.B/testFour
                owner: x
                reason: y
                expires: 2027-01-01
              - test: A.B/testFour
                owner: z
                reason: y
                expires: 2027-01-02
            """)
        #expect(
            found == [
                "pipelines/quarantine.yml:2:5: quarantine[0]: missing required key 'owner'",
                "pipelines/quarantine.yml:4:14: quarantine[0].expires: expected a day written YYYY-MM-DD, found '2026-12-40'",
                "pipelines/quarantine.yml:8:14: quarantine[1].expires: the quarantine of 'A.B/testTwo' expired on 2026-11-22; "
                    + "fix the test and remove the entry, or give it a new day with a reason",
                "pipelines/quarantine.yml:9:14: quarantine[2].pattern: expected a regular expression, found '(['",
                "pipelines/quarantine.yml:13:5: quarantine[3]: missing required key 'test' (a full test name) or 'pattern' (a regular expression)",
                "pipelines/quarantine.yml:14:13: quarantine[3].reason: expected some text, found ' '",
                "pipelines/quarantine.yml:16:5: quarantine[3]: unknown key 'colour'; expected one of: test, pattern, owner, reason, expires",
                "pipelines/quarantine.yml:17:5: quarantine[4]: an entry names a test or a pattern, not both",
                "pipelines/quarantine.yml:26:5: quarantine[6]: 'A.B/testFour' is already quarantined by entry 5; keep one entry per test",
            ])
        #expect(
            problems("tests: []\n") == [
                "pipelines/quarantine.yml:1:1: unknown key 'tests'; expected one of: quarantine",
                "pipelines/quarantine.yml:1:1: missing required key 'quarantine' (a list of entries, each with test: or pattern:, owner:, reason: and expires:)",
            ])
        #expect(
            problems("quarantine: A.B/testOne\n") == [
                "pipelines/quarantine.yml:1:13: quarantine: expected a list of entries (lines starting with '- '), found 'A.B/testOne'"
            ])
    }

    @Test("adding entries keeps the file's comments and indentation, and refuses a second entry for a test")
    func adding() throws {
        let first = Quarantine.Entry(
            target: .test("A.B/test: \"quoted\" #1"), owner: "@alice", reason: "hangs: see #12",
            expires: today.adding(days: 14))
        let created = try QuarantineEditor.adding(first, to: nil, file: "q.yml", today: today)
        #expect(created.hasPrefix("# Known-flaky tests"))
        let read = try QuarantineLoader.parse(created, file: "q.yml", today: today)
        #expect(read.entries.map(\.name) == ["A.B/test: \"quoted\" #1"])
        #expect(read.entries.first?.reason == "hangs: see #12")
        #expect(read.entries.first?.expires.description == "2026-12-07")

        let handWritten = """
            # ours
            quarantine:
            - test: X.Y/testOld   # since the move
              owner: bob
              reason: old
              expires: 2027-01-01
            # end of list
            """
        let second = Quarantine.Entry(
            target: .pattern("Net\\..*"), owner: "team-net", reason: "server", expires: today.adding(days: 1))
        let added = try QuarantineEditor.adding(second, to: handWritten, file: "q.yml", today: today)
        #expect(added.hasPrefix(handWritten), "what was there is kept as it was")
        let both = try QuarantineLoader.parse(added, file: "q.yml", today: today)
        #expect(both.entries.map(\.name) == ["X.Y/testOld", "Net\\..*"])
        #expect(both.entries.last?.target == .pattern("Net\\..*"))

        #expect(throws: QuarantineEditor.Failure.self) {
            try QuarantineEditor.adding(second, to: added, file: "q.yml", today: today)
        }
        let expired = handWritten.replacingOccurrences(of: "2027-01-01", with: "2026-01-01")
        #expect(throws: SpecError.self, "a broken file is not added to") {
            try QuarantineEditor.adding(first, to: expired, file: "q.yml", today: today)
        }
    }

    @Test("the quarantine file is not a pipeline of the catalog")
    func notAPipeline() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "quarantine-\(UUID().uuidString)/pipelines")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try Data("quarantine: []\n".utf8).write(to: folder.appendingPathComponent("quarantine.yml"))
        try Data("name: x\n".utf8).write(to: folder.appendingPathComponent("merge.yml"))
        let catalog = PipelineCatalog(folder: folder, workingDirectory: folder.deletingLastPathComponent())
        #expect(catalog.names() == ["merge"])
        #expect(QuarantineLoader.file(in: catalog)?.lastPathComponent == "quarantine.yml")
        #expect(try QuarantineLoader.find(from: folder.deletingLastPathComponent())?.entries.isEmpty == true)
    }
}
