import CPNG
import Foundation
import PipelineCore

/// An image in memory: 8-bit RGBA, rows top to bottom, `width * height * 4` bytes.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]
    /// For a 16-bit PNG, its samples at full depth (RGBA, colour premultiplied by alpha, as libpng
    /// gives 16-bit data), so a change below 1/256 of a channel still counts; nil for 8-bit images.
    public var deep: [UInt16]?

    public init(width: Int, height: Int, pixels: [UInt8], deep: [UInt16]? = nil) {
        precondition(pixels.count == width * height * 4, "RGBA needs 4 bytes a pixel")
        precondition(deep == nil || deep!.count == pixels.count, "16-bit RGBA needs 4 samples a pixel")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.deep = deep
    }

    /// A plain image of one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8)) {
        self.init(
            width: width, height: height,
            pixels: Array((0..<width * height).lazy.flatMap { _ in [fill.0, fill.1, fill.2, fill.3] }))
    }
}

/// Why an image could not be read or written. Each reads as one line naming the file.
public enum ImageError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): not a readable PNG image (\(reason))"
        case .unwritable(let path, let reason): "\(path): cannot write the PNG image (\(reason))"
        }
    }
}

/// PNG files through libpng's simplified API, which turns every PNG flavour (1–16-bit, palette,
/// grey, with or without alpha) into 8-bit RGBA. Each `png_image` has one owner that frees it.
public enum PNG {
    /// The largest image read: 8K × 8K. A bigger header is refused before anything is allocated.
    public static let maximumPixels = 1 << 26

    public static func read(_ url: URL) throws(ImageError) -> RGBAImage {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .unreadable(path: url.path, reason: "no such file")
        }
        let control = Control()
        try control.check(png_image_begin_read_from_file(control.image, url.path), .unreadable, url)
        let sixteenBit = control.image.pointee.format & pipeline_png_format_flag_linear != 0
        control.image.pointee.format = pipeline_png_format_rgba
        // A 16-bit PNG with no gAMA or sRGB chunk is sRGB, as every image tool writes and reads it
        // (libpng would otherwise take it as linear and brighten it).
        control.image.pointee.flags |= pipeline_png_flag_16bit_srgb
        let width = Int(control.image.pointee.width)
        let height = Int(control.image.pointee.height)
        guard width > 0, height > 0, width <= maximumPixels, height <= maximumPixels, width * height <= maximumPixels
        else {
            throw .unreadable(
                path: url.path, reason: "\(width)×\(height) is larger than the \(maximumPixels) pixels this tool reads")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let read = pixels.withUnsafeMutableBytes { png_image_finish_read(control.image, nil, $0.baseAddress, 0, nil) }
        try control.check(read, .unreadable, url)
        return RGBAImage(width: width, height: height, pixels: pixels, deep: sixteenBit ? try samples(url) : nil)
    }

    /// A 16-bit PNG's samples unconverted: libpng's 16-bit "linear" format is the file's own values
    /// when the file names no gamma, with colour premultiplied by alpha.
    private static func samples(_ url: URL) throws(ImageError) -> [UInt16] {
        let control = Control()
        try control.check(png_image_begin_read_from_file(control.image, url.path), .unreadable, url)
        control.image.pointee.format = pipeline_png_format_linear_rgba
        var samples = [UInt16](
            repeating: 0, count: Int(control.image.pointee.width) * Int(control.image.pointee.height) * 4)
        let read = samples.withUnsafeMutableBytes { png_image_finish_read(control.image, nil, $0.baseAddress, 0, nil) }
        try control.check(read, .unreadable, url)
        return samples
    }

    public static func write(_ image: RGBAImage, to url: URL) throws(ImageError) {
        let control = Control()
        control.image.pointee.width = png_uint_32(image.width)
        control.image.pointee.height = png_uint_32(image.height)
        control.image.pointee.format = pipeline_png_format_rgba
        // Written beside the target and renamed over it: a reader never sees half a file.
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let written = image.pixels.withUnsafeBytes {
            png_image_write_to_file(control.image, temporary.path, 0, $0.baseAddress, 0, nil)
        }
        try control.check(written, .unwritable, url)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .unwritable(path: url.path, reason: reason)
        }
    }

    /// Owns one `png_image` control structure and frees what libpng allocated for it. The
    /// structure lives at one address from `init` to `deinit`, on the heap: libpng keeps a pointer
    /// to it (its error handler writes `message` there) from the first call to `png_image_free`.
    private final class Control {
        let image: UnsafeMutablePointer<png_image>

        init() {
            image = .allocate(capacity: 1)
            image.initialize(to: png_image())
            image.pointee.version = pipeline_png_image_version
        }

        deinit {
            png_image_free(image)
            image.deinitialize(count: 1)
            image.deallocate()
        }

        enum Direction { case unreadable, unwritable }

        /// The one check every libpng call goes through: 0 is failure, and the reason is in `message`.
        func check(_ result: Int32, _ direction: Direction, _ url: URL) throws(ImageError) {
            guard result == 0 else { return }
            let reason = withUnsafeBytes(of: image.pointee.message) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            switch direction {
            case .unreadable: throw .unreadable(path: url.path, reason: reason.isEmpty ? "libpng failed" : reason)
            case .unwritable: throw .unwritable(path: url.path, reason: reason.isEmpty ? "libpng failed" : reason)
            }
        }
    }
}

extension ImageError: ExitCoded {
    public var exitStatus: ExitStatus { .usage }
}
