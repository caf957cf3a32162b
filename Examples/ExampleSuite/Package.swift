// swift-tools-version:6.0
import PackageDescription

// An example package for `pipeline test`: XCTest and Swift Testing tests of varied durations,
// plus hanging, crashing, failing and flaky tests that only misbehave when an environment
// variable asks them to (see README.md beside this file).
let package = Package(
    name: "ExampleSuite",
    products: [.library(name: "ExampleKit", targets: ["ExampleKit"])],
    targets: [
        .target(name: "ExampleKit"),
        .testTarget(name: "ExampleKitTests", dependencies: ["ExampleKit"]),
    ]
)
