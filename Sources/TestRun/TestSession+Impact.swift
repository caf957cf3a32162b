import Coverage
import Foundation
import GitChanges
import SharedRun
import TestCore
import TestImpact
import TestSharding

extension TestSession {
    /// For `--impacted-or-all` (`select: impacted-or-all`), a run rather than a stop: when the
    /// store keeping the impact map (and the timings) cannot be reached, the package's local
    /// timings to plan from instead, and the line saying so; nil when the store answers (a map it
    /// holds that cannot be read is the selection's to report).
    static func impactMapUnreachable(_ place: TimingsPlace, package: URL) async -> (TimingsPlace, String)? {
        do {
            _ = try await place.impact()
            return nil
        } catch {
            guard let local = try? TimingsPlace(file: SuiteRun.defaultTimings(of: package)) else { return nil }
            return (
                local,
                "impacted: every test runs, since the impact map's store cannot be reached (\(error)); "
                    + "planned from the local timings, and nothing is written to the store"
            )
        }
    }
}

extension TestSession {
    /// `--impacted` (`select: impacted`): `prepared` cut down to the tests the change from the
    /// map's commit (or `base`) can reach, each decision written; nil when none is reachable. The
    /// repository's paths in `verified` hold what a verified run had: they are no change.
    public func impacted(
        _ prepared: SuiteRun.Prepared, base: String?, verified: Set<String> = []
    ) async throws -> SuiteRun.Prepared? {
        let settings = suite.settings
        let selection = try await ImpactedTests.select(
            package: settings.packagePath, configuration: settings.configuration,
            buildArguments: settings.extraArguments, base: base, verified: verified,
            stored: try await timings.impact(), place: timings.description, discovered: prepared.tests,
            estimates: prepared.estimates)
        selection.reasons.forEach { write($0 + "\n") }
        guard let tests = selection.tests else { return prepared }
        guard !tests.isEmpty else { return nil }
        return prepared.only(tests, shards: suite.options.shards, node: suite.options.node)
    }

    /// Of the tests that failed, those the impact map says nothing changed for since they last
    /// passed: the commit of that pass (the timings' last outcome, `<commit>:passed`), by test
    /// name. A failure there is on code that passed before: flakiness, not a breakage. Where the
    /// map cannot judge (none, another build, a commit this clone lacks, a change it cannot
    /// attribute), nothing is said.
    public func unchangedSinceLastPass(_ failed: [TestID], _ prepared: SuiteRun.Prepared) async -> [String: String] {
        var byCommit: [String: [TestID]] = [:]
        for test in failed {
            guard let last = prepared.timings.tests[test.name]?.history?.last, last.hasSuffix(":passed") else {
                continue
            }
            byCommit[String(last.dropLast(":passed".count)), default: []].append(test)
        }
        guard !byCommit.isEmpty, let stored = try? await timings.impact() else { return [:] }
        let settings = suite.settings
        var unchanged: [String: String] = [:]
        for (commit, tests) in byCommit {
            guard
                let selection = try? await ImpactedTests.select(
                    package: settings.packagePath, configuration: settings.configuration,
                    buildArguments: settings.extraArguments, base: commit, stored: stored,
                    place: timings.description, discovered: prepared.discovered, estimates: prepared.estimates),
                let reached = selection.tests.map(Set.init)
            else { continue }
            for test in tests where !reached.contains(test) { unchanged[test.name] = commit }
        }
        return unchanged
    }

    /// `--record-impact` (`impact: record`): what each suite of this run executed, kept beside the
    /// timings with the commit, package and configuration, and what each read (`reads`). A suite
    /// whose process crashed or timed out left a partial profile: it stays out, so it runs as a new
    /// suite until a clean recording. The declarations and their resolved uses come from the index
    /// store the same build wrote in `bin`, so the map's lines and theirs are the same commit's.
    public func keepImpactMap(
        from measured: CoverageReport, report: TestReport, reads: ReadCapture, bin: URL
    ) async throws {
        guard let coverage else { return }
        let package = suite.settings.packagePath
        let history = try CommitHistory(repositoryPath: package.path)
        let root = URL(fileURLWithPath: history.workTree).resolvingSymlinksInPath().path
        let path = package.resolvingSymlinksInPath().path
        var tests: [String: [String]] = [:]
        var partial: Set<String> = []
        for test in report.tests {
            let suite = TestID(test.name, framework: .xctest).suite
            if test.status == .crashed || test.status == .timedOut { partial.insert(suite) }
            tests[suite, default: []].append(test.name)
        }
        for suite in partial { tests[suite] = nil }
        var executed = try await coverage.impact(of: measured)
        // The map keeps the commit's lines: a file edited but not committed keeps no function lines
        // (it counts whole when selecting), since they may not be the commit's.
        let relative = path == root ? "." : String(path.dropFirst(root.count + 1))
        let prefix = relative == "." ? "" : relative + "/"
        for file in try history.uncommittedChanges().flatMap(\.touchedPaths) where file.hasPrefix(prefix) {
            for suite in executed.functions.keys {
                executed.functions[suite]?[String(file.dropFirst(prefix.count))] = nil
            }
        }
        InstanceCreation.separate(&executed, package: package)
        var map = ImpactMap(
            commit: try history.sha("HEAD"), package: relative,
            configuration: suite.settings.configuration, recordedAt: ISO8601DateFormatter().string(from: Date()),
            suites: executed.files.filter { !partial.contains($0.key) }, tests: tests.mapValues { $0.sorted() },
            functions: executed.functions.filter { !partial.contains($0.key) })
        map.dependencies = executed.dependencies.filter { !partial.contains($0.key) }
        await map.keepBuild(arguments: suite.settings.extraArguments)
        if let first = measured.strays.first {
            map.lostProfiles =
                "\(measured.strays.count) written where the tests ran, \(first) the first: a test started an "
                + "instrumented process with an environment of its own"
        }
        try await reads.add(to: &map, package: path, repository: root, arguments: suite.settings.extraArguments)
        map.keepIndex(bin: bin, package: package, uncommitted: try history.uncommittedChanges().flatMap(\.touchedPaths))
        try await timings.saveImpact(try map.encoded())
        let traced = map.reads.map { reads in
            let unknown = map.unknownReads?.count ?? 0
            return ", reads traced for \(reads.count)" + (unknown > 0 ? " (\(unknown) unknown: cut short)" : "")
        }
        write(
            "Impact map of \(map.suites.count) suites at \(map.commit.prefix(12))\(traced ?? "") kept beside \(timings)\n"
        )
        if let untraced = map.untraced { write("Reads were not traced: \(untraced)\n") }
        if let lost = map.lostProfiles {
            write("Profiles of child processes were lost (\(lost)): a change of code runs every test\n")
        }
        if let unindexed = map.unindexed { write("No index kept with it (selection by names): \(unindexed)\n") }
    }
}
