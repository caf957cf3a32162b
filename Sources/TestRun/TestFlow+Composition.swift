import CISystem
import Foundation
import GitChanges
import TestCore
import TestImpact
import TestSharding
import Verdicts

/// Runs that stand partly on a verified run: the same change verified over another base, and a
/// run by impact composed on the nearest verified ancestor (docs/ci.md, "Tested once").
extension TestFlow {

    /// For a commit whose tree no run verified: a passing record of the same change (this commit's
    /// from its first parent, under the same build, selection and references) made over another
    /// base, and the repository's paths whose content differs from the tree that run verified:
    /// what the base's moves since changed, the change's own files left out (they hold what the
    /// verified run had). Nil when there is none, or the base it was made on cannot be read.
    func verifiedChange(_ key: VerdictKey) async throws -> VerifiedChange? {
        // A node's part cannot take the rest's results: the run's report merges the parts.
        guard request.verdicts?.reuse == true, request.mode.runs, request.shared.queue == nil else { return nil }
        let history = try CommitHistory(repositoryPath: request.package.path)
        let change = try history.contentChange(of: "HEAD")
        guard !change.isEmpty else { return nil }
        let same = Set(change.keys)
        // Of the records of this change (over several bases: a check, a post-merge composed on
        // it), the one whose tree differs least from this one.
        var nearest: VerifiedChange?
        for record in try await reusedVerdicts(try key.change(change), saidTree: key.tree, all: true) {
            guard let base = record.base else { continue }
            let moved: [ChangedFile]
            do {
                moved = try ChangeDetector(repositoryPath: history.workTree).changes(.range(base: base, head: "HEAD"))
                    .files
            } catch {
                request.write(
                    "verdicts: run \(record.run) verified this change over \(base.prefix(12)), which cannot be read here: \(error)\n"
                )
                continue
            }
            let differing = Set(moved.flatMap(\.touchedPaths)).subtracting(same).sorted()
            if differing.count < nearest?.differing.count ?? Int.max {
                nearest = VerifiedChange(record: record, base: base, differing: differing, same: same)
            }
        }
        return nearest
    }

    /// For a run selecting by impact whose tree no run verified: the nearest of HEAD's first
    /// parents (`composeDepth` at most) whose tree a passing record of the same build, selection
    /// and render environment verified (develop's last post-merge run, below a pull request's merge
    /// ref), as a verified change over it: what differs from that tree runs here (and the tests
    /// whose references differ from the record's), the rest's results are the record's, and the
    /// run's verdict, so composed, stands for its own tree. Nil, said, when none is found.
    func verifiedBase(_ key: VerdictKey) async throws -> VerifiedChange? {
        guard request.verdicts?.reuse == true, request.mode.runs else { return nil }
        guard request.shared.queue == nil else {
            _ = verdictsNotUsed(
                "a shared run's nodes select alike only by the whole suite: it runs by impact uncomposed")
            return nil
        }
        let history = try CommitHistory(repositoryPath: request.package.path)
        for commit in history.firstParents(of: "HEAD", until: nil, limit: Self.composeDepth + 1).dropFirst() {
            var ancestor = key.treeKey
            ancestor.tree = try history.treeID(commit)
            guard let record = try await reusedVerdict(ancestor) else { continue }
            let moved: [ChangedFile]
            do {
                moved = try ChangeDetector(repositoryPath: history.workTree).changes(.range(base: commit, head: "HEAD"))
                    .files
            } catch {
                request.write("verdicts: \(commit.prefix(12))'s change to HEAD cannot be read here: \(error)\n")
                return nil
            }
            // A reference line is `<Test>/<file> <md5>`: the test files whose references differ.
            let references = Set(record.key.references).symmetricDifference(key.references).compactMap {
                $0.split(separator: "/").first.map(String.init)
            }
            return VerifiedChange(
                record: record, base: commit, differing: Set(moved.flatMap(\.touchedPaths)).sorted(), same: [],
                composed: true, references: Set(references))
        }
        request.write(
            "verdicts: none of the \(Self.composeDepth) commits below HEAD has a verified tree to compose on: "
                + "this run's verdict is kept only if it runs every test\n")
        return nil
    }

    /// How far below HEAD a verified tree is looked for.
    static let composeDepth = 20

