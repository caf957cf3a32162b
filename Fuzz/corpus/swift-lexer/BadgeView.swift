/// A colour of the app's palette.
public struct RGB: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    public var description: String {
        let digits = Array("0123456789abcdef")
        return "#" + [red, green, blue].map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined()
    }

    public static let white = RGB(255, 255, 255)
}

/// The brand's colours: what a designer changes, and every badge's snapshot with it.
public enum Brand {
    public static let primary = RGB(32, 96, 208)
    public static let accent = RGB(255, 196, 0)
}

/// An image in memory: RGB pixels, rows top to bottom.
public struct Canvas: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [RGB]

    public init(width: Int, height: Int, fill: RGB = .white) {
        precondition(width >= 0 && height >= 0, "negative size")
        self.width = width
        self.height = height
        pixels = Array(repeating: fill, count: width * height)
    }

    public subscript(x: Int, y: Int) -> RGB {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Fills a rectangle, clipped to the canvas.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, with colour: RGB) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) { self[column, row] = colour }
        }
    }
}

/// A small "view" of the app: a badge with a count, drawn as a rounded bar in the brand colour
/// with one accent dot per item (at most 5). Its rendering is what the snapshot tests record.
public struct BadgeView: Equatable, Sendable {
    public var title: String
    public var count: Int
    public var tint: RGB

    public init(title: String, count: Int, tint: RGB = Brand.primary) {
        self.title = title
        self.count = count
        self.tint = tint
    }

    /// The badge drawn on a 64×32 canvas.
    public func render() -> Canvas {
        var canvas = Canvas(width: 64, height: 32)
        canvas.fill(x: 4, y: 6, width: 56, height: 20, with: tint)
        // Rounded corners: the corner pixels stay white.
        for (x, y) in [(4, 6), (59, 6), (4, 25), (59, 25)] { canvas[x, y] = .white }
        for index in 0..<min(count, 5) {
            canvas.fill(x: 10 + index * 10, y: 13, width: 6, height: 6, with: Brand.accent)
        }
        return canvas
    }

    /// The badge's layout as text lines: what a text snapshot records.
    public var layout: String {
        """
        BadgeView "\(title)"
          frame: 64×32, bar at (4, 6) 56×20, tint \(tint)
          items: \(count)\(count > 5 ? " (5 shown)" : "")
        """
    }
}
