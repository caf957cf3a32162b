import Foundation
import TestSharding

/// What each test suite executed, recorded from a run that keeps suites apart (one process and one
/// coverage profile per suite): the source files, by path relative to the package. Kept beside the
/// timings as `pipeline-impact.json` (docs/test-runner.md#impact), so CI machines share it.
public struct ImpactMap: Codable, Sendable, Equatable {
    public static let fileName = "pipeline-impact.json"

    /// Changes only if a field changes meaning.
    public var version = 1
    /// The commit the map was recorded at.
    public var commit: String
    /// The package, relative to the repository's root (`.` for the root).
    public var package: String
    /// `debug` or `release`: a map serves runs of the configuration it was recorded with.
    public var configuration: String
    /// When it was recorded, ISO 8601 in UTC.
    public var recordedAt: String
    /// Suite (`Module.Class`, `Module.Suite`, or a module's free functions) → the files it executed.
    public var suites: [String: [String]]
    /// Suite → its tests, so a new test of a known suite is seen as new.
    public var tests: [String: [String]]

    public init(
        commit: String, package: String, configuration: String, recordedAt: String, suites: [String: [String]],
        tests: [String: [String]]
    ) {
        self.commit = commit
        self.package = package
        self.configuration = configuration
        self.recordedAt = recordedAt
        self.suites = suites
        self.tests = tests
    }

    /// Reads a map; `name` names it in errors.
    public static func decode(_ data: Data, name: String) throws(CoverageError) -> ImpactMap {
        do {
            let map = try JSONDecoder().decode(ImpactMap.self, from: data)
            guard map.version == 1 else {
                throw CoverageError.unreadable(path: name, reason: "an impact map of version \(map.version), not 1")
            }
            return map
        } catch let error as CoverageError {
            throw error
        } catch {
            throw .unreadable(path: name, reason: "not an impact map (\(JSONFile.reason(error, format: "impact map")))")
        }
    }

    public func encoded() throws(CoverageError) -> Data {
        do {
            return try JSONFile.encode(self, what: Self.fileName)
        } catch {
            throw .unwritable(path: Self.fileName, reason: "\(error)")
        }
    }
}

/// Records an impact map from a run's per-suite profiles (`SuiteProfiles`).
public struct ImpactRecorder: Sendable {
    public let tools: CoverageTools
    public let filter: CoverageFilter

    public init(tools: CoverageTools, filter: CoverageFilter) {
        self.tools = tools
        self.filter = filter
    }

    /// Each suite's executed files: the functions its profiles counted (`llvm-profdata show`, which
    /// reads a raw profile without the binary), placed in their files through `exported`, the
    /// whole run's coverage (every function of every file, by name). Files outside the package and
    /// under `.build` are left out.
    public func suites(profiles folder: URL, exported: LineCoverage, logs: URL) async throws(CoverageError)
        -> [String: [String]]
    {
        var fileOf: [String: String] = [:]
        for file in exported.files.values { for name in file.functions.keys { fileOf[name] = file.path } }
        let root = filter.package.path.hasSuffix("/") ? filter.package.path : filter.package.path + "/"
        var result: [String: [String]] = [:]
        for (suite, profiles) in SuiteProfiles.bySuite(in: folder) {
            var files: Set<String> = []
            for profile in profiles {
                let listing = try await tools.run(
                    [tools.profdata.path, "show", "--all-functions", "--counts", profile.path],
                    log: logs.appendingPathComponent("llvm-profdata-show.log"))
                for name in Self.executedFunctions(in: listing) {
                    // File-local functions are named `<path>:<mangled name>`; the others by their mangled name.
                    let path =
                        fileOf[name] ?? name.range(of: ".swift:").map { String(name[..<$0.lowerBound]) + ".swift" }
                    guard let path, path.hasPrefix(root) else { continue }
                    let relative = String(path.dropFirst(root.count))
                    if !relative.hasPrefix(".build/") { files.insert(relative) }
                }
            }
            result[suite] = files.sorted()
        }
        return result
    }

    /// The functions `llvm-profdata show --all-functions --counts` lists with a count above zero.
    static func executedFunctions(in listing: String) -> [String] {
        var executed: [String] = []
        var current: String?
        for line in listing.split(separator: "\n") {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if let name = current, line.hasPrefix("    Function count: ") || line.hasPrefix("    Block counts: ")
            {
                let digits = line.split(whereSeparator: { !$0.isNumber })
                if digits.contains(where: { $0.contains { $0 != "0" } }) {
                    executed.append(name)
                    current = nil
                }
            }
        }
        return executed
    }
}
