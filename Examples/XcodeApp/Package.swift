// swift-tools-version:6.0
import PackageDescription

// A small iOS "app" for `pipeline`'s Xcode workflows: a UIKit view with snapshot tests written with
// pointfreeco/swift-snapshot-testing, tested by `xcodebuild` on an iPhone simulator (Xcode opens a
// package as a project: `xcodebuild -scheme BadgeUI -destination 'platform=iOS Simulator,…'`).
// On Linux the workflow tests never build it: a stub `xcodebuild` (Tests/XcodeStub) plays Xcode's
// part on its sources. See README.md beside this file.
let package = Package(
    name: "XcodeApp",
    platforms: [.iOS(.v15)],
    products: [.library(name: "BadgeUI", targets: ["BadgeUI"])],
    dependencies: [
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.17.0")
    ],
    targets: [
        .target(name: "BadgeUI"),
        .testTarget(
            name: "BadgeUITests",
            dependencies: [
                "BadgeUI",
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            ]),
    ]
)
