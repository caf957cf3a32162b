import ChildProcesses
import Coverage
import Foundation
import PipelineCore
import SymbolIndex

/// What each test suite executed, recorded from a run that keeps suites apart (one process and one
/// coverage profile per suite): the source files, by path relative to the package. Kept beside the
/// timings as `pipeline-impact.json` (docs/test-runner.md#impact), so CI machines share it.
public struct ImpactMap: Codable, Sendable, Equatable {

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
    /// Suite → file → the first lines of the functions it executed there (0: a function whose line
    /// is unknown), so a name used in one function reaches only the suites that executed that
    /// function. Absent in maps recorded before it existed: the whole file counts then.
    public var functions: [String: [String: [Int]]]?
    /// Suite → the files it read while it ran, traced (`TracedReads`: relative to the package,
    /// `../…` outside it in the repository, a trailing `/` for a folder listed). Absent when reads
    /// were not traced: in maps recorded before tracing existed, and where `untraced` says why.
    public var reads: [String: [String]]?
    /// Suite → why its reads are unknown (a trace cut short by a crash): it runs for any change
    /// that is not Swift source.
    public var unknownReads: [String: String]?
    /// Why reads were not traced, when they were not (another platform, no C compiler).
    public var untraced: String?
    /// Suite → the dependencies (by their checkouts' folder names, `.build/checkouts/NAME`) whose
    /// code it executed: a moved pin in `Package.resolved` runs those suites. Absent in older maps.
    public var dependencies: [String: [String]]?
    /// The folders of the targets that use build-tool plugins, whose inputs the build reads and
    /// no trace of a test shows. Absent in maps recorded before it existed.
    public var pluginTargets: [String]?
    /// The folders of the package's plugin targets → `command` (run only by `swift package
    /// <verb>`, never by a build or a test) or `buildTool`. Absent in older maps.
    public var plugins: [String: String]?
    /// The folders of the package's executable targets: a test runs one only as a child process,
    /// so a change to one that coverage cannot judge reaches the suites that executed it. Absent
    /// in older maps.
    public var executableTargets: [String]?
    /// The folders of the package's test targets, relative to it: no target can depend on one, so
    /// what a test file declares reaches only its own target's files. Absent in older maps.
    public var testTargets: [String]?
    /// What the manifest excludes from its targets (`exclude:`), relative to the package: no
    /// target builds it. Absent in maps recorded before it existed.
    public var excluded: [String]?
    /// The package's declarations and every use the compiler resolved, from the index store of the
    /// build the map was recorded with (`SymbolIndex`): a changed declaration reaches the suites that
    /// executed a function referring to it. Absent in older maps, and where `unindexed` says why.
    public var index: SymbolIndex?
    /// Why no index was kept (none written, no libIndexStore beside the toolchain).
    public var unindexed: String?
    /// Why the recording lost profiles of child processes (a test started an instrumented process
    /// with an environment of its own, and the read tracer could not give `LLVM_PROFILE_FILE` back):
    /// what they executed is counted for no suite, so any change of code outside the test targets
    /// runs every test. Absent when none was lost.
    public var lostProfiles: String?
    /// The package traits the recorded build enabled (`PackageTraits`), when the manifest declares
    /// any: a map serves builds that enable the same ones. Absent for packages without traits and
    /// in older maps.
    public var traits: [String]?
    /// The version of the Swift that built the recorded run (`swift --version`: `6.3.1`): another
    /// compiler may lower the same source to other code, so a map serves builds by the same one.
    /// Absent in maps recorded before it existed, which serve no build.
    public var toolchain: String?
    /// The recorded build's flags that may change what compiles (`compilationFlags`): a map serves
    /// builds with the same ones. Absent in maps recorded before it existed, which serve no build.
    public var flags: [String]?

    public init(
        commit: String, package: String, configuration: String, recordedAt: String, suites: [String: [String]],
        tests: [String: [String]], functions: [String: [String: [Int]]]? = nil
    ) {
        self.commit = commit
        self.package = package
        self.configuration = configuration
        self.recordedAt = recordedAt
        self.suites = suites
        self.tests = tests
        self.functions = functions
    }

    /// Keeps what the package's targets say that selection needs: the folders of those that use
    /// build-tool plugins (whose inputs no trace shows), of the test targets, and what the manifest
    /// excludes from each.
    /// With the build's `arguments`, the traits it enabled, when the manifest declares any.
    public mutating func keepTargets(
        of graph: PackageGraph, manifest: PackageGraph.ManifestTargets, arguments: [String]
    ) {
        let declared = PackageTraits(declarations: manifest.traits, arguments: arguments)
        traits = declared.declared.isEmpty ? nil : declared.enabledList
        pluginTargets = graph.targets.filter { manifest.pluginUsers.contains($0.name) }.map(\.path).sorted()
        testTargets = graph.targets.filter { $0.type == "test" }.map(\.path).sorted()
        executableTargets = graph.targets.filter { $0.type == "executable" }.map(\.path).sorted()
        plugins = Dictionary(
            graph.targets.filter { $0.type == "plugin" }.map {
                ($0.path, manifest.commandPlugins.contains($0.name) ? "command" : "buildTool")
            }, uniquingKeysWith: { first, _ in first })
        excluded = graph.targets.flatMap { target in
            (manifest.excluded[target.name] ?? []).map { target.path + "/" + $0 }
        }.sorted()
    }

