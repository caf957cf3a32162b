import Foundation
import Testing

@testable import ImageDiff

/// A scratch folder, removed when the value goes.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("imagediff-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("Image comparison")
struct ImageDiffTests {
    let scratch: Scratch
    init() throws { scratch = try Scratch() }

    /// A 40×30 opaque gradient, and a copy with `changes` pixels altered by `amount`.
    private func pair(changes: Int, amount: UInt8 = 40) -> (RGBAImage, RGBAImage) {
        var pixels: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { pixels += [UInt8(x * 6), UInt8(y * 8), UInt8((x + y) * 3), 255] } }
        let reference = RGBAImage(width: 40, height: 30, pixels: pixels)
        var changed = pixels
        for index in 0..<changes { changed[(index * 37 % 1200) * 4 + 1] &+= amount }
        return (reference, RGBAImage(width: 40, height: 30, pixels: changed))
    }

    @Test("PNG files round-trip through libpng, and a file that is not a PNG is named in one line")
    func roundTrip() throws {
        let (image, _) = pair(changes: 0)
        let file = scratch.url.appendingPathComponent("a b 画像.png")
        try PNG.write(image, to: file)
        #expect(try PNG.read(file) == image)
        let text = scratch.url.appendingPathComponent("not.png")
        try Data("hello".utf8).write(to: text)
        #expect { try PNG.read(text) } throws: { error in
            "\(error)".hasPrefix("\(text.path): not a readable PNG image (")
        }
        #expect(throws: ImageError.self) { try PNG.read(scratch.url.appendingPathComponent("missing.png")) }
    }

    @Test("the differing pixels are counted exactly, with and without a tolerance")
    func counts() {
        let (reference, new) = pair(changes: 25, amount: 40)
        let exact = ImageComparer().compare(reference, new)
        #expect(exact.differingPixels == 25)
        #expect(exact.comparedPixels == 1200)
        #expect(abs(exact.matchRatio - 1175.0 / 1200) < 1e-12)
        #expect(exact.passes(precision: 0.97) && !exact.passes(precision: 0.985))
        #expect(ImageComparer(tolerance: 40).compare(reference, new).differingPixels == 0)
        #expect(ImageComparer(tolerance: 39).compare(reference, new).differingPixels == 25)
    }

    @Test("colours are weighted by alpha, as ImageMagick compares them: an invisible pixel's colour does not count")
    func transparency() {
        let reference = RGBAImage(width: 3, height: 1, pixels: [10, 20, 30, 0, 10, 20, 30, 128, 10, 20, 30, 255])
        let new = RGBAImage(width: 3, height: 1, pixels: [200, 0, 0, 0, 10, 20, 31, 128, 10, 20, 30, 254])
        // Transparent: same. Half transparent, blue off by one: differs. Opaque, alpha off by one: differs.
        #expect(ImageComparer().compare(reference, new).differingPixels == 2)
        #expect(ImageComparer(tolerance: 1).compare(reference, new).differingPixels == 0)
    }

    @Test("different sizes are reported and compared over the common area, never passing")
    func sizes() {
        let (reference, _) = pair(changes: 0)
        let bigger = RGBAImage(width: 50, height: 20, fill: (0, 0, 0, 255))
        let result = ImageComparer().compare(reference, bigger)
        #expect(!result.sameSize)
        #expect(result.comparedPixels == 40 * 20)
        #expect(!result.passes(precision: 0))
        #expect(ImageComparer().overlay(reference, bigger).width == 40)
        #expect(ImageComparer().mask(reference, bigger).height == 20)
    }

    @Test(
        "the overlay tints the reference red over the new image and highlights differences; the mask is black and white"
    )
    func drawing() {
        let reference = RGBAImage(width: 2, height: 1, pixels: [255, 255, 255, 255, 0, 0, 0, 255])
        let new = RGBAImage(width: 2, height: 1, pixels: [0, 0, 255, 255, 9, 0, 0, 255])
        let comparer = ImageComparer(tolerance: 10)
        // Pixel 0 differs (white vs blue): highlighted. Pixel 1 matches within the tolerance:
        // 60% of the reference's luminance (0) in red, 40% of the new pixel (9, 0, 0).
        #expect(comparer.overlay(reference, new).pixels == [255, 230, 0, 255, 4, 0, 0, 255])
        #expect(comparer.mask(reference, new).pixels == [255, 255, 255, 255, 0, 0, 0, 255])
        let same = RGBAImage(width: 1, height: 1, pixels: [100, 150, 200, 255])
        let luma = 0.299 * 100 + 0.587 * 150 + 0.114 * 200
        #expect(comparer.overlay(same, same).pixels == [UInt8((0.6 * luma + 0.4 * 100).rounded()), 60, 80, 255])
    }

    @Test("8- and 16-bit, RGB and RGBA, grey, grey with alpha and palette PNGs all decode to the same pixels")
    func flavours() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("make-pngs.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, scratch.url.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let names = [
            "rgb8", "rgba8", "rgb16", "rgba16", "grey8", "grey16", "greyalpha8", "palette8", "palette4", "palette2",
        ]
        let images = try names.map { try PNG.read(scratch.url.appendingPathComponent("\($0).png")) }
        let levels: [UInt8] = [0, 85, 170, 255]
        var expected: [UInt8] = []
        for y in 0..<5 {
            for x in 0..<7 {
                let g = levels[(x + 2 * y) % 4]
                expected += [g, g, g, 255]
            }
        }
        for (name, image) in zip(names, images) {
            #expect(image.width == 7 && image.height == 5, "\(name)")
            #expect(image.pixels == expected, "\(name) decodes to the same pixels")
        }
    }

    @Test("a truncated PNG, a 100000×100000 header, a missing file: one line each, nothing allocated, no crash")
    func badInput() throws {
        let (image, _) = pair(changes: 0)
        let whole = scratch.url.appendingPathComponent("whole.png")
        try PNG.write(image, to: whole)
        let data = try Data(contentsOf: whole)
        let truncated = scratch.url.appendingPathComponent("truncated.png")
        try data.prefix(data.count / 2).write(to: truncated)
        #expect { try PNG.read(truncated) } throws: {
            "\($0)".hasPrefix("\(truncated.path): not a readable PNG image (")
        }

        // A valid signature and header claiming 100000×100000 pixels, then a little image data.
        func chunk(_ kind: String, _ body: [UInt8]) -> Data {
            var data = Data()
            withUnsafeBytes(of: UInt32(body.count).bigEndian) { data.append(contentsOf: $0) }
            let typed = Data(kind.utf8) + Data(body)
            data.append(typed)
            withUnsafeBytes(of: crc32(typed).bigEndian) { data.append(contentsOf: $0) }
            return data
        }
        var size: [UInt8] = []
        for value in [UInt32(100_000), UInt32(100_000)] { withUnsafeBytes(of: value.bigEndian) { size += $0 } }
        let header =
            Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", size + [8, 6, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]) + chunk("IEND", [])
        let huge = scratch.url.appendingPathComponent("huge.png")
        try header.write(to: huge)
        #expect { try PNG.read(huge) } throws: {
            "\($0)"
                == "\(huge.path): not a readable PNG image (100000×100000 is larger than the 67108864 pixels this tool reads)"
        }
        let missing = scratch.url.appendingPathComponent("missing.png")
        #expect(throws: ImageError.unreadable(path: missing.path, reason: "no such file")) { try PNG.read(missing) }
    }

    @Test("16-bit images are compared at full depth: a change below 1/256 of a channel counts")
    func deep() {
        let reference = RGBAImage(
            width: 2, height: 1, pixels: [1, 1, 1, 255, 2, 2, 2, 255],
            deep: [0x0100, 0x0100, 0x0100, 0xFFFF, 0x0200, 0x0200, 0x0200, 0xFFFF])
        let new = RGBAImage(
            width: 2, height: 1, pixels: [1, 1, 1, 255, 2, 2, 2, 255],
            deep: [0x0101, 0x0100, 0x0100, 0xFFFF, 0x0200, 0x0200, 0x0200, 0xFFFF])
        #expect(ImageComparer().compare(reference, new).differingPixels == 1)
        #expect(ImageComparer(tolerance: 1).compare(reference, new).differingPixels == 0)
    }

    /// The CRC-32 PNG chunks carry.
    private func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

