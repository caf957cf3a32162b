import Foundation
import References
import TestCore
import TestSharding
import TestSupport
import Testing

@testable import ImageDiff
@testable import SnapshotReview
@testable import TestRun

/// GitHub's step summary of a pull request's run: each failed snapshot's images inline, its match
/// ratio and the command that accepts it.
@Suite struct CIReportTests {
    @Test func theSummaryShowsEachFailedSnapshotWithItsImagesAndAcceptCommand() throws {
        let folder = try Scratch.folder("summary")
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = folder.appendingPathComponent("summary.md")
        _ = FileManager.default.createFile(atPath: summary.path, contents: nil)
        var entry = ReviewEntry(key: "BadgeTests/test_badge.1.png", status: .failed)
        entry.comparison = ImageComparison(
            reference: .init(width: 10, height: 10), new: .init(width: 10, height: 10), comparedPixels: 100,
            differingPixels: 4, tolerance: 0)
        var published = ReviewArchive.Published(page: "https://s3.example/b/review.html?X-Amz-Signature=1")
        published.expires = "7 days"
        published.images[entry.key] = ReviewArchive.Images(
            reference: "https://s3.example/r.png", new: "https://s3.example/n.png", overlay: "https://s3.example/o.png")
        let review = CIReview(
            published: published, entries: [entry],
            accept: CandidateArchive.acceptCommand(commit: "abc123", environment: nil))
        let report = TestReport(merging: [], suite: [], flakyFails: true)

        CIReport.publish(
            report, title: "pull request", review: review,
            variables: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
        let text = try String(contentsOf: summary, encoding: .utf8)
        #expect(
            text.contains(
                "[The review page](https://s3.example/b/review.html?X-Amz-Signature=1) (links valid for 7 days)"))
        #expect(text.contains("**BadgeTests/test_badge.1.png** (failed) — 96.00% of pixels match"), "\(text)")
        #expect(
            text.contains(
                "<img src=\"https://s3.example/r.png\" alt=\"reference\" width=\"240\"> "
                    + "<img src=\"https://s3.example/n.png\" alt=\"new\" width=\"240\"> "
                    + "<img src=\"https://s3.example/o.png\" alt=\"overlay\" width=\"240\">"), "\(text)")
        #expect(text.contains("```sh\npipeline refs accept BadgeTests --commit abc123\n```"), "\(text)")

        var layout = ReviewEntry(key: "BadgeTests/test_layout.1.txt", status: .failed)
        layout.textDiff = TextDiff(reference: "a\nb\nc\n", new: "a\nB\nc\n")
        let text2 = CIReview(published: published, entries: [layout], accept: nil).markdown()
        #expect(text2.contains("```diff\n  a\n- b\n+ B\n  c\n```"), "\(text2)")

