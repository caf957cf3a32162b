import Foundation
import ImageDiff

/// `refs diff`: a reference image against a new one, with the overlay and mask written where asked.
public struct ImageCheck: Sendable, Encodable {
    public let reference: String
    public let new: String
    public let comparison: ImageComparison
    public let matchRatio: Double
    public let precision: Double
    public let passed: Bool
    public let overlay: String?
    public let mask: String?
    let tolerance: Int

    /// Compares the images at `reference` and `new` (paths as given, resolved by `resolve`).
    public init(
        reference: String, new: String, precision: Double, tolerance: Int, overlay: String?, mask: String?,
        resolve: (String) -> URL
    ) throws {
        let referenceImage = try PNG.read(resolve(reference))
        let newImage = try PNG.read(resolve(new))
        let comparer = ImageComparer(tolerance: tolerance)
        let comparison = comparer.compare(referenceImage, newImage)
        if let overlay { try PNG.write(comparer.overlay(referenceImage, newImage), to: resolve(overlay)) }
        if let mask { try PNG.write(comparer.mask(referenceImage, newImage), to: resolve(mask)) }
        self.reference = reference
        self.new = new
        self.comparison = comparison
        matchRatio = comparison.matchRatio
        self.precision = precision
        passed = comparison.passes(precision: precision)
        self.overlay = overlay
        self.mask = mask
        self.tolerance = tolerance
    }

    private enum CodingKeys: String, CodingKey {
        case reference, new, comparison, matchRatio, precision, passed, overlay, mask
    }

    /// The comparison for people: a size note when the sizes differ, then the match.
    public func render() -> [String] {
        var lines: [String] = []
        if !comparison.sameSize {
            lines.append(
                "sizes differ: reference \(comparison.reference), new \(comparison.new); "
                    + "compared over the common \(min(comparison.reference.width, comparison.new.width))×"
                    + "\(min(comparison.reference.height, comparison.new.height))")
        }
        lines.append(
            String(format: "match %.4f%%: ", comparison.matchRatio * 100)
                + "\(comparison.differingPixels) of \(comparison.comparedPixels) pixels differ (tolerance \(tolerance)); "
                + "precision \(precision): \(passed ? "passed" : "failed")")
        return lines
    }
}
