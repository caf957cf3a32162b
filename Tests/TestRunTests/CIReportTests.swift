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

        // A folder store's review: a path, no images inline (a browser on the PR cannot open it).
        let local = CIReview(
            published: ReviewArchive.Published(page: "/store/feature/.reviews/c/r/snapshot-review.html"),
            entries: [entry], accept: nil
        ).markdown()
        #expect(local.contains("[The review page](file:///store/feature/.reviews/c/r/snapshot-review.html)"))
        #expect(!local.contains("<img"))
    }
}
