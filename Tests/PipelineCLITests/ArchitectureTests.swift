import Foundation
import Testing

/// Package.swift is the authority on which library may import which; docs/architecture.md draws
/// it, and each library's imports are what it declares. A change to one that is not made in the
/// others fails here.
@Suite("the architecture as written: Package.swift, the imports, docs/architecture.md")
struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each target's name, kind and declared dependencies (products by name), read from Package.swift.
    static func declared() throws -> [String: (kind: String, dependencies: Set<String>)] {
        var text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        text.replace(/\.product\(name:\s*"(?<name>[^"]+)"[^)]*\)/) { "\"\($0.output.name)\"" }
        let start = /\.(?<kind>target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"(?<name>[^"]+)"/
        let starts = text.matches(of: start)
        var targets: [String: (kind: String, dependencies: Set<String>)] = [:]
        for (index, match) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : text.endIndex
            let body = text[match.range.upperBound..<end]
            var dependencies: Set<String> = []
            if let list = body.firstMatch(of: /dependencies:\s*\[(?<list>[^\]]*)\]/) {
                dependencies = Set(list.output.list.matches(of: /"(?<name>[^"]+)"/).map { String($0.output.name) })
            }
            targets[String(match.output.name)] = (String(match.output.kind), dependencies)
        }
        return targets
    }

    /// The modules a folder's Swift files import (`@testable` included).
    static func imports(in folder: URL) throws -> Set<String> {
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                if let match = line.wholeMatch(of: /(?:@testable )?import (?<module>\w+)/) {
                    modules.insert(String(match.output.module))
                }
            }
        }
        return modules
    }

    @Test("every Swift target imports exactly the package's targets it declares")
    func importsAreDeclared() throws {
        let targets = try Self.declared()
        #expect(targets.count > 20, "Package.swift was not read: \(targets.keys.sorted())")
        for (name, target) in targets where ["target", "executableTarget", "testTarget"].contains(target.kind) {
            let folder =
                target.kind == "testTarget" || name == "TestSupport"
                ? Self.root.appendingPathComponent("Tests/\(name)")
                : Self.root.appendingPathComponent("Sources/\(name)")
            let all = try Self.imports(in: folder)
            // C targets include their headers from C; an executable a test target depends on is built, not imported.
            guard !all.isEmpty else { continue }
            let imported = all.intersection(targets.keys)
            let importable = target.dependencies.filter { targets[$0]?.kind != "executableTarget" }
            let declared = importable.intersection(targets.keys)
            #expect(
                imported == declared,
                "\(name) imports \(imported.subtracting(declared).sorted()) undeclared, declares \(declared.subtracting(imported).sorted()) unused"
            )
        }
    }

    @Test("docs/architecture.md's arrows are Package.swift's dependencies, library by library")
    func diagramIsTrue() throws {
        let targets = try Self.declared().filter { ["target", "executableTarget"].contains($0.value.kind) }
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var drawn: [String: Set<String>] = [:]
        for match in doc.matches(of: /(?m)^(?<name>[\w-]+) +─▶ (?<list>.+)$/) {
            drawn[String(match.output.name)] = Set(
                match.output.list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        let expected = targets.filter { !$0.value.dependencies.isEmpty }.mapValues(\.dependencies)
        let lines = expected.keys.sorted().map { "\($0) ─▶ \(expected[$0]!.sorted().joined(separator: ", "))" }
        let wrong = Set(drawn.keys).union(expected.keys).filter { drawn[$0] != expected[$0] }.sorted()
        #expect(
            wrong.isEmpty,
            "docs/architecture.md draws \(wrong.joined(separator: ", ")) wrongly; it should draw:\n\(lines.joined(separator: "\n"))"
        )
    }

    @Test("the flows' libraries keep to their own: Pipelines imports at most 8, References no test runner")
    func flowsKeepApart() throws {
        let targets = try Self.declared()
        let ours = Set(targets.keys)
        #expect(try #require(targets["Pipelines"]).dependencies.intersection(ours).count <= 8)
        #expect(try #require(targets["References"]).dependencies.isDisjoint(with: ["TestSharding", "TestImpact"]))
        #expect(try #require(targets["Coverage"]).dependencies.contains("TestSharding") == false)
        #expect(try #require(targets["ReadTracing"]).dependencies.contains("TestSharding") == false)
    }
}
