// swift-tools-version:6.0
import PackageDescription

// An example package for `pipeline`: XCTest and Swift Testing tests of varied durations, snapshot
// tests written with pointfreeco/swift-snapshot-testing (text strategies and a PNG strategy of
// its own, since the library's image strategies need UIKit or AppKit), plus hanging, crashing,
// failing and flaky tests that only misbehave when an environment variable asks them to (see
// README.md beside this file).
let package = Package(
    name: "ExampleSuite",
    products: [.library(name: "ExampleKit", targets: ["ExampleKit"])],
    dependencies: [
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.17.0"),
    ],
    targets: [
        .target(name: "ExampleKit"),
        .testTarget(name: "ExampleKitTests", dependencies: [
            "ExampleKit",
            .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
        ], exclude: ["Fixtures"], resources: [.copy("Resources/badges.json")]),
    ]
)
