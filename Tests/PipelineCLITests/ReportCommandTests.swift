import Foundation
import ImageDiff
import Testing

@Suite("pipeline refs report: one self-contained review page")
final class ReportCommandTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // develop (reference) and feature (new) as folders: one slightly and one badly changed
        // image, one new test, one removed test, one unchanged image.
        func put(_ side: String, _ key: String, _ image: RGBAImage) throws {
            let url = folder.appendingPathComponent("\(side)/\(key)")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try PNG.write(image, to: url)
        }
        let base = RGBAImage(width: 60, height: 40, fill: (40, 110, 220, 255))
        var slightly = base
        var badly = base
        for index in 0..<12 { slightly.pixels[index * 4] = 250 }
        for index in 0..<1200 { badly.pixels[index * 4 + 1] = 10 }
        try put("develop", "LoginTests/slight.png", base)
        try put("feature", "LoginTests/slight.png", slightly)
        try put("develop", "ProfileTests/bad.png", base)
        try put("feature", "ProfileTests/bad.png", badly)
        try put("develop", "ProfileTests/same.png", base)
        try put("feature", "ProfileTests/same.png", base)
        try put("feature", "NewTests/n.png", base)
        try put("develop", "GoneTests/g.png", base)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    private func report() throws -> String {
        let result = try PipelineBinary.run(
            [
                "refs", "report", "--all", "--new-folder", "feature", "--reference-folder", "develop",
                "-o", "review.html",
            ], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("review.html: 2 changed, 1 new, 1 removed\n"), "\(result.stdout)")
        return try String(contentsOf: folder.appendingPathComponent("review.html"), encoding: .utf8)
    }

    @Test("lists new, removed and changed references, worst first, with inline images only")
    func page() throws {
        let html = try report()
        let keys = html.matches(of: /<h2>([^<]+)<span/).map { String($0.1) }
        #expect(keys == ["ProfileTests/bad.png", "LoginTests/slight.png", "NewTests/n.png", "GoneTests/g.png"])
        #expect(html.contains("match 50.000%: 1200 of 2400 pixels differ"))
        #expect(html.contains("match 99.500%: 12 of 2400 pixels differ"))
        #expect(
            html.matches(of: /src="data:image\/png;base64,/).count == 2 * 3 + 1 + 1,
            "reference, new, overlay per change")
        #expect(!html.contains("http://") && !html.contains("https://"), "no network")
        #expect(html.contains("id=\"filter\""))

        let named = try PipelineBinary.run(
            [
                "refs", "report", "LoginTests", "--new-folder", "feature", "--reference-folder", "develop",
                "-o", "login.html",
            ], in: folder)
        #expect(named.stdout.hasSuffix("login.html: 1 changed, 0 new, 0 removed\n"), "\(named.stdout)")
        // Without -o: beside pipeline's other outputs, not in the repository's tree.
        let unnamed = try PipelineBinary.run(
            ["refs", "report", "LoginTests", "--new-folder", "feature", "--reference-folder", "develop"], in: folder)
        #expect(unnamed.stdout.hasSuffix(".build/pipeline/reference-review.html: 1 changed, 0 new, 0 removed\n"))
        #expect(
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(".build/pipeline/reference-review.html").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("reference-review.html").path))
        let outside = try PipelineBinary.run(
            ["refs", "report", "--new-folder", "feature", "--reference-folder", "develop"], in: folder)
        #expect(outside.status == 4)
        #expect(outside.stderr.contains("pass --all, or name the tests"), "\(outside.stderr)")
    }

    @Test(
        "opens in a real browser: headless Chromium renders it to a screenshot with the changed badge",
        .enabled(if: Browser.chromium != nil, "needs Chromium (scripts/test.sh installs it)"))
    func browser() throws {
        _ = try report()
        let image = try Browser.screenshot(
            of: folder.appendingPathComponent("review.html").absoluteString, scratch: folder)
        #expect(image.width == 1000 && image.height == 800)
        #expect(Browser.badgePixels(image) > 50, "\(Browser.badgePixels(image)) badge pixels")
    }
}