@Suite("the review page says how to accept CI's rendering")
struct ReviewPageAcceptTests {
    let entries = [
        ReviewEntry(key: "BadgeViewTests/test_badge.1.png", status: .failed, new: Data("new".utf8)),
        ReviewEntry(key: "CartTests/test_cart.1.png", status: .written, new: Data("w".utf8)),
        ReviewEntry(key: "LoginTests/<b>.png", status: .failed, new: Data("n".utf8)),
    ]

    @Test("a failed snapshot's card gives its command, selectable into one; other cards give none")
    func commands() {
        let html = ReviewPage.html(
            title: "t", subtitle: "s", entries: entries,
            accept: AcceptCommand(prefix: "pipeline refs accept", options: " --commit abc123"))
        #expect(
            html.contains(
                "<pre id=\"ref-BadgeViewTests_test_badge_1_png-accept\">pipeline refs accept BadgeViewTests --commit abc123</pre>"
            ))
        #expect(
            !html.contains("pipeline refs accept CartTests"),
            "a reference written in CI is not CI's rendering of a failure")
        #expect(html.contains("value=\"LoginTests\""))
        #expect(html.contains("<body data-accept-prefix=\"pipeline refs accept\" data-accept=\" --commit abc123\">"))
        // An inline handler calling select() would call the checkbox's own select(), not the page's.
        #expect(html.contains("onchange=\"buildSelection()\"") && html.contains("function buildSelection()"))
        #expect(html.contains("onclick=\"copyCommand('selected')\"") && html.contains("function copyCommand(id)"))
        #expect(html.components(separatedBy: "class=\"pick\"").count - 1 == 2)
        #expect(!html.contains("<b>.png</pre>"), "names are escaped")
    }

    @Test("a failed text snapshot (.txt, .json, .dump, any non-PNG strategy) offers the command too")
    func textSnapshots() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("review-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var entries: [ReviewEntry] = []
        for (index, ext) in ["txt", "json", "dump", "bin"].enumerated() {
            let reference = folder.appendingPathComponent("ref.\(ext)")
            let new = folder.appendingPathComponent("new.\(ext)")
            try Data((ext == "bin" ? "\u{0}old" : "old").utf8).write(to: reference)
            try Data((ext == "bin" ? "\u{0}new" : "new").utf8).write(to: new)
            entries.append(
                ReviewEntry.comparing(
                    key: "Text\(index)Tests/test_view.1.\(ext)", status: .failed, reference: reference, new: new,
                    comparer: ImageComparer()))
        }
        #expect(entries.allSatisfy { $0.new == nil && $0.hasNewValue })
        let html = ReviewPage.html(
            title: "t", subtitle: "s", entries: entries,
            accept: AcceptCommand(prefix: "pipeline refs accept", options: " --commit abc123"))
        for index in 0..<4 {
            #expect(html.contains(">pipeline refs accept Text\(index)Tests --commit abc123</pre>"))
        }
        #expect(html.components(separatedBy: "class=\"pick\"").count - 1 == 4)
    }

    @Test("without candidates in a store, no card offers a command")
    func none() {
        let html = ReviewPage.html(title: "t", subtitle: "s", entries: entries)
        #expect(!html.contains("-accept\">pipeline refs accept"))
        #expect(!html.contains("class=\"pick\"") && !html.contains("id=\"selection\""))
    }
}
