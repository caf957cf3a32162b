import Foundation
import TestSupport
import Testing

/// The snapshot loop when the branch is squash-merged and adds a snapshot test, on the real
/// swift-snapshot-testing: CI renders the new test and keeps the rendering, the reviewer accepts
/// everything CI rendered, and the squash's post-merge job promotes it all.
extension SnapshotLoopTests {
    static let farewell = """
        import SnapshotTesting
        import XCTest

        final class FarewellTests: XCTestCase {
            func testFarewell() {
                assertSnapshot(of: "Goodbye, see you \\(2 * 3) times", as: .lines)
            }
        }

        """

    @Test(
        "squash merge with a new snapshot test: CI keeps the new test's rendering (never as a reference), the reviewer accepts it with the view's, the squash's post-merge run promotes all of it",
        arguments: RefsBackend.available)
    func squashWithNewTest(backend: RefsBackend) async throws {
        let repo = try Self.recordedWithPullRequests(try await backend.references())
        try repo.git("checkout", "-q", "-b", "feature/farewell")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        try repo.write("Tests/ExampleKitTests/FarewellTests.swift", Self.farewell)
        try repo.commitAll("a farewell snapshot test")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)

        let failing = try repo.pipeline("run", "pull-request")
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(failing.stderr.contains("Rendering 1 new snapshot test for CI's candidates"), "\(failing.stderr)")
        #expect(
            failing.stderr.contains(
                "to accept them all: pipeline refs accept --all --commit \(head); or some of them, named instead of --all: BadgeSnapshotTests BadgeViewTests FarewellTests"
            ),
            "\(failing.stderr)")
        #expect(
            failing.stderr.contains(
                "for a new test, accept CI's rendering, kept as a candidate (never a reference here, never a pass): "
                    + "'pipeline refs accept FarewellTests --commit \(head)'"),
            "\(failing.stderr)")
        #expect(
            repo.read("\(Self.snapshots)/FarewellTests/testFarewell.1.txt") == nil, "never a reference in the checkout")
        let html = try String(
            contentsOf: repo.root.appendingPathComponent(".build/pipeline/snapshot-review.html"), encoding: .utf8)
        #expect(html.contains("<span class=\"status new\">new</span>"))
        #expect(html.contains(">pipeline refs accept FarewellTests --commit \(head)</pre>"))

        #expect(try repo.pipeline("refs", "accept", "--all").status == 0)
        let green = try repo.pipeline("run", "pull-request")
        #expect(green.status == 0, "the same commit passes with CI's renderings: \(green.stdout)\(green.stderr)")
        let rendered = repo.references()
        if backend == .folder {
            // The runs' history (develop's timings): the failure the branch's change explained is none.
            let timings = try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: try #require(
                        RecordFiles.find(
                            "pipeline-timings.json", of: repo.root.appendingPathComponent("store/develop")))))
            let entry = ((timings as? [String: Any])?["tests"] as? [String: Any])?[
                "ExampleKitTests.BadgeViewTests/testBadgeImage"]
            let history = (entry as? [String: Any])?["history"] as? [String: Any]
            #expect(
                history?["failed"] as? Double == 0 && history?["flips"] as? Double == 0,
                "a failure its change explained is no flaky history: \(history ?? [:])")
            #expect(!green.stderr.contains("flaky:"), "\(green.stderr)")
        }
        #expect(
            rendered["FarewellTests/testFarewell.1.txt"].map { String(decoding: $0, as: UTF8.self) }
                == "Goodbye, see you 6 times")

        // Develop moves on, then the branch is squash-merged and deleted.
        try repo.git("checkout", "-q", "develop")
        try repo.write("README.md", "develop moved on\n")
        try repo.commitAll("another merge")
        try repo.git("merge", "-q", "--squash", "feature/farewell")
        try repo.git("commit", "-q", "-m", "Farewell (#7)")
        try repo.git("branch", "-q", "-D", "feature/farewell")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let merged = try repo.json(try repo.pipeline("run", "post-merge", "--json"))
        let stages = merged["stages"] as? [[String: Any]] ?? []
        #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"], "\(merged)")
        let promotion = (stages.last?["transfers"] as? [[String: Any]])?.first ?? [:]
        #expect(
            (promotion["copied"] as? [String])?.contains("FarewellTests/testFarewell.1.txt") == true, "\(promotion)")
        #expect((promotion["pushMatches"] as? [String: String])?.values.allSatisfy { $0 == "squash" } == true)
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.references() == rendered, "develop holds what CI rendered, the new test's too")
    }

    @Test(
        "tested once: a squash onto an unchanged develop has the tree the pull request's check verified; the post-merge job runs nothing, names that run, keeps a JUnit, and promotes",
        arguments: RefsBackend.available)
    func verifiedTree(backend: RefsBackend) async throws {
        let references = try await backend.references()
        let repo = try Self.recordedWithPullRequests(references)
        // The pull request's check keeps its verdict, the merge's job reuses it: the same test settings.
        let test =
            "  - test:\n      shards: 2\n      timeout: 60s\n      junit: .build/pipeline/junit.xml\n"
            + "      timings: .build/impact/timings.json\n"
        let pull = "stages:\n  - pull:\n      from: develop\n      changed-from: feature\n"
        try repo.write(
            "pipelines/pull-request.yml",
            "name: pull-request\ndescription: Pull, test.\n" + references + pull + test + "      verdicts: keep\n")
        try repo.write(
            "pipelines/post-merge.yml",
            "name: post-merge\ndescription: Pull, test, promote.\n" + references + pull + test
                + "      verdicts: reuse\n  - promote:\n      from: feature\n      to: develop\n")
        try repo.commitAll("verdicts kept and reused")
        // The jobs as GitHub runs them: a pull request's check, then the push's post-merge job,
        // which takes the check's verdict only as GitHub's records (the stand-in) confirm it.
        let github = try GitHubAPIStub()
        func pullRequest(_ number: Int, run: Int) -> [String: String] {
            [
                "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_REF": "refs/pull/\(number)/merge",
                "GITHUB_BASE_REF": "develop", "GITHUB_RUN_ID": "\(run)",
            ]
        }
        func postMerge(before: String) throws -> [String: String] {
            let event = repo.root.appendingPathComponent(".git/push-\(before.prefix(8)).json")
            try Scratch.write("{\"ref\": \"refs/heads/develop\", \"before\": \"\(before)\"}", to: event)
            return github.variables.merging([
                "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/develop",
                "GITHUB_EVENT_PATH": event.path, "GITHUB_RUN_ID": "900",
            ]) { $1 }
        }
        try repo.git("checkout", "-q", "-b", "feature/brand")
        try repo.changeTheView()
        try repo.commitAll("brand colour")
        let head = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        #expect(try repo.pipeline(["run", "pull-request"], environment: pullRequest(8, run: 801)).status == 1)
        #expect(try repo.pipeline("refs", "accept", "--all").status == 0)
        let green = try repo.pipeline(["run", "pull-request"], environment: pullRequest(8, run: 802))
        #expect(green.status == 0, "\(green.stderr)")
        #expect(green.stderr.contains("kept this run's verdict"), "\(green.stderr)")
        let rendered = repo.references()

        // Squash-merged onto the develop it was cut from, checked out fresh (no references, no JUnit).
        try repo.git("checkout", "-q", "develop")
        let developBefore = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        try repo.git("merge", "-q", "--squash", "feature/brand")
        try repo.git("commit", "-q", "-m", "Brand colour (#8)")
        try github.run(
            802, event: "pull_request", conclusion: "success", head: head, branch: "feature/brand", pullRequests: [8])
        try github.merged(try Git.run(["rev-parse", "HEAD"], in: repo.root), pullRequests: [(8, head)])
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        let junit = repo.root.appendingPathComponent(".build/pipeline/junit.xml")
        try FileManager.default.removeItem(at: junit)
        let merged = try repo.pipeline(
            ["run", "post-merge", "--json"], environment: try postMerge(before: developBefore))
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(!merged.stderr.contains("Running "), "nothing ran: \(merged.stderr)")
        #expect(merged.stderr.contains("verified already:"), "\(merged.stderr)")
        #expect(merged.stderr.contains("on commit \(head.prefix(12))"), "names the check's commit: \(merged.stderr)")
        let stages = try repo.json(merged)["stages"] as? [[String: Any]] ?? []
        #expect(stages.map { $0["status"] as? String } == ["passed", "passed", "passed"], "\(stages)")
        #expect((stages[1]["summary"] as? String)?.contains("verified already") == true, "\(stages[1])")
        let cases = try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "<testcase ").count - 1
        #expect(cases > 0, "the verifying run's JUnit is kept")
        let promotion = (stages.last?["transfers"] as? [[String: Any]])?.first ?? [:]
        #expect(!((promotion["copied"] as? [String]) ?? []).isEmpty, "\(promotion)")
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        #expect(try repo.pipeline("refs", "pull").status == 0)
        #expect(repo.references() == rendered, "develop holds what the check verified")

        // Develop moves between a check and its merge: the same change over the moved develop runs
        // only the suites the move reaches (by the impact map develop recorded), the rest is the check's.
        let recorded = try repo.pipeline("test", "--record-impact", "--timings", ".build/impact/timings.json")
        #expect(recorded.status == 0, "\(recorded.stderr)")
        try repo.git("checkout", "-q", "-b", "feature/sum")
        try repo.write(
            "Tests/ExampleKitTests/SumTests.swift",
            "import XCTest\n\nfinal class SumTests: XCTestCase {\n    func testSum() { XCTAssertEqual(1 + 1, 2) }\n}\n")
        try repo.commitAll("a sum test")
        let sumHead = try Git.run(["rev-parse", "HEAD"], in: repo.root)
        let check = try repo.pipeline(["run", "pull-request"], environment: pullRequest(9, run: 803))
        #expect(check.status == 0 && check.stderr.contains("kept this run's verdict"), "\(check.stderr)")
        let checked = try Git.run(["rev-parse", "develop"], in: repo.root)
        try repo.git("checkout", "-q", "develop")
        let thumbnail = "Sources/ExampleKit/Thumbnail.swift"
        let source = String(decoding: repo.read(thumbnail) ?? Data(), as: UTF8.self)
        // A body ThumbnailTests executes (a function only added would reach no suite).
        try repo.write(
            thumbnail, source.replacingOccurrences(of: "\"negative size\"", with: "\"a negative size\""))
        try repo.commitAll("an unrelated merge")
        try repo.git("merge", "-q", "--squash", "feature/sum")
        try repo.git("commit", "-q", "-m", "A sum test (#9)")
        try github.run(
            803, event: "pull_request", conclusion: "success", head: sumHead, branch: "feature/sum", pullRequests: [9])
        try github.merged(try Git.run(["rev-parse", "HEAD"], in: repo.root), pullRequests: [(9, sumHead)])
        try FileManager.default.removeItem(at: repo.root.appendingPathComponent(Self.snapshots))
        try FileManager.default.removeItem(at: junit)
        let moved = try repo.pipeline(["run", "post-merge", "--json"], environment: try postMerge(before: checked))
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stderr.contains("verified already over \(checked.prefix(12))"), "\(moved.stderr)")
        #expect(moved.stderr.contains("impacted: ExampleKitTests.ThumbnailTests"), "\(moved.stderr)")
        #expect(!moved.stderr.contains("impacted: ExampleKitTests.BadgeViewTests"), "\(moved.stderr)")
        #expect(moved.stderr.contains("results taken from run"), "\(moved.stderr)")
        let movedStages = try repo.json(moved)["stages"] as? [[String: Any]] ?? []
        #expect(movedStages.map { $0["status"] as? String } == ["passed", "passed", "passed"], "\(movedStages)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<property name=\"verified-by\""), "the check's results named in the JUnit")
        #expect(xml.contains("classname=\"ExampleKitTests.ThumbnailTests\""), "\(xml)")
    }
}
