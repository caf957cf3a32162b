/// A tiny image model, so the example tests have something real to check.
public struct Thumbnail: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, fill: UInt8 = 0) {
        precondition(width >= 0 && height >= 0, "negative size")
        self.width = width
        self.height = height
        self.pixels = Array(repeating: fill, count: width * height)
    }

    /// Scales by an integer factor, repeating each pixel.
    public func scaled(by factor: Int) -> Thumbnail {
        var result = Thumbnail(width: width * factor, height: height * factor)
        for y in 0..<result.height {
            for x in 0..<result.width {
                result.pixels[y * result.width + x] = pixels[(y / factor) * width + x / factor]
            }
        }
        return result
    }

    /// The share of pixels equal in both images (1 when both are empty).
    public func matchRatio(_ other: Thumbnail) -> Double {
        guard width == other.width, height == other.height else { return 0 }
        guard !pixels.isEmpty else { return 1 }
        let same = zip(pixels, other.pixels).filter { $0 == $1 }.count
        return Double(same) / Double(pixels.count)
    }
}