    /// Keeps the toolchain's version and the flags of the build with `arguments`, which a build
    /// selecting by this map must share (`unfit`).
    public mutating func keepBuild(arguments: [String]) async {
        toolchain = await Toolchain.swiftVersion.value
        flags = Self.compilationFlags(arguments)
    }

    /// Of a build's `arguments`, those that may change what compiles: the traits (compared as the
    /// traits they enable), where and how fast it builds, how much it says, and compiling by content
    /// (`-Xswiftc -enable-incremental-file-hashing`, which the build cache adds) are left out.
    public static func compilationFlags(_ arguments: [String]) -> [String] {
        let valued: Set = [
            "--traits", "--scratch-path", "--cache-path", "--config-path", "--security-path", "-j", "--jobs",
            "--build-system",
        ]
        let bare: Set = [
            "--enable-all-traits", "--disable-default-traits", "-v", "--verbose", "--very-verbose", "--vv", "-q",
            "--quiet", "--skip-update", "--disable-automatic-resolution", "--force-resolved-versions",
            "--only-use-versions-from-resolved-file", "--disable-sandbox",
        ]
        let inertCompilerFlags: Set = ["-enable-incremental-file-hashing"]
        var kept: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let next = index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            if valued.contains(argument) || (argument == "-Xswiftc" && next.map(inertCompilerFlags.contains) == true) {
                index += 2
                continue
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if !bare.contains(argument) && !(argument.contains("=") && valued.contains(name)) { kept.append(argument) }
            index += 1
        }
        return kept
    }

    /// Why this map cannot serve a build of `package` in `configuration` by the Swift `toolchain`
    /// (its version, nil when unknown) with `arguments`; nil when it can.
    public func unfit(package: String, configuration: String, toolchain: String?, arguments: [String]) -> String? {
        if self.package != package {
            return "the impact map was recorded for the package at \(self.package), not \(package)"
        }
        if self.configuration != configuration {
            return "the impact map was recorded for \(self.configuration) builds, not \(configuration)"
        }
        guard let recorded = self.toolchain, let flags else {
            return "the impact map does not say which toolchain and flags built it (recorded by an older pipeline)"
        }
        guard let toolchain else {
            return "the impact map was recorded by Swift \(recorded), and this toolchain's version could not be read"
        }
        if recorded != toolchain {
            return "the impact map was recorded by Swift \(recorded), this build uses Swift \(toolchain)"
        }
        let current = Self.compilationFlags(arguments)
        if flags != current {
            func said(_ list: [String]) -> String {
                list.isEmpty ? "no flags" : "the flags " + list.joined(separator: " ")
            }
            return "the impact map was recorded with \(said(flags)), this build has \(said(current))"
        }
        return nil
    }

    /// Keeps the index store of the build in `bin` (`index` or why not); a file edited but not
    /// committed keeps no unit (its lines may not be the commit's: changes to it use the name rule).
    public mutating func keepIndex(bin: URL, package: URL, uncommitted: [String]) {
        guard let library = IndexStoreReader.library(variables: ProcessInfo.processInfo.environment) else {
            unindexed = "no libIndexStore beside the swift on PATH (usr/lib of its toolchain)"
            return
        }
        do {
            var read = try IndexStoreReader.read(
                store: IndexStoreReader.store(bin: bin), library: library, package: package)
            let prefix = self.package == "." ? "" : self.package + "/"
            read.drop(
                files: Set(uncommitted.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }))
            index = read
        } catch {
            unindexed = "\(error)"
        }
    }

    /// The suites whose traced reads cover `path` (relative to the package), each with the read.
    public func readers(of path: String) -> [(suite: String, read: String)] {
        guard let reads else { return [] }
        return reads.compactMap { suite, paths in
            paths.first { TracedReads.covers($0, path) }.map { (suite, $0) }
        }.sorted { $0.suite < $1.suite }
    }

    /// Whether `suite` executed `file` within one of `members` (line ranges), or anywhere in it when
    /// `members` is nil or the map does not know the suite's functions there.
    public func executed(_ suite: String, in file: String, within members: [ClosedRange<Int>]?) -> Bool {
        guard suites[suite]?.contains(file) == true else { return false }
        guard let members, let lines = functions?[suite]?[file] else { return true }
        return lines.contains { line in line == 0 || members.contains { $0.contains(line) } }
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
            return try JSONFile.encode(self, what: "the impact map")
        } catch {
            throw .unwritable(path: "the impact map", reason: "\(error)")
        }
    }
}
