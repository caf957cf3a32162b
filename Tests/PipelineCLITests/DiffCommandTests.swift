import Foundation
import ImageDiff
import Testing

@Suite("pipeline refs diff: a reference against a new image")
final class DiffCommandTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("diff-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A 40×30 image, with `changed` pixels recoloured.
    private func image(_ name: String, changed: Int = 0, width: Int = 40) throws -> String {
        var image = RGBAImage(width: width, height: 30, fill: (30, 120, 200, 255))
        for index in 0..<changed { image.pixels[index * 4 * 7] = 250 }
        try PNG.write(image, to: folder.appendingPathComponent(name))
        return name
    }

    private func diff(_ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(["refs", "diff"] + arguments, in: folder)
    }

    @Test("counts the differing pixels, compares with the precision, writes the overlay and the mask")
    func compare() throws {
        let reference = try image("reference.png")
        let new = try image("new.png", changed: 25)
        #expect(
            try diff(reference, reference).stdout
                == "match 100.0000%: 0 of 1200 pixels differ (tolerance 0); precision 0.985: passed\n")
        let failed = try diff(reference, new, "-o", "overlay.png", "--mask", "mask.png")
        #expect(failed.status == 1)
        #expect(failed.stdout == "match 97.9167%: 25 of 1200 pixels differ (tolerance 0); precision 0.985: failed\n")
        #expect(try diff(reference, new, "--precision", "0.97").status == 0)
        #expect(try diff(reference, new, "--tolerance", "255").status == 0, "every channel within the tolerance")
        let overlay = try PNG.read(folder.appendingPathComponent("overlay.png"))
        #expect(overlay.width == 40 && overlay.height == 30)
        let mask = try PNG.read(folder.appendingPathComponent("mask.png"))
        #expect(stride(from: 0, to: mask.pixels.count, by: 4).filter { mask.pixels[$0] == 255 }.count == 25)

        let json = try diff(reference, new, "--json")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((report?["comparison"] as? [String: Any])?["differingPixels"] as? Int == 25)
        #expect(report?["passed"] as? Bool == false)
    }

    @Test("different sizes are reported and fail; a file that is not a PNG is one line, exit 2")
    func badInput() throws {
        let reference = try image("reference.png")
        let wider = try image("wider.png", width: 44)
        let sizes = try diff(reference, wider)
        #expect(sizes.status == 1)
        #expect(sizes.stdout.hasPrefix("sizes differ: reference 40×30, new 44×30; compared over the common 40×30\n"))
        try Data("GIF89a, a GIF header and no PNG at all".utf8).write(to: folder.appendingPathComponent("fake.png"))
        let fake = try diff(reference, "fake.png")
        #expect(fake.status == 2)
        #expect(
            fake.stderr
                == "error: \(folder.appendingPathComponent("fake.png").path): not a readable PNG image (Not a PNG file)\n"
        )
    }
}
