import ExampleKit
import Foundation
import XCTest

/// Reads a JSON fixture beside the tests, found from `#filePath`: what a designer's colour file
/// would be. A change to the fixture reaches this suite only, through what it read.
final class BrandFixtureTests: XCTestCase {
    func testBrandColoursMatchTheFixture() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/brand.json")
        let colours = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: fixture))
        XCTAssertEqual(colours, ["accent": Brand.accent.description, "white": RGB.white.description])
    }
}

/// Reads a resource the package bundles (`Bundle.module`): the badges a screen shows, each with the
/// accent dots it draws.
final class BadgeResourceTests: XCTestCase {
    struct Expected: Decodable, Equatable {
        var title: String
        var count: Int
        var dots: Int
    }

    func testBadgesDrawTheirDots() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "badges", withExtension: "json"))
        let badges = try JSONDecoder().decode([Expected].self, from: Data(contentsOf: url))
        XCTAssertEqual(badges.map(\.title), ["Inbox", "Sent", "Drafts"])
        for badge in badges {
            let canvas = BadgeView(title: badge.title, count: badge.count).render()
            XCTAssertEqual(canvas.pixels.filter { $0 == Brand.accent }.count, badge.dots * 36, badge.title)
            XCTAssertTrue(BadgeView(title: badge.title, count: badge.count).layout.contains("items: \(badge.count)"))
        }
    }
}