        // A folder store's review: no images inline, and no link to a path on the runner (a browser
        // on the pull request cannot open it): the run's page, whose artifacts hold the page.
        let folderReview = CIReview(
            published: ReviewArchive.Published(page: "/store/feature/.reviews/c/r/snapshot-review.html"),
            entries: [entry], accept: nil)
        let local = folderReview.markdown(runPage: "https://github.com/team/app/actions/runs/42")
        #expect(local.contains("[the run's artifacts](https://github.com/team/app/actions/runs/42)"), "\(local)")
        #expect(!local.contains("file://") && !local.contains("<img"))
        #expect(!folderReview.markdown().contains("file://"))
    }

    /// A run of `failures` snapshot tests over `files` test files failing on their references (text
    /// diffs, as swift-snapshot-testing reports them), and `crashes` crashed tests, as a report and
    /// the review CI kept of it.
    static func bigChange(failures: Int, files: Int, crashes: Int = 0) -> (TestReport, CIReview) {
        var attempts: [TestAttempt] = []
        var entries: [ReviewEntry] = []
        for index in 0..<failures {
            let file = "Cards\(index % files)Tests"
            let test = TestID("AppTests.\(file)/test_card\(index)", framework: .xctest)
            attempts.append(
                TestAttempt(
                    test: test, status: .failed, seconds: 0.1,
                    message: "/w/Tests/AppTests/\(file).swift:\(10 + index): error: \(test.name) : failed - "
                        + "Snapshot does not match reference.\n\n"
                        + String(repeating: "@@ −1,80 +1,80 @@ brand\n", count: 8)))
            var entry = ReviewEntry(key: "\(file)/test_card\(index).1.txt", status: .failed)
            entry.textDiff = TextDiff(
                reference: (0..<80).map { "line \($0) of the old brand" }.joined(separator: "\n"),
                new: (0..<80).map { "line \($0) of the new brand" }.joined(separator: "\n"))
            entries.append(entry)
        }
        for index in 0..<crashes {
            attempts.append(
                TestAttempt(
                    test: TestID("AppTests.Crashing/test_crash\(index)", framework: .xctest), status: .crashed,
                    seconds: 0.1, message: "crashed: signal 11"))
        }
        let report = TestReport(
            shards: [Shard(index: 1, tests: attempts.map(\.test), expectedSeconds: 1)], attempts: attempts, seconds: 1,
            node: .whole, flakyFails: true)
        let review = CIReview(
            published: ReviewArchive.Published(page: "https://s3.example/b/review.html?X-Amz-Signature=1"),
            entries: entries, accept: CandidateArchive.acceptCommand(commit: "abc123", environment: nil))
        return (report, review)
    }

    @Test("300 failed snapshots and 2 crashes: 10 error annotations, both crashes among them, the last naming the rest")
    func annotationsWithinLimits() throws {
        let (report, review) = Self.bigChange(failures: 300, files: 10, crashes: 2)
        let folder = try Scratch.folder("annotations")
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = folder.appendingPathComponent("summary.md")
        _ = FileManager.default.createFile(atPath: summary.path, contents: nil)
        let variables = ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path, "GITHUB_WORKSPACE": "/w"]
        let lines = CIReport.annotations(report, review: review, package: nil, variables: variables)
        CIReport.publish(report, title: "pull request", review: review, annotate: false, variables: variables)
        let errors = lines.filter { $0.hasPrefix("::error ") }
        #expect(errors.count == GitHubReport.annotationsPerStep, "\(errors.count) error annotations")
        #expect(errors.prefix(2).allSatisfy { $0.contains("test_crash") }, "the crashes come first")
        #expect(
            errors.last?.contains("293 more tests failed (293 of them on snapshots only)") == true,
            "\(errors.last ?? "")")
        #expect(errors.last?.contains("https://s3.example/b/review.html") == true)
        #expect(
            errors.dropFirst(2).dropLast().allSatisfy { $0.contains("file=") && $0.contains("line=") },
            "each failure points at its line (a crash names none)")
        let text = try String(contentsOf: summary, encoding: .utf8)
        #expect(text.contains("```sh\npipeline refs accept --all --commit abc123\n```"), "one command for all")
        #expect(text.range(of: "--all")!.lowerBound < text.range(of: "| test | status | message |")!.lowerBound)
    }

    @Test(
        "a failed test's link to its review card opens where the reader is: the store's page, else the page's name in the artifacts"
    )
    func reviewLinksInRows() {
        var (report, review) = Self.bigChange(failures: 2, files: 1)
        let page = "/runner/work/app/.build/pipeline/snapshot-review.html"
        report.review = page
        report.explain(
            "AppTests.Cards0Tests/test_card0", "Snapshot does not match reference.\nreview: \(page)#ref-Cards0")
        report.brief(
            "AppTests.Cards0Tests/test_card1",
            [
                "Cards0Tests/test_card1.1.txt: 80 lines differ", "review: \(page)#ref-Cards1",
                "accept CI's rendering: pipeline refs accept Cards0Tests --commit abc123",
            ])
        let stored = CIReport.summary(report, title: "t", review: review, coverage: nil, elsewhere: "the review page")
        let row = stored.split(separator: "\n").first { $0.contains("test_card1`") } ?? ""
        #expect(row.contains("80 lines differ") && row.contains("#ref-Cards1)"), "the terminal's brief: \(row)")
        #expect(!row.contains("accept CI's rendering"), "the lead holds the accept command")
        #expect(!stored.contains(page), "\(stored)")
        #expect(stored.contains("[review](https://s3.example/b/review.html?X-Amz-Signature=1#ref-Cards0)"), "\(stored)")
        review.published.page = "/store/feature/.reviews/c/r/snapshot-review.html"
        let artifacts = CIReport.summary(
            report, title: "t", review: review, coverage: nil, elsewhere: "the review page", runPage: "https://gh/run/1"
        )
        #expect(
            !artifacts.contains("/runner/") && !artifacts.contains("/store/feature/.reviews/c/r/snapshot-review.html#"))
        #expect(artifacts.contains("review: `snapshot-review.html#ref-Cards0`"), "\(artifacts)")
    }

    @Test("a composed run's summary names the suites not run here and the run their results are from")
    func notRunHere() {
        var (report, _) = Self.bigChange(failures: 0, files: 1)
        let ids = (0..<3).map { TestID("AppTests.Suite\($0 % 2)/test\($0)", framework: .xctest) }
        let taken = TestReport(
            shards: [Shard(index: 1, tests: ids, expectedSeconds: 1)],
            attempts: ids.map { TestAttempt(test: $0, status: .passed, seconds: 0.1) }, seconds: 1, node: .whole,
            flakyFails: true
        ).tests
        report.take(taken, verifiedBy: "981")
        let text = CIReport.summary(report, title: "t", review: nil, coverage: nil, elsewhere: "the log")
        #expect(
            text.contains(
                "**Not run here**: 2 suites (3 tests) that nothing this run's tree differs in reaches, their results "
                    + "verified in run 981: `AppTests.Suite0`, `AppTests.Suite1`"), "\(text)")
        #expect(
            !CIReport.summary(
                Self.bigChange(failures: 2, files: 1).0, title: "t", review: nil, coverage: nil, elsewhere: "x"
            ).contains("Not run here"))
    }

    @Test("the summary stays within its budget at 300 and at 3,000 failures, and says how many more are elsewhere")
    func summaryWithinBudget() {
        for failures in [300, 3_000] {
            let (report, review) = Self.bigChange(failures: failures, files: 10)
            let text = CIReport.summary(
                report, title: "pull request", review: review, coverage: nil, elsewhere: "the review page")
            #expect(text.utf8.count <= CIReport.summaryBudget, "\(failures) failures: \(text.utf8.count) bytes")
            #expect(text.contains("pipeline refs accept --all --commit abc123"))
            // 300 fit whole (about 1.3 kB each, the details included); 3,000 do not.
            if failures > 300 {
                #expect(text.contains("not shown here"), "\(failures): what was left out is said")
                #expect(text.contains("every one is in the review page"))
            }
        }
        // A small run is shown whole: nothing left out.
        let (report, review) = Self.bigChange(failures: 3, files: 1)
        let small = CIReport.summary(report, title: "t", review: review, coverage: nil, elsewhere: "the review page")
        #expect(!small.contains("not shown here"))
        #expect(small.contains("pipeline refs accept Cards0Tests --commit abc123") && !small.contains("--all"))
    }
}
