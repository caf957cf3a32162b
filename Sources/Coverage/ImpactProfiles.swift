import Foundation
import PipelineCore

/// What each suite of a run executed, from its per-suite profiles (`SuiteFiles`): what
/// TestImpact's impact map keeps.
public struct ImpactProfiles: Sendable {
    public let tools: CoverageTools
    public let filter: CoverageFilter

    public init(tools: CoverageTools, filter: CoverageFilter) {
        self.tools = tools
        self.filter = filter
    }

    /// What each suite executed: the functions its profiles counted (`llvm-profdata show`, which
    /// reads a raw profile without the binary), placed in their files and lines through
    /// `exported`, the whole run's coverage (every function of every file, by name). Files outside
    /// the package and under `.build` are left out, but for dependencies' checkouts, kept by name.
    public func suites(profiles folder: URL, exported: LineCoverage, logs: URL) async throws(CoverageError)
        -> Executed
    {
        var placed: [String: (file: String, line: Int)] = [:]
        for file in exported.files.values {
            for (name, function) in file.functions { placed[name] = (file.path, function.line) }
        }
        let root = filter.package.path.hasSuffix("/") ? filter.package.path : filter.package.path + "/"
        var lines: [String: [String: Set<Int>]] = [:]
        var dependencies: [String: Set<String>] = [:]
        for (suite, names) in try await executed(SuiteFiles.bySuite(in: folder, suffix: ".profraw"), logs: logs) {
            for name in names {
                // File-local functions are named `<path>:<mangled name>`; the others by their mangled name.
                let place =
                    placed[name] ?? name.range(of: ".swift:").map { (String(name[..<$0.lowerBound]) + ".swift", 0) }
                guard let place, place.file.hasPrefix(root) else { continue }
                let relative = String(place.file.dropFirst(root.count))
                if !relative.hasPrefix(".build/") {
                    lines[suite, default: [:]][relative, default: []].insert(place.line)
                } else if relative.hasPrefix(".build/checkouts/"),
                    let name = relative.split(separator: "/").dropFirst(2).first
                {
                    dependencies[suite, default: []].insert(String(name))
                }
            }
            lines[suite] = lines[suite] ?? [:]
        }
        var result = Executed()
        for (suite, files) in lines {
            result.files[suite] = files.keys.sorted()
            result.functions[suite] = files.mapValues { $0.sorted() }
            result.dependencies[suite] = (dependencies[suite] ?? []).sorted()
        }
        return result
    }

    /// Each profile's executed functions, by suite: `llvm-profdata show` on as many profiles at once
    /// as there are cores, each with its own log. `--covered` lists just the executed functions;
    /// a tool too old for it lists every function with its counts, which are read instead.
    private func executed(_ bySuite: [String: [URL]], logs: URL) async throws(CoverageError) -> [(String, [String])] {
        var pending = bySuite.flatMap { suite, profiles in profiles.map { (suite, $0) } }[...]
        let tools = tools
        guard let first = pending.first?.1 else { return [] }
        let covered =
            (try? await tools.run(
                [tools.profdata.path, "show", "--covered", first.path],
                log: logs.appendingPathComponent("llvm-profdata-show-covered.log"))) != nil
        do {
            return try await withThrowingTaskGroup(of: (String, [String]).self) { group in
                func launch() {
                    guard let (suite, profile) = pending.popFirst() else { return }
                    group.addTask {
                        let log = logs.appendingPathComponent("llvm-profdata-show-\(profile.lastPathComponent).log")
                        defer {
                            try? FileManager.default.removeItem(at: log)
                            try? FileManager.default.removeItem(at: log.appendingPathExtension("stderr"))
                        }
                        if covered {
                            let listing = try await tools.run(
                                [tools.profdata.path, "show", "--covered", profile.path], log: log)
                            return (suite, listing.split(separator: "\n").map(String.init).filter { !$0.isEmpty })
                        }
                        let listing = try await tools.run(
                            [tools.profdata.path, "show", "--all-functions", "--counts", profile.path], log: log)
                        return (suite, Self.executedFunctions(in: listing))
                    }
                }
                for _ in 0..<max(1, ProcessInfo.processInfo.activeProcessorCount) { launch() }
                var results: [(String, [String])] = []
                while let result = try await group.next() {
                    results.append(result)
                    launch()
                }
                return results
            }
        } catch let error as CoverageError {
            throw error
        } catch {
            throw .toolFailed(command: "llvm-profdata show", output: "\(error)")
        }
    }

    /// Per suite, the files it executed and the first lines of the functions it executed in each.
    public struct Executed: Sendable, Equatable {
        public var files: [String: [String]] = [:]
        public var functions: [String: [String: [Int]]] = [:]
        /// Suite → the dependencies (their checkouts' folder names) whose code it executed.
        public var dependencies: [String: [String]] = [:]
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
