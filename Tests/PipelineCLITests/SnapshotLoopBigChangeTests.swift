import Foundation
import Testing

/// A change that fails hundreds of snapshot tests at once (a brand word every rendering holds), on
/// the real swift-snapshot-testing under GitHub's variables: reported within GitHub's limits,
/// accepted with one command, each failed snapshot test run once.
extension SnapshotLoopTests {
    /// Test files generated into the example package, half XCTest, half Swift Testing.
    static let cardFiles = 10
    static let cardsPerFile = 30

    /// A card's text snapshot: 80 lines, each holding the brand's word.
    static let brand = """
        enum CardBrand {
            static let word = "Acme"

            static func card(_ file: Int, _ number: Int) -> String {
                (1...80).map { "\\(word) card \\(file).\\(number), line \\($0)" }.joined(separator: "\\n")
            }
        }

        """

    static func cardTests(_ file: Int) -> String {
        let numbers = 1...cardsPerFile
        if file.isMultiple(of: 2) {
            return "import SnapshotTesting\nimport Testing\n\n@Suite struct Cards\(file)Tests {\n"
                + numbers.map {
                    "    @Test func card\($0)() {\n        assertSnapshot(of: CardBrand.card(\(file), \($0)), as: .lines)\n    }\n"
                }.joined() + "}\n"
        }
        return "import SnapshotTesting\nimport XCTest\n\nfinal class Cards\(file)Tests: XCTestCase {\n"
            + numbers.map {
                "    func testCard\($0)() {\n        assertSnapshot(of: CardBrand.card(\(file), \($0)), as: .lines)\n    }\n"
            }.joined() + "}\n"
    }

    @Test(
        "a big change under GitHub's variables: 300 failed snapshot tests give at most 10 error annotations, the last naming how many more; a summary under budget with one accept command for all; each failed test ran once; accepting everything makes the re-run pass"
    )
    func bigChange() async throws {
        let references = try await RefsBackend.folder.references()
        let repo = try Repository(references: references, stages: Self.stages, committed: false)
        let files = (1...Self.cardFiles).map { "Cards\($0)Tests" }
        try repo.write("Tests/ExampleKitTests/Cards/CardBrand.swift", Self.brand)
        for (index, name) in files.enumerated() {
            try repo.write("Tests/ExampleKitTests/Cards/\(name).swift", Self.cardTests(index + 1))
        }
        try repo.write(
            "pipelines/pull-request.yml",
            "name: pull-request\ndescription: Pull, test.\n" + references
                + "stages:\n  - pull:\n      from: develop\n      changed-from: feature\n  - test:\n      retries: 1\n")
        try repo.commitAll("card tests and a pull-request pipeline")
        let recorded = try repo.pipeline(["refs", "record"] + Self.tests + files)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(try repo.pipeline(["refs", "promote"] + Self.tests + files + ["--force", "--yes"]).status == 0)

        try repo.git("checkout", "-q", "-b", "feature/brand")
        let brand = "Tests/ExampleKitTests/Cards/CardBrand.swift"
        try repo.write(brand, Self.brand.replacingOccurrences(of: "\"Acme\"", with: "\"Apex\""))
        try repo.commitAll("the brand's new name")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        try repo.write(".build/event.json", #"{"pull_request":{"head":{"sha":"\#(head)"},"number":7}}"#)
        let summary = repo.root.appendingPathComponent(".build/summary.md")
        let gitHub = [
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": repo.root.appendingPathComponent(".build/event.json").path, "GITHUB_SHA": head,
            "GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app",
            "GITHUB_STEP_SUMMARY": summary.path, "GITHUB_WORKSPACE": repo.root.path,
        ]
        // As init's pull-request workflow: the spec's pull, then the tests with a retry.
        func check() throws -> (PipelineBinary.Result, [String: [String: Any]]) {
            try repo.write(".build/summary.md", "")
            let pulled = try repo.pipeline(["run", "pull-request", "--only", "pull"], environment: gitHub)
            #expect(pulled.status == 0, "\(pulled.stderr)")
            let result = try repo.pipeline(["test", "--retries", "1"], environment: gitHub)
            // The run as `--failed` reads it, in `pipeline test --json`'s form.
            let last = try #require(repo.read(".build/pipeline/last-run.json"))
            let report = try #require(try JSONSerialization.jsonObject(with: last) as? [String: Any])
            let tests = (report["tests"] as? [[String: Any]] ?? []).reduce(into: [:]) {
                $0[$1["name"] as? String ?? ""] = $1
            }
            return (result, tests)
        }

        let started = Date()
        let (failing, tests) = try check()
        let seconds = Date().timeIntervalSince(started)
        #expect(failing.status == 1, "\(failing.stderr)")
        let cards = tests.filter { $0.key.contains(".Cards") }
        let total = Self.cardFiles * Self.cardsPerFile
        #expect(cards.count == total && cards.allSatisfy { $0.value["status"] as? String == "failed" })
        #expect(
            cards.allSatisfy { $0.value["attempts"] as? Int == 1 },
            "a snapshot that does not match its reference is not retried")

        let errors = failing.stderr.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(errors.count == 10, "GitHub shows 10 error annotations of a step: \(errors.count)")
        #expect(
            errors.last?.contains("\(total - 9) more tests failed (\(total - 9) of them on snapshots only)") == true,
            "\(errors.last ?? "")")
        #expect(errors.last?.contains("https://github.com/acme/app/actions/runs/42") == true)
        for line in errors.dropLast() {
            #expect(
                line.range(
                    of: #"file=Tests/ExampleKitTests/Cards/Cards\d+Tests.swift,line=\d+"#, options: .regularExpression)
                    != nil, "each annotation points at its test's line: \(line)")
        }
        #expect(errors.contains { $0.contains("card1()") }, "Swift Testing's failures are annotated too")

        let text = try String(contentsOf: summary, encoding: .utf8)
        let all = "pipeline refs accept --all --commit \(head)"
        #expect(text.utf8.count < 400_000, "\(text.utf8.count) bytes")
        #expect(text.components(separatedBy: all).count == 2, "one command accepts the change: \(text.prefix(2_000))")
        #expect(text.contains("\(total) snapshot(s) to review in \(Self.cardFiles) test file(s)"))
        #expect(!text.contains(repo.root.path + "/.build/"), "no link to a runner path")
        #expect(failing.stderr.contains("to accept them all: \(all)"), "\(failing.stderr.suffix(3_000))")
        // The log of a big change stays far below a CI's log limit (4 MiB on GitLab's runners).
        let log = failing.stderr.utf8.count + failing.stdout.utf8.count
        #expect(log < 1_000 * total, "\(log) bytes of log for \(total) failed snapshot tests")
        print("bigChange: the failing run took \(String(format: "%.1f", seconds)) s, \(log) bytes of log")

        // The accept workflow on the branch, with `tests: all`, in a checkout holding no references.
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let accepted = try repo.pipeline(["refs", "accept", "--all", "--commit", head])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let (green, after) = try check()
        #expect(green.status == 0, "the re-run passes with every rendering accepted: \(green.stderr.suffix(3_000))")
        #expect(after.filter { $0.key.contains(".Cards") }.count == total)
    }
}
