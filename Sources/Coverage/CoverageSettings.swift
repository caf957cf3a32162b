import Foundation
import PipelineCore

/// What a test run measures coverage with, checked before any test runs: the toolchain's tools,
/// the files to show, the folder the reports go to (writable), and where the test processes
/// write their profiles (one per process, `LLVM_PROFILE_FILE`).
public struct CoverageSettings: Sendable {
    public let tools: CoverageTools
    public let filter: CoverageFilter
    /// Where `lcov.info`, `cobertura.xml` and `summary.json` are written.
    public let output: URL
    /// Where the test processes write their profiles; emptied before a run.
    public let profiles: URL
    /// Line coverage (percent) below which the run fails; nil sets none.
    public var minLines: Double?

    /// The default output folder of `package`: `.build/pipeline/coverage`.
    public static func defaultOutput(of package: URL) -> URL {
        package.appendingPathComponent(".build/pipeline/coverage")
    }

    /// Finds the tools and checks the filter and that `output` can be written. `part` names this
    /// process's own profile folder, when several share a package (`node-2-of-4`).
    public init(
        package: URL, output: URL? = nil, include: [String] = [], exclude: [String] = [], minLines: Double? = nil,
        part: String? = nil, variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CoverageError) {
        filter = try CoverageFilter(package: package, include: include, exclude: exclude)
        self.output = output ?? Self.defaultOutput(of: package)
        let profiles = package.appendingPathComponent(".build/pipeline/coverage-profiles")
        self.profiles = part.map(profiles.appendingPathComponent) ?? profiles
        self.minLines = minLines
        try Self.checkWritable(self.output)
        tools = try CoverageTools.locate(variables: variables)
    }

    /// Creates `folder` and writes and removes a file in it.
    static func checkWritable(_ folder: URL) throws(CoverageError) {
        let probe = folder.appendingPathComponent(".pipeline-write-check-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
        } catch {
            throw .unwritable(path: folder.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// For the test processes: one profile per process, merged online should a process id recur.
    public var variables: [String: String] {
        ["LLVM_PROFILE_FILE": profiles.appendingPathComponent("%p-%m.profraw").path]
    }

    /// For a run that keeps suites apart (`TestRunOptions.suiteEnvironment`): each suite's
    /// processes write their profiles under its name (`SuiteFiles`).
    public func suiteEnvironment(_ suite: String) -> [String: String] {
        ["LLVM_PROFILE_FILE": profiles.appendingPathComponent(SuiteFiles.name(of: suite, "%p.profraw")).path]
    }

    /// Profiles the run's processes left where they ran (`default.profraw`): an instrumented child
    /// that a test started with an variables of its own loses `LLVM_PROFILE_FILE`, and writes
    /// into its working folder, the package's. Those written since the profile folder was emptied
    /// (this run) are moved into it, so they count in the run's coverage and nothing is left in the
    /// user's tree; older ones are the user's and stay. Returns the paths moved.
    public func adoptStrayProfiles(in folders: [URL]) -> [String] {
        // The folder's own dates move with every profile written into it: its start mark's stays.
        let mark = profiles.appendingPathComponent(Self.startMark)
        guard let started = (try? FileManager.default.attributesOfItem(atPath: mark.path))?[.modificationDate] as? Date
        else { return [] }
        return Self.moveStrayProfiles(in: folders, since: started, into: profiles)
    }

    /// Moves the profiles (`*.profraw`) written in `folders` since `started` into `target`, as
    /// `stray-<n>-<name>`: a run that measures no coverage on an instrumented build (one built
    /// for coverage before) leaves none in the user's tree either. Returns the paths moved.
    public static func moveStrayProfiles(in folders: [URL], since started: Date, into target: URL) -> [String] {
        let manager = FileManager.default
        var moved: [String] = []
        for folder in Set(folders.map(\.standardizedFileURL)) {
            for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".profraw") {
                let file = folder.appendingPathComponent(name)
                guard let written = (try? manager.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
                    written >= started.addingTimeInterval(-1)
                else { continue }
                try? manager.createDirectory(at: target, withIntermediateDirectories: true)
                let destination = target.appendingPathComponent("stray-\(moved.count)-\(name)")
                if (try? manager.moveItem(at: file, to: destination)) != nil { moved.append(file.path) }
            }
        }
        return moved
    }

    /// The file whose date marks when the run's profile folder was emptied.
    static let startMark = ".started"

    /// Empties the profile folder, so a run counts only its own processes, and marks when.
    public func clearProfiles() throws(CoverageError) {
        try? FileManager.default.removeItem(at: profiles)
        do {
            try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
            try Data().write(to: profiles.appendingPathComponent(Self.startMark))
        } catch {
            throw .unwritable(path: profiles.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// After the run: merges the profiles, exports the coverage of the code in `objects` (the test
    /// product's, `TestProduct.coverageObjects`), keeps the files the filter shows, and writes the
    /// reports into `output`. `missing` names the tests whose process ended without writing a profile.
    public func collect(objects: [URL], missing: [String]) async throws(CoverageError) -> CoverageReport {
        let profiles = ProfileExport.profiles(in: self.profiles)
        guard !profiles.isEmpty else { throw .noProfiles(folder: self.profiles.path) }
        return try await report(from: profiles, objects: objects, missing: missing)
    }

    /// The reports of `profiles` (raw, or several nodes' merged ones) for the code in `objects`,
    /// written into `output` with the merged profile, `coverage.profdata`.
    public func report(from profiles: [URL], objects: [URL], missing: [String] = [], missingNodes: [String] = [])
        async throws(CoverageError) -> CoverageReport
    {
        let started = ContinuousClock.now
        let export = ProfileExport(tools: tools)
        let merged = output.appendingPathComponent("coverage.profdata")
        try? FileManager.default.createDirectory(at: self.profiles, withIntermediateDirectories: true)
        try await export.merge(profiles, into: merged, logs: self.profiles)
        let all = try await export.export(merged, objects: objects, logs: self.profiles)
        var report = CoverageReport(
            coverage: all.selecting(filter.selector()), missing: missing, missingNodes: missingNodes)
        report.minimumLines = minLines
        report.folder = output
        report.exported = all
        try report.write(to: output, sourceRoot: filter.package.path)
        let elapsed = (ContinuousClock.now - started).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return report
    }

    /// The impact map of this run: what each suite executed, from the per-suite profiles its
    /// processes wrote (`suiteEnvironment`), placed through `report`.
    public func impact(of report: CoverageReport) async throws(CoverageError) -> ImpactProfiles.Executed {
        try await ImpactProfiles(tools: tools, filter: filter).suites(
            profiles: profiles, exported: report.exported ?? report.coverage, logs: profiles)
    }
}
