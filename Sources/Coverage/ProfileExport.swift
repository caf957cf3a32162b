import Foundation

/// Turns the profiles a run's test processes wrote into coverage: `llvm-profdata merge -sparse`,
/// then `llvm-cov export -format=lcov` for the test product, as `swift test
/// --enable-code-coverage` does for its JSON.
public struct ProfileExport: Sendable {
    public let tools: CoverageTools

    public init(tools: CoverageTools) {
        self.tools = tools
    }

    /// The raw profiles the test processes wrote in `folder` (`*.profraw`).
    public static func profiles(in folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".profraw") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Merges raw or indexed profiles (the processes', or several nodes' merged ones) into `merged`.
    /// `logs` keeps the tool's output.
    public func merge(_ profiles: [URL], into merged: URL, logs: URL) async throws(CoverageError) {
        _ = try await tools.run(
            [tools.profdata.path, "merge", "-sparse"] + profiles.map(\.path) + ["-o", merged.path],
            log: logs.appendingPathComponent("llvm-profdata-merge.log"))
    }

    /// The coverage `merged` records of the code in `objects` (a test product; with Swift Build,
    /// each test runner and the library holding its target's code): each line and function for
    /// lcov and Cobertura, and llvm-cov's own counts of each file (SwiftPM's), exported at once.
    public func export(_ merged: URL, objects: [URL], logs: URL) async throws(CoverageError) -> LineCoverage {
        let binaries = objects.map { Self.executable(of: $0).path }
        let export =
            [tools.cov.path, "export", "-instr-profile", merged.path] + binaries.prefix(1)
            + binaries.dropFirst().flatMap { ["-object", $0] }
        let tools = tools
        func run(_ format: [String], log: String) async -> Result<String, CoverageError> {
            do {
                return .success(try await tools.run(export + format, log: logs.appendingPathComponent(log)))
            } catch {
                return .failure(error)
            }
        }
        async let lcov = run(["-format=lcov"], log: "llvm-cov-export-lcov.log")
        async let summary = run(["-format=text", "-summary-only"], log: "llvm-cov-export-summary.log")
        let name = "llvm-cov export of " + objects.map(\.lastPathComponent).joined(separator: ", ")
        var coverage = try LineCoverage.parse(lcov: try await lcov.get(), name: name)
        try coverage.addSummaries(json: Data(try await summary.get().utf8), name: name)
        return coverage
    }

    /// The executable inside a test bundle (macOS: `X.xctest/Contents/MacOS/X`); the product itself on Linux.
    static func executable(of product: URL) -> URL {
        let inside = product.appendingPathComponent("Contents/MacOS")
            .appendingPathComponent(product.deletingPathExtension().lastPathComponent)
        return FileManager.default.isExecutableFile(atPath: inside.path) ? inside : product
    }
}
