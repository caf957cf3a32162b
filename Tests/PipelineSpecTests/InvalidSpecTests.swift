import Foundation
import Testing

@testable import PipelineSpec

@Suite("Invalid specs: every problem, exact message and location")
struct InvalidSpecTests {
    @Test("the invalid fixture suite is large enough to mean something")
    func suiteSize() {
        #expect(Fixtures.invalid.count >= 25)
    }

    @Test("each invalid fixture reports exactly its expected problems", arguments: Fixtures.invalid)
    func fixture(_ url: URL) throws {
        let expected = try Fixtures.expectations(of: url)
        #expect(!expected.isEmpty, "fixture \(url.lastPathComponent) declares no '# expect:' line")
        #expect(Fixtures.problems(url) == expected)
    }

    @Test("a 10 MB file is refused before it is parsed")
    func hugeFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: url) }
        let line = "# " + String(repeating: "x", count: 97) + "\n"
        try Data(("name: huge\n" + String(repeating: line, count: 100_000)).utf8).write(to: url)
        #expect(Fixtures.problems(url) == ["1:1: file is 10.0 MB; a pipeline spec may be at most 1.0 MB"])
    }

    @Test("nesting deeper than libyaml allows is an error, not a stack overflow")
    func libyamlNestingLimit() {
        let text = "a: " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let problems = Fixtures.problems(text: text)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("Maximum nesting level reached") == true)
    }

    @Test("a file that is not UTF-8 names the line and column of the first bad byte")
    func notUTF8() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("binary-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("name: x\ndescription: ab".utf8 + [0xFF, 0xFE] + Data("\n".utf8)).write(to: url)
        #expect(Fixtures.problems(url) == ["2:16: file is not UTF-8 text"])
    }

    @Test("a folder or a missing file cannot be read, and says so")
    func unreadable() {
        let folder = FileManager.default.temporaryDirectory
        #expect(throws: SpecError.self) { try SpecLoader.load(folder, displayPath: "pipelines/tmp.yml") }
        do {
            _ = try SpecLoader.load(folder.appendingPathComponent("no-such-\(UUID()).yml"), displayPath: "x.yml")
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.lines == ["x.yml: cannot read: no such file"])
        }
    }

    @Test("every problem of a stage is reported, not only the first")
    func collectsAll() {
        let text = """
            name: spec
            description: d
            stages:
              - test:
                  shards: many
                  timeout: soon
                  retries: lots
                  select: some
                  flaky: maybe
            """
        #expect(
            Fixtures.problems(text: text) == [
                "spec.yml:5:15: stages[0].test.shards: expected a shard count: auto or a whole number, found 'many'",
                "spec.yml:6:16: stages[0].test.timeout: expected a duration, written like 90s, 2m or 1h, found 'soon'",
                "spec.yml:7:16: stages[0].test.retries: expected a whole number, found 'lots'",
                "spec.yml:8:15: stages[0].test.select: 'some' is not a selection; expected one of: all, affected, impacted, impacted-or-all",
                "spec.yml:9:14: stages[0].test.flaky: 'maybe' is not a flaky policy; expected one of: fail, pass",
            ])
    }
}
