import Foundation
import Testing

@testable import TestImpact

@Suite("the manifest by what SwiftPM reads in it, Package.resolved by the pins that moved")
struct ManifestChangeTests {
    static let manifest = """
        // swift-tools-version:5.9
        import PackageDescription

        let package = Package(
            name: "App",
            dependencies: [.package(url: "https://github.com/apple/swift-algorithms", from: "1.2.0")],
            targets: [
                .target(name: "Core"),
                .target(name: "UI", dependencies: ["Core"]),
                .testTarget(name: "CoreTests", dependencies: ["Core"]),
                .testTarget(name: "UITests", dependencies: ["UI"]),
            ]
        )
        """

    @Test(
        "a trait the build does not enable changes nothing; one enabled by default runs everything; an unread manifest runs nothing"
    )
    func traitsAndVersions() {
        func manifest(_ traits: [[String: Any]]) -> [String: Any] {
            ["name": "App", "traits": traits, "targets": [["name": "Core"]]]
        }
        let base: [[String: Any]] = [
            ["name": "default", "enabledTraits": ["Fast"]], ["name": "Fast", "enabledTraits": []],
        ]
        let extra = base + [["name": "Extra", "enabledTraits": ["Fast"]]]
        #expect(ManifestChange.compare(old: manifest(base), new: manifest(extra)) == .nothing, "declared, not enabled")
        let enabled: [[String: Any]] = [["name": "default", "enabledTraits": ["Fast", "Extra"]]] + extra.dropFirst()
        #expect(
            ManifestChange.compare(old: manifest(base), new: manifest(enabled))
                == .everything("Package.swift changes the traits the build enables by default (Extra)"))
        #expect(
            ManifestChange.compare(old: manifest(base), new: manifest(extra), arguments: ["--traits", "Fast"])
                == .everything("Package.swift changes the package's traits"), "the run asks for traits of its own")
        // A setting or dependency conditioned on a trait the build does not enable is not built.
        func target(_ settings: [Any]) -> [String: Any] {
            ["name": "App", "traits": extra, "targets": [["name": "Core", "settings": settings]]]
        }
        let define: [String: Any] = [
            "tool": "swift", "kind": ["define": ["_0": "WIDE"]],
            "condition": ["platformNames": [], "traits": ["Extra"]],
        ]
        #expect(ManifestChange.compare(old: target([]), new: target([define])) == .nothing, "Extra is not enabled")
        #expect(
            ManifestChange.compare(old: target([]), new: target([define]), arguments: ["--traits", "Extra"])
                == .targets(["Core": "Package.swift changes its settings"]))
        let names = ["Package.swift", "Package@swift-5.8.swift", "Package@swift-6.0.swift", "Package@swift-7.swift"]
        #expect(ManifestChange.chosen(among: names, toolchain: [6, 3, 1]) == "Package@swift-6.0.swift")
        #expect(ManifestChange.chosen(among: names, toolchain: [5, 7, 0]) == "Package.swift")
        #expect(
            ManifestChange.chosen(among: ["Package.swift", "Package@swift-6.3.1.swift"], toolchain: [6, 3, 1])
                == "Package@swift-6.3.1.swift")
    }

    @Test("the same package written otherwise runs nothing; a target's settings run it; dependencies run everything")
    func readBySwiftPM() async throws {
        // The same target built by a constant: the text differs, the package does not.
        let moved = Self.manifest.replacingOccurrences(
            of: "let package", with: "let core = Target.target(name: \"Core\")\nlet package"
        )
        .replacingOccurrences(of: #"        .target(name: "Core"),"#, with: "        core,")
        #expect(await ManifestChange.read(old: Self.manifest, new: moved) == .nothing)
        let settings = Self.manifest.replacingOccurrences(
            of: #".target(name: "UI", dependencies: ["Core"]),"#,
            with: #".target(name: "UI", dependencies: ["Core"], swiftSettings: [.define("FAST")]),"#)
        #expect(
            await ManifestChange.read(old: Self.manifest, new: settings)
                == .targets(["UI": "Package.swift changes its settings"]))
        let dependency = Self.manifest.replacingOccurrences(of: "1.2.0", with: "1.2.1")
        #expect(
            await ManifestChange.read(old: Self.manifest, new: dependency)
                == .everything("Package.swift changes the package's dependencies"))
        guard case .everything(let why) = await ManifestChange.read(old: Self.manifest, new: "let x = ") else {
            Issue.record("a manifest SwiftPM cannot read did not run everything")
            return
        }
        #expect(why.hasPrefix("SwiftPM cannot read Package.swift as it was now"), "\(why)")
    }

    @Test("the selection: nothing, the targets' graph, or everything, each said")
    func selection() {
        let change = ImpactChange(path: "Package.swift", old: "let a = 1", new: "let a = 2")
        let same = ImpactSelection.select(
            map: ImpactTests.map, changes: [change], current: ImpactTests.current,
            manifests: ["Package.swift": .nothing])
        #expect(same.everything == nil && same.suites.isEmpty && same.fallbackTargets.isEmpty)
        #expect(same.notes.first?.contains("SwiftPM reads the same package before and after") == true)
        let target = ImpactSelection.select(
            map: ImpactTests.map, changes: [change], current: ImpactTests.current,
            manifests: ["Package.swift": .targets(["UI": "Package.swift changes its settings"])])
        #expect(target.everything == nil && target.fallbackTargets == ["UI": "Package.swift changes its settings"])
        let unread = ImpactSelection.select(map: ImpactTests.map, changes: [change], current: ImpactTests.current)
        #expect(unread.everything == "Package.swift changed: every test")
        #expect(
            PackageGraph(targets: [
                .init(name: "UI", c99name: "UI", path: "Sources/UI", type: "library"),
                .init(
                    name: "UITests", c99name: "UITests", path: "Tests/UITests", type: "test", targetDependencies: ["UI"]
                ),
                .init(name: "CoreTests", c99name: "CoreTests", path: "Tests/CoreTests", type: "test"),
            ]).affected(by: [], targets: ["UI": "Package.swift changes its settings"])
                == .targets(["UITests": "it depends on UI, which changed (Package.swift changes its settings)"]))
    }

    static func resolved(_ pins: [(String, String)]) -> String {
        let list = pins.map { identity, version in
            #"{"identity": "\#(identity)", "kind": "remoteSourceControl", "location": "https://github.com/o/\#(identity).git", "#
                + #""state": {"revision": "\#(version)abc", "version": "\#(version)"}}"#
        }
        return #"{"originHash": "x", "pins": ["# + list.joined(separator: ", ") + #"], "version": 3}"#
    }

    @Test("a moved pin runs the suites that executed that dependency; macros and plugins, or an old map, everything")
    func resolvedPins() throws {
        let checkouts = FileManager.default.temporaryDirectory.appendingPathComponent("checkouts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: checkouts) }
        for (name, manifest) in [
            ("swift-parsing", "let package = Package(targets: [.target(name: \"Parsing\")])"),
            ("Swift-Log", "let package = Package(targets: [.target(name: \"Logging\")])"),
            ("swift-macros", "let package = Package(targets: [.macro(name: \"M\")])"),
        ] {
            try FileManager.default.createDirectory(
                at: checkouts.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data(manifest.utf8).write(to: checkouts.appendingPathComponent("\(name)/Package.swift"))
        }
        let old = Self.resolved([("swift-parsing", "1.0.0"), ("swift-log", "1.5.0"), ("swift-macros", "1.0.0")])
        let parsing = Self.resolved([("swift-parsing", "1.1.0"), ("swift-log", "1.5.0"), ("swift-macros", "1.0.0")])
        let change = try #require(ResolvedChange.read(old: old, new: parsing, checkouts: checkouts))
        #expect(change == ResolvedChange(moved: ["swift-parsing"]))
        var map = ImpactTests.map
        map.dependencies = [
            "AppTests.ParserTests": ["swift-parsing"], "AppTests.ViewTests": ["Swift-Log"],
            "AppTests.BadgeViewTests": [],
        ]
        let edit = ImpactChange(path: "Package.resolved", old: old, new: parsing)
        let selection = ImpactSelection.select(
            map: map, changes: [edit], current: ImpactTests.current, resolved: change)
        #expect(selection.everything == nil)
        #expect(
            selection.suites == ["AppTests.ParserTests": "executed swift-parsing, whose pin moved in Package.resolved"])
        // The checkout's folder may keep capitals the identity does not.
        let log = Self.resolved([("swift-parsing", "1.0.0"), ("swift-log", "1.6.0"), ("swift-macros", "1.0.0")])
        let logged = try #require(ResolvedChange.read(old: old, new: log, checkouts: checkouts))
        #expect(
            ImpactSelection.select(map: map, changes: [edit], current: ImpactTests.current, resolved: logged).suites
                == ["AppTests.ViewTests": "executed swift-log, whose pin moved in Package.resolved"])
        let macros = Self.resolved([("swift-parsing", "1.0.0"), ("swift-log", "1.5.0"), ("swift-macros", "2.0.0")])
        let built = try #require(ResolvedChange.read(old: old, new: macros, checkouts: checkouts))
        #expect(built.buildTime == ["swift-macros"])
        #expect(
            ImpactSelection.select(map: map, changes: [edit], current: ImpactTests.current, resolved: built).everything
                == "Package.resolved moves swift-macros, whose macros or plugins run while building: every test")
        #expect(
            ImpactSelection.select(
                map: ImpactTests.map, changes: [edit], current: ImpactTests.current, resolved: change
            )
            .everything == "Package.resolved changed: every test", "a map without dependencies")
        // Version 1's layout reads too; what is not a resolved file is nil.
        let v1 =
            #"{"object": {"pins": [{"package": "Parsing", "repositoryURL": "https://github.com/o/swift-parsing.git", "state": {"version": "1.0.0"}}]}, "version": 1}"#
        #expect(ResolvedChange.pins(v1) == ["swift-parsing": #"{"version":"1.0.0"}"#])
        #expect(ResolvedChange.read(old: "{", new: old, checkouts: checkouts) == nil)
    }
}
