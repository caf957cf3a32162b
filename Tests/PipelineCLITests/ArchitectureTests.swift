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

    @Test("the flows' libraries keep to their own: at most 8 imports each, References no test runner")
    func flowsKeepApart() throws {
        let targets = try Self.declared()
        let ours = Set(targets.keys)
        // The CLI and the one test flow wire everything; the fuzz harness imports every reader.
        for (name, target) in targets
        where target.kind == "target" && !["PipelineCLI", "TestRun", "FuzzTargets"].contains(name) {
            let imported = target.dependencies.intersection(ours)
            #expect(imported.count <= 8, "\(name) imports \(imported.count) libraries: \(imported.sorted())")
        }
        // The one test flow orders its phases; what it imports grows only by a feature library whose
        // phase it orders (13 with TestHistory), never by a feature's logic moving in.
        let flow = try #require(targets["TestRun"]).dependencies.intersection(ours)
        #expect(flow.count <= 13, "TestRun imports \(flow.count) libraries: \(flow.sorted())")
        #expect(try #require(targets["References"]).dependencies.isDisjoint(with: ["TestSharding", "TestImpact"]))
        let runnerImporters = targets.filter {
            $0.value.kind == "target" && $0.value.dependencies.contains("TestSharding")
        }
        #expect(runnerImporters.count <= 3, "TestSharding is imported by \(runnerImporters.keys.sorted())")
    }

    @Test("TestFlow.run() stays a short sequence: its phases in their steps' order, at most 60 lines")
    func flowIsPhases() throws {
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/TestRun/TestFlow.swift"), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.contains("public func run() async throws -> TestOutcome {") })
        var depth = 0
        var end = start
        for (index, line) in lines[start...].enumerated() {
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            if depth == 0 {
                end = start + index
                break
            }
        }
        #expect(end > start && end - start + 1 <= 60, "TestFlow.run() is \(end - start + 1) lines")
        #expect(lines[start...end].contains { $0.contains("phases") })
    }

    /// docs/architecture.md's layers: each library's number, and the CLI's entry points.
    static func layers() throws -> (rank: [String: Int], entryPoints: Set<String>) {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var rank: [String: Int] = [:]
        for match in doc.matches(of: /(?m)^layer (?<number>\d+) [^:]+: +(?<list>.+)$/) {
            for name in match.output.list.split(separator: ",") {
                rank[name.trimmingCharacters(in: .whitespaces)] = Int(match.output.number)
            }
        }
        let entries = doc.firstMatch(of: /(?m)^The CLI's entry points: (?<list>.+)\.$/)
        let entryPoints = Set(
            (entries?.output.list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return (rank, entryPoints)
    }

    @Test("each library imports only lower layers; the CLI only the entry points and the vocabulary")
    func layering() throws {
        let targets = try Self.declared().filter { ["target", "executableTarget"].contains($0.value.kind) }
        let (rank, entryPoints) = try Self.layers()
        #expect(rank.count > 20 && entryPoints.count == 7, "docs/architecture.md's layers were not read: \(rank)")
        for (name, target) in targets {
            let folder = Self.root.appendingPathComponent("Sources/\(name)")
            // C targets (no Swift) are not ranked.
            guard try !Self.imports(in: folder).isEmpty else { continue }
            guard let own = rank[name] else {
                Issue.record("\(name) has no layer in docs/architecture.md")
                continue
            }
            for dependency in target.dependencies {
                guard let theirs = rank[dependency] else { continue }
                #expect(theirs < own, "\(name) (layer \(own)) imports \(dependency) (layer \(theirs))")
            }
        }
        let cli = try #require(targets["PipelineCLI"]).dependencies.filter { rank[$0] != nil }
        let allowed = cli.filter { entryPoints.contains($0) || rank[$0]! <= 1 }
        #expect(cli == allowed, "the CLI imports lower libraries: \(cli.subtracting(allowed).sorted())")
    }

    /// The names a library declares public: its types, and the members it adds to others' types
    /// (`Double.formatted(places:)`) or declares at the top level.
    static func publicNames(of library: String) throws -> Set<String> {
        let files = try swiftFiles(in: root.appendingPathComponent("Sources/\(library)"))
        var types: Set<String> = []
        for (_, text) in files {
            for match in text.matches(
                of: /(?m)^\s*public (?:[\w()]+ )*?(?:struct|enum|class|protocol|actor|typealias)\s+(?<name>\w+)/)
            {
                types.insert(String(match.output.name))
            }
        }
        var names = types
        for (_, text) in files {
            var extended: String?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let match = line.wholeMatch(of: /(?:public )?extension (?<type>[\w]+).*/) {
                    extended = String(match.output.type)
                    continue
                }
                if let first = line.first, !first.isWhitespace, first != "}" { extended = nil }
                if let match = line.wholeMatch(of: /public (?:[\w()]+ )*?(?:func|var|let)\s+(?<name>\w+).*/) {
                    names.insert(String(match.output.name))
                }
                if let extended, !types.contains(extended),
                    let match = line.wholeMatch(of: #/ {4}public (?:[\w()]+ )*?(?:func|var|let)\s+(?<name>\w+).*/#)
                {
                    names.insert(String(match.output.name))
                }
            }
        }
        return names
    }

    static func swiftFiles(in folder: URL) throws -> [(URL, String)] {
        var found: [(URL, String)] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            found.append((file, try String(contentsOf: file, encoding: .utf8)))
        }
        return found
    }

    @Test("no file imports one of the package's libraries it does not use")
    func noUnusedImports() throws {
        let libraries = try Self.declared().filter { $0.value.kind == "target" }.keys
        var names: [String: Set<String>] = [:]
        for library in libraries {
            let declared = try Self.publicNames(of: library)
            if !declared.isEmpty { names[library] = declared }
        }
        #expect(names.count > 15 && names["TestCore"]?.contains("formatted") == true, "names were not read")
        var unused: [String] = []
        for library in libraries {
            for (file, text) in try Self.swiftFiles(in: Self.root.appendingPathComponent("Sources/\(library)")) {
                let body = text.replacing(/(?m)^(?:@testable )?import \w+$/, with: "")
                let used = Set(body.matches(of: /\w+/).map { String($0.output) })
                // `@testable` reaches a library's internals, which its public names do not show.
                for match in text.matches(of: /(?m)^import (?<module>\w+)$/) {
                    let module = String(match.output.module)
                    if let declared = names[module], used.isDisjoint(with: declared) {
                        unused.append("\(file.path.replacing(Self.root.path + "/", with: "")): import \(module)")
                    }
                }
            }
        }
        #expect(unused.isEmpty, "unused imports:\n\(unused.sorted().joined(separator: "\n"))")
    }

    @Test("no file under Sources is over 400 lines: a file that grows past it is split where its ideas part")
    func fileSizes() throws {
        let files = FileManager.default.enumerator(
            at: Self.root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        var read = 0
        var long: [String] = []
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            read += 1
            let lines =
                try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .count - 1
            if lines > 400 { long.append("\(file.path.replacing(Self.root.path + "/", with: "")): \(lines) lines") }
        }
        #expect(read > 100, "the sources were not read")
        #expect(long.isEmpty, "files over 400 lines:\n\(long.sorted().joined(separator: "\n"))")
    }

    @Test("the Words hold: process variables are not an environment, one spelling of __Snapshots__")
    func wordsHold() throws {
        var wrong: [String] = []
        let sources = try Self.swiftFiles(in: Self.root.appendingPathComponent("Sources"))
        #expect(sources.count > 100)
        for (file, text) in sources {
            let path = file.path.replacing(Self.root.path + "/", with: "")
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if line.contains(/\b\w*[eE]nvironment\w*\s*:\s*\[String\s*:\s*String\]/) {
                    wrong.append("\(path):\(number + 1): process variables are `variables`, not an environment")
                }
                // The CLI's help text shows the folder to people; code asks SnapshotConventions.
                if line.contains("__Snapshots__"), !path.hasPrefix("Sources/SnapshotConventions/"),
                    !path.hasPrefix("Sources/PipelineCLI/")
                {
                    wrong.append("\(path):\(number + 1): __Snapshots__ is SnapshotFile.folderName")
                }
                if line.contains(/\b(?:struct|enum|class|protocol|actor) ReferenceStore\b/) {
                    wrong.append(
                        "\(path):\(number + 1): a store is an ObjectStore; the spec's roles are ReferenceStores")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }

    @Test("no library adds members to another library's type; only a conformance may live elsewhere")
    func extensionsLiveWithTheirTypes() throws {
        let libraries = try Self.declared().filter { $0.value.kind == "target" }.keys
        var owner: [String: String] = [:]
        for library in libraries {
            for (_, text) in try Self.swiftFiles(in: Self.root.appendingPathComponent("Sources/\(library)")) {
                for match in text.matches(
                    of: /(?m)^\s*public (?:final |indirect )?(?:struct|enum|class|protocol|actor) (?<name>\w+)/
                ) {
                    owner[String(match.output.name)] = library
                }
            }
        }
        var wrong: [String] = []
        for library in libraries {
            for (file, text) in try Self.swiftFiles(in: Self.root.appendingPathComponent("Sources/\(library)")) {
                for match in text.matches(of: /(?m)^(?:public )?extension (?<type>\w+)[\w.]*(?<rest>.*)$/) {
                    let type = String(match.output.type)
                    guard let home = owner[type], home != library else { continue }
                    // `extension X: ExpressibleByArgument {}`: a conformance to a protocol this library knows.
                    if match.output.rest.hasPrefix(":"), match.output.rest.hasSuffix("{}") { continue }
                    wrong.append("\(file.lastPathComponent) (\(library)) extends \(type) of \(home)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.sorted().joined(separator: "\n"))")
    }
}
