import Coverage
import Foundation

/// corelibs-xctest (Linux) creates an instance of every `XCTestCase` class even when it runs one
/// suite: each class's stored properties' initialisers run in every suite's process, so a test
/// class's fixtures look executed by all suites, and a change to what they call would run every
/// suite. What every suite executed inside a test class's body is kept for that class's suite only.
public enum InstanceCreation {
    /// `functions` (suite → file → first lines executed) and `files` (suite → files) with the lines
    /// every suite executed inside a test class's body kept for that class's suite alone; `text`
    /// gives a file's source (relative to the package).
    static func separate(
        functions: inout [String: [String: [Int]]], files: inout [String: [String]], text: (String) -> String?
    ) {
        let suites = Array(functions.keys)
        guard suites.count > 1 else { return }
        let everyone = suites.map { Set(files[$0] ?? []) }.reduce(into: Set(files[suites[0]] ?? [])) {
            $0.formIntersection($1)
        }
        for file in everyone.sorted() {
            guard let source = text(file) else { continue }
            let common = suites.map { Set(functions[$0]?[file] ?? []) }.reduce(
                into: Set(functions[suites[0]]?[file] ?? [])
            ) { $0.formIntersection($1) }
            guard !common.isEmpty else { continue }
            for (name, body) in testClasses(in: source) {
                let lines = common.filter { body.contains($0) }
                guard !lines.isEmpty else { continue }
                for suite in suites where !suite.hasSuffix("." + name) {
                    functions[suite]?[file]?.removeAll { lines.contains($0) }
                    if functions[suite]?[file]?.isEmpty == true {
                        functions[suite]?[file] = nil
                        files[suite]?.removeAll { $0 == file }
                    }
                }
            }
        }
    }

    /// The `XCTestCase` subclasses `source` declares, with the lines of their bodies.
    static func testClasses(in source: String) -> [(name: String, body: ClosedRange<Int>)] {
        var found: [(String, ClosedRange<Int>)] = []
        let characters = Array(source)
        for match in source.matches(of: #/class\s+(\w+)\s*:[^{]*\bXCTestCase\b[^{]*\{/#) {
            let open = source.distance(from: source.startIndex, to: match.range.upperBound) - 1
            var depth = 0
            var line = source[..<match.range.upperBound].count { $0 == "\n" } + 1
            let first = line
            var at = open
            while at < characters.count {
                if characters[at] == "\n" { line += 1 }
                if characters[at] == "{" { depth += 1 }
                if characters[at] == "}" {
                    depth -= 1
                    if depth == 0 { break }
                }
                at += 1
            }
            found.append((String(match.output.1), first...line))
        }
        return found
    }
}

extension InstanceCreation {
    /// What every suite executed inside one test class's body (corelibs-xctest's instances), kept
    /// for that class's suite alone; the package's files read as needed.
    public static func separate(_ executed: inout ImpactProfiles.Executed, package: URL) {
        separate(functions: &executed.functions, files: &executed.files) { file in
            try? String(contentsOf: package.appendingPathComponent(file), encoding: .utf8)
        }
    }
}