    /// `prepared` cut down to the tests what differs from the verified tree can reach (by the
    /// impact map when one is kept beside the timings, else by the targets the paths affect, the
    /// rules of `--impacted` and `--affected`), each decision written, and tests the verified run
    /// did not have; with the verified run's results of the tests left out.
    func verifiedSelection(
        _ prepared: SuiteRun.Prepared, session: TestSession, verified: VerifiedChange
    ) async throws -> (prepared: SuiteRun.Prepared, taken: [TestReport.Entry]) {
        var reached: Set<TestID>
        // A branch's job relies only on an impact map develop's jobs wrote.
        let timings = request.shared.timings ?? .local
        let mapTrusted =
            !VerdictTrust.confirms(CIContext(request.shared.variables).trustScope) || timings.writtenByDevelopOnly
        if !mapTrusted {
            request.write(
                "verdicts: the impact map kept with the timings (\(timings)) is one a pull request's job may write: "
                    + "the test targets the paths affect decide what runs\n")
        }
        if mapTrusted, try await session.timings.impact() != nil {
            let selection = try await session.impacted(prepared, base: verified.base, verified: verified.same)
            reached = Set(selection?.tests ?? [])
        } else {
            let affected = try await AffectedTests.select(
                package: request.package, repository: try CommitHistory(repositoryPath: request.package.path).workTree,
                changedPaths: verified.differing, named: AffectedTests.namedInSources(of: request.package))
            affected.reasons.forEach { request.write($0 + "\n") }
            let patterns = try (affected.filters ?? [""]).map { try Regex($0) }
            reached = Set(prepared.tests.filter { test in patterns.contains { test.name.contains($0) } })
        }
        let kept = Dictionary(
            verified.record.report.tests.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // A test the verified run did not have runs, whatever reaches it; so do the tests of a
        // test file whose references differ from the verified run's, and every test when such a
        // file names no suite (its tests cannot be told).
        reached.formUnion(prepared.tests.filter { kept[$0.name] == nil })
        if !verified.references.isEmpty {
            // A suite's name without its module, as swift-snapshot-testing names its test file's folder.
            let suiteName = { (test: TestID) in test.suite.split(separator: ".").last.map(String.init) ?? "" }
            let suites = Set(prepared.tests.map(suiteName))
            if verified.references.isSubset(of: suites) {
                reached.formUnion(prepared.tests.filter { verified.references.contains(suiteName($0)) })
            } else {
                request.write(
                    "verdicts: references differ from run \(verified.record.run)'s for "
                        + "\(verified.references.subtracting(suites).sorted().joined(separator: ", ")), "
                        + "which name no suite: every test runs\n")
                reached.formUnion(prepared.tests)
            }
        }
        let taken = prepared.tests.filter { !reached.contains($0) }.compactMap { kept[$0.name] }
        request.write(
            "verdicts: \(taken.count) \(taken.count == 1 ? "test's" : "tests'") results taken from run \(verified.record.run), "
                + "\(reached.count) run for what differs from the tree it verified\n")
        let tests = prepared.tests.filter { reached.contains($0) }
        return (prepared.only(tests, shards: session.suite.options.shards, node: request.limits.node), taken)
    }
}

/// A passing record that stands for part of this run: of this commit's change, verified over
/// another base (`TestFlow.verifiedChange`), or of a first-parent ancestor's tree
/// (`TestFlow.verifiedBase`, `composed`).
package struct VerifiedChange: Sendable {
    let record: Verdict
    /// The commit the verified run's tree was made on (the ancestor itself, when composed).
    let base: String
    /// The repository's paths whose content differs from the verified tree.
    let differing: [String]
    /// The change's own paths: as the verified tree had them.
    let same: Set<String>
    /// Whether the record is an ancestor's whole-tree verdict this run composes on.
    var composed = false
    /// The test files (`__Snapshots__/<Test>`) whose references differ from the record's.
    var references: Set<String> = []

    /// The line a run of the rest says.
    var line: String {
        let differ =
            "\(differing.count) path\(differing.count == 1 ? "" : "s") differ\(differing.count == 1 ? "s" : "") "
            + "from the tree it verified"
        guard !composed else {
            return
                "composing on the verdict of \(record.name) (\(record.date), \(record.scope)), \(base == record.commit ? "" : "of \(base.prefix(12)), ")"
                + "\(differ): what they reach runs here, the rest's results are that run's"
        }
        return "verified already over \(base.prefix(12)): this change's tests passed in run \(record.run) on commit "
            + "\(record.commit.prefix(12)) (\(record.date), \(record.scope)); \(differ)"
    }
}
