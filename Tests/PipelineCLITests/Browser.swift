import Foundation
import ImageDiff

/// Headless Chromium (scripts/test.sh installs it), rendering a page to a screenshot.
enum Browser {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `address` (a file or http URL) rendered at 1000×800, with a profile in `scratch`.
    static func screenshot(of address: String, scratch: URL) throws -> RGBAImage {
        let shot = scratch.appendingPathComponent("shot-\(UUID().uuidString).png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium!)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1000,800",
            "--user-data-dir=\(scratch.appendingPathComponent("profile").path)", "--screenshot=\(shot.path)", address,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return try PNG.read(shot)
    }

    /// Pixels of the review page's red "changed" badge (#d70015).
    static func badgePixels(_ image: RGBAImage) -> Int {
        stride(from: 0, to: image.pixels.count, by: 4).filter {
            abs(Int(image.pixels[$0]) - 0xd7) < 8 && image.pixels[$0 + 1] < 12
                && abs(Int(image.pixels[$0 + 2]) - 0x15) < 8
        }.count
    }
}
