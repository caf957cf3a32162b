#if canImport(UIKit)
    import UIKit

    /// A colour of the app's palette, as 8-bit red, green and blue.
    public struct RGB: Sendable {
        public var red, green, blue: UInt8
        public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }
        public var color: UIColor {
            UIColor(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255, alpha: 1)
        }
    }

    /// The brand's colours: what a designer changes, and every badge's snapshot with it.
    public enum Brand {
        public static let primary = RGB(32, 96, 208)
    }

    /// A badge: a rounded label on the brand's colour.
    public final class BadgeView: UIView {
        public let label = UILabel()

        public init(title: String) {
            super.init(frame: CGRect(x: 0, y: 0, width: 120, height: 40))
            backgroundColor = Brand.primary.color
            layer.cornerRadius = 8
            label.text = title
            label.textColor = .white
            label.textAlignment = .center
            label.frame = bounds
            addSubview(label)
        }

        @available(*, unavailable) required init?(coder: NSCoder) { nil }
    }
#endif

/// Plain logic beside the view, tested without a snapshot.
public enum BadgeCount {
    public static func text(_ count: Int) -> String { count > 99 ? "99+" : String(max(0, count)) }
}
