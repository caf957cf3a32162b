/// How two images compare, pixel by pixel, over the area they share.
public struct ImageComparison: Sendable, Equatable, Encodable {
    public struct Size: Sendable, Equatable, Encodable, CustomStringConvertible {
        public let width: Int
        public let height: Int
        public var description: String { "\(width)×\(height)" }
    }

    public let reference: Size
    public let new: Size
    /// Pixels of the common area (all of them when the sizes match).
    public let comparedPixels: Int
    /// Pixels of the common area where some channel differs by more than the tolerance.
    public let differingPixels: Int
    public let tolerance: Int

    public var sameSize: Bool { reference == new }
    /// The share of matching pixels of the common area, 0…1.
    public var matchRatio: Double {
        comparedPixels == 0 ? 0 : Double(comparedPixels - differingPixels) / Double(comparedPixels)
    }

    /// Whether a snapshot test would accept the new image: same size, and at least `precision` matching.
    public func passes(precision: Double) -> Bool { sameSize && matchRatio >= precision }
}

/// Compares a reference image with a new one and draws what differs.
public struct ImageComparer: Sendable {
    /// The largest difference of any channel (0–255; colours weighted by alpha) still counted as the same pixel.
    public let tolerance: Int

    public init(tolerance: Int = 0) {
        self.tolerance = max(0, min(255, tolerance))
    }

    public func compare(_ reference: RGBAImage, _ new: RGBAImage) -> ImageComparison {
        var differing = 0
        forEachPixel(reference, new) { _, differs, _, _ in if differs { differing += 1 } }
        return ImageComparison(
            reference: .init(width: reference.width, height: reference.height),
            new: .init(width: new.width, height: new.height),
            comparedPixels: min(reference.width, new.width) * min(reference.height, new.height),
            differingPixels: differing, tolerance: tolerance)
    }

    /// The new image (over white) with the reference tinted red by a colour matrix (its luminance
    /// in the red channel) blended over it at `opacity`, and the differing pixels in `highlight`.
    /// Its size is the common area.
    public func overlay(
        _ reference: RGBAImage, _ new: RGBAImage, opacity: Double = 0.6,
        highlight: (UInt8, UInt8, UInt8) = (255, 230, 0)
    ) -> RGBAImage {
        let width = min(reference.width, new.width)
        let height = min(reference.height, new.height)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let keep = 1 - opacity
        forEachPixel(reference, new) { index, differs, r, n in
            let out = index * 4
            if differs {
                (pixels[out], pixels[out + 1], pixels[out + 2]) = highlight
                return
            }
            let (red, green, blue) = Self.overWhite(n)
            let tint = Self.luminance(Self.overWhite(r))
            pixels[out] = UInt8((opacity * tint + keep * red).rounded())
            pixels[out + 1] = UInt8((keep * green).rounded())
            pixels[out + 2] = UInt8((keep * blue).rounded())
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// White where the pixels differ, black where they match; the common area.
    public func mask(_ reference: RGBAImage, _ new: RGBAImage) -> RGBAImage {
        let width = min(reference.width, new.width)
        let height = min(reference.height, new.height)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        forEachPixel(reference, new) { index, differs, _, _ in
            let value: UInt8 = differs ? 255 : 0
            (pixels[index * 4], pixels[index * 4 + 1], pixels[index * 4 + 2]) = (value, value, value)
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    typealias Pixel = (UInt8, UInt8, UInt8, UInt8)

    /// Visits the common area row by row: the pixel's index in it, whether it differs, and both pixels.
    /// Two 16-bit images are compared at full depth; otherwise at 8 bits.
    private func forEachPixel(_ reference: RGBAImage, _ new: RGBAImage, _ body: (Int, Bool, Pixel, Pixel) -> Void) {
        let width = min(reference.width, new.width)
        let height = min(reference.height, new.height)
        let tolerance = self.tolerance
        let deep = reference.deep.flatMap { a in new.deep.map { b in (a, b) } }
        reference.pixels.withUnsafeBufferPointer { a in
            new.pixels.withUnsafeBufferPointer { b in
                for y in 0..<height {
                    var i = y * reference.width * 4
                    var j = y * new.width * 4
                    for x in 0..<width {
                        let r = (a[i], a[i + 1], a[i + 2], a[i + 3])
                        let n = (b[j], b[j + 1], b[j + 2], b[j + 3])
                        let differs: Bool
                        if let (p, q) = deep {
                            // Premultiplied already; a tolerance in 8-bit steps is 257 16-bit steps.
                            let limit = tolerance * 257
                            differs =
                                abs(Int(p[i]) - Int(q[j])) > limit || abs(Int(p[i + 1]) - Int(q[j + 1])) > limit
                                || abs(Int(p[i + 2]) - Int(q[j + 2])) > limit
                                || abs(Int(p[i + 3]) - Int(q[j + 3])) > limit
                        } else {
                            // Colours are compared weighted by their alpha, as ImageMagick's compare does:
                            // an invisible pixel's colour does not matter.
                            let limit = tolerance * 255
                            let ra = Int(r.3)
                            let na = Int(n.3)
                            differs =
                                abs(Int(r.3) - Int(n.3)) > tolerance
                                || abs(Int(r.0) * ra - Int(n.0) * na) > limit
                                || abs(Int(r.1) * ra - Int(n.1) * na) > limit
                                || abs(Int(r.2) * ra - Int(n.2) * na) > limit
                        }
                        body(y * width + x, differs, r, n)
                        i += 4
                        j += 4
                    }
                }
            }
        }
    }

    /// A pixel composited over white.
    private static func overWhite(_ p: Pixel) -> (Double, Double, Double) {
        let alpha = Double(p.3) / 255
        return (
            Double(p.0) * alpha + 255 * (1 - alpha), Double(p.1) * alpha + 255 * (1 - alpha),
            Double(p.2) * alpha + 255 * (1 - alpha)
        )
    }

    /// Rec. 601 luma: the colour matrix row that puts a pixel's brightness in the red channel.
    private static func luminance(_ c: (Double, Double, Double)) -> Double {
        0.299 * c.0 + 0.587 * c.1 + 0.114 * c.2
    }
}
