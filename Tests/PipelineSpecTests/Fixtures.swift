import Foundation

@testable import PipelineSpec

/// The spec fixtures shipped with the tests.
enum Fixtures {
    static let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func files(in folder: String) -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "yml" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static var invalid: [URL] { files(in: "invalid") }
    static var valid: [URL] { files(in: "valid") }

    /// The `# expect: LINE:COLUMN: message` lines at the top of an invalid fixture.
    static func expectations(of url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .compactMap { line in line.hasPrefix("# expect: ") ? String(line.dropFirst("# expect: ".count)) : nil }
    }

    /// Loads a fixture as the CLI would, naming it by its file name in messages.
    static func load(_ url: URL) throws(SpecError) -> PipelineSpec {
        try SpecLoader.load(url, displayPath: url.lastPathComponent)
    }

    /// The diagnostics of an invalid spec, without the file name prefix; empty when it is valid.
    static func problems(_ url: URL) -> [String] {
        do {
            _ = try load(url)
            return []
        } catch {
            let prefix = url.lastPathComponent + ":"
            return error.lines.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        }
    }

    /// Parses spec text held in memory, as file `name.yml`.
    static func parse(_ text: String, name: String = "spec") throws(SpecError) -> PipelineSpec {
        try SpecLoader.parse(text, file: "\(name).yml", fileStem: name)
    }

    static func problems(text: String, name: String = "spec") -> [String] {
        do {
            _ = try parse(text, name: name)
            return []
        } catch {
            return error.lines
        }
    }
}
