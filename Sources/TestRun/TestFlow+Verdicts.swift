import CISystem
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import SharedRun
import TestCore
import TestImpact
import TestSharding
import Verdicts

/// Where a run's verdict is looked for before it runs, and kept after it passed (docs/ci.md,
/// "Tested once").
public struct VerdictSettings: Sendable {
    /// The stores whose records may stand for this run, in order.
    public var read: [StoreAddress]
    /// Where a passing run keeps its record; nil: not kept.
    public var keep: StoreAddress?
    /// false (`--no-reuse`): the tests always run (a passing run still keeps its record).
    public var reuse: Bool
    /// Whether a record of a run with flaky, retried or quarantined tests may stand.
    public var reuseShaky: Bool
    /// `--full-every N` (`full-every:`): a verdict composed on N or more others since the last
    /// whole-suite run does not stand: the whole suite runs (and records the impact map afresh,
    /// with `impact: record`). Nil: no bound.
    public var fullEvery: Int?

    public init(
        read: [StoreAddress], keep: StoreAddress?, reuse: Bool = true, reuseShaky: Bool = false, fullEvery: Int? = nil
    ) {
        (self.read, self.keep, self.reuse, self.reuseShaky, self.fullEvery) = (read, keep, reuse, reuseShaky, fullEvery)
    }
}

extension TestFlow {
    /// The key of this tree's whole suite, or nil (and why, said once) when this run's verdict
    /// cannot stand for another: a run of part of the suite, a working tree with uncommitted
    /// changes beside its references, measured coverage. A run selecting by impact has the whole
    /// suite's key: a record of it stands for the run, and the run keeps one when it composes on a
    /// verified ancestor (`verifiedBase`). A run recording the impact map is keyed as a plain one:
    /// its instrumented build judges the tests as the plain build does.
    func verdictKey() async throws -> VerdictKey? {
        guard request.verdicts != nil else { return nil }
        guard request.mode.runs || request.mode.isBuildOnly, !request.isHunt, !request.limits.failedOnly,
            request.limits.node == .whole || request.shared.queue != nil
        else { return verdictsNotUsed("this run is not the whole suite (on one machine, or shared through --queue)") }
        guard request.selection == .all || request.selection.usesImpact else {
            return verdictsNotUsed(
                "select: \(request.selection.rawValue) runs what a change reaches, not a tree's whole suite")
        }
        guard request.coverage == nil else {
            return verdictsNotUsed("coverage is measured, which only a run gives")
        }
        guard var key = try await checkoutKey() else { return nil }
        let scratch = SuiteRun.workFolder(of: request.package)
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try await key.addBuild(
            package: request.package, configuration: request.configuration.rawValue,
            flags: request.build.extraArguments,
            buildSystem: await request.build.buildSystem, variables: request.shared.variables, scratch: scratch,
            repository: URL(fileURLWithPath: try CommitHistory(repositoryPath: request.package.path).workTree))
        return key
    }

    /// `pipeline verdict`: the passing record that stands for this checkout's run, said in one
    /// line, or nil and why not. With `notedOnly`, the shared run's note alone (a node reads what
    /// the run's first job found); otherwise this checkout's key (a SwiftPM build's, or `keyed`'s:
    /// a run Xcode would make) is looked for, and in a shared run (`--queue`) the record found is
    /// noted in the run's folder for its nodes and its report.
    public func verifiedRun(notedOnly: Bool) async throws -> Verdict? {
        try await verifiedRun(notedOnly: notedOnly) { try await verdictKey() }
    }

    package func verifiedRun(notedOnly: Bool, keyed key: () async throws -> VerdictKey?) async throws -> Verdict? {
        let queue = try request.shared.runID().map { try timingsPlace().queue(run: $0, node: .whole) }
        if notedOnly {
            guard let queue else { throw RequestError("--noted reads a shared run's note: give --queue too") }
            guard let record = Self.notedVerdict(try await queue.notes()) else {
                request.write("not verified: nothing in \(queue.location) says this run's tree was verified\n")
                return nil
            }
            request.write(record.line + "\n")
            return record
        }
        guard let key = try await key() else { return nil }
        guard let record = try await reusedVerdict(key) else {
            let places = (request.verdicts?.read ?? []).map(\.description).joined(separator: ", ")
            request.write("not verified: no passing verdict of this checkout's key in \(places)\n")
            return nil
        }
        request.write(record.line + "\n")
        try await queue?.keepNote(try JSONFile.encode(record, what: "verdict"), as: Self.verifiedNote)
        return record
    }

    /// Says why this run's verdict is not used; nil.
    package func verdictsNotUsed(_ reason: String) -> VerdictKey? {
        request.write("verdicts: not used: \(reason)\n")
        return nil
    }

    /// The parts of a key every run has: the tree (nil, said, when the working tree has uncommitted
    /// changes beside its references and the run's `outputs`, folders of the package), the
    /// references, the selection and the render environment.
    package func checkoutKey(outputs: [String] = [".build"]) async throws -> VerdictKey? {
        let history: CommitHistory
        let tree: String
        do {
            history = try CommitHistory(repositoryPath: request.package.path)
            tree = try history.treeID("HEAD")
        } catch {
            return verdictsNotUsed("\(error)")
        }
        let local =
            request.stores?.local(testPattern: request.testPattern)
            ?? LocalReferences.scan(request.package, isTest: NamePattern(request.testPattern).matches)
        let listed = try await local.list(under: nil)
        let referenceFiles = Set(
            listed.compactMap { object in
                local.path(
                    of: object.key.firstSegment, file: String(object.key.rawValue.split(separator: "/").last ?? "")
                )
                .map { $0.standardizedFileURL.path }
            })
        let root = history.workTree + "/"
        // The package's own build folder is the run's output, not its input; a Package.resolved the
        // build wrote (none committed) is keyed by its pins.
        let outputs = outputs.map { request.package.appendingPathComponent($0).standardizedFileURL.path + "/" }
        let resolved = request.package.appendingPathComponent("Package.resolved").standardizedFileURL.path
        let changed = try history.uncommittedChanges().filter { !($0.status == .added && root + $0.path == resolved) }
            .map { root + $0.path }.filter { path in
                !referenceFiles.contains(path) && !outputs.contains { path.hasPrefix($0) }
            }
        guard changed.isEmpty else {
            let named = changed.prefix(3).map { String($0.dropFirst(root.count)) }.joined(separator: ", ")
            return verdictsNotUsed("the working tree has uncommitted changes (\(named))")
        }
        return VerdictKey(
            tree: tree, selection: verdictSelection(), environment: request.stores?.environmentName ?? "",
            references: listed.map { "\($0.key.rawValue) \($0.md5)" }.sorted())
    }

    /// What the run selects and how it judges, one line each. Retries and the flaky policy are not
    /// part of it: a record whose tests passed at once, which alone is reused (unless asked), judges
    /// the same under any. A selection by impact is the whole suite's: its verdict is the tree's.
    private func verdictSelection() -> [String] {
        let limits = request.limits
        let selection = request.selection.usesImpact ? TestSelection.all : request.selection
        var lines = [
            "selection \(selection.rawValue)", "filters \(limits.filters.sorted())",
            "skips \(limits.skips.sorted())", "timeout \(limits.timeout)", "tests \(request.testPattern)",
        ]
        if let line = request.quarantineFile.flatMap({ VerdictKey.quarantineLine(of: $0.url) }) { lines.append(line) }
        return lines
    }

    /// The stores a verdict is read from and kept in, opened.
    private func verdictStores(_ addresses: [StoreAddress]) throws -> [VerdictStore] {
        let stores = try request.addressedStores()
        return try addresses.map { VerdictStore(try stores.open($0)) }
    }

    /// A passing record of `key` in the stores the settings read, when one may stand for this job
    /// (`VerdictTrust`: a branch's job takes only what the CI confirms); each record passed over
    /// is named, with why (but not a record of `saidTree`, named already by the tree's lookup).
    func reusedVerdict(_ key: VerdictKey, saidTree: String? = nil) async throws -> Verdict? {
        try await reusedVerdicts(key, saidTree: saidTree, all: false).first
    }

    /// `reusedVerdict`, or with `all`, every record that may stand, newest first.
    func reusedVerdicts(_ key: VerdictKey, saidTree: String? = nil, all: Bool) async throws -> [Verdict] {
        guard let settings = request.verdicts, settings.reuse else { return [] }
        let trust = verdictTrust()
        var passedOver = 0
        var trusted: [Verdict] = []
        for store in try verdictStores(settings.read) {
            for record in try await store.find(key, accept: { settings.reuseShaky || !$0.isShaky }) {
                if let bound = settings.fullEvery, let depth = record.depth, depth >= bound {
                    request.write(
                        "verdicts: the verdict of \(record.name) stands on \(depth) composed since the last whole-suite "
                            + "run (full-every: \(bound)): the whole suite runs\n")
                    continue
                }
                guard let refusal = await trust.refusal(of: record) else {
                    trusted.append(record)
                    if all { continue } else { return trusted }
                }
                guard record.key.tree != saidTree else { continue }
                passedOver += 1
                request.write(
                    "verdicts: passed over the record of run \(record.run) (\(record.scope), commit "
                        + "\(record.commit.prefix(12))): \(refusal)\n")
            }
        }
        if passedOver > 0, trusted.isEmpty {
            request.write("verdicts: no record of this tree that the CI confirms; the tests run\n")
        }
        return trusted
    }

    /// What this job may take: its trust scope, the CI's records, and the commits its push
    /// brought (the head and its first parents back to the push's `before`, 50 at most; the head
    /// alone when the event names none).
    private func verdictTrust() -> VerdictTrust {
        let variables = request.shared.variables
        let ci = CIContext(variables)
        let path = request.package.path
        let history = try? CommitHistory(repositoryPath: path)
        let pushed = history?.firstParents(of: "HEAD", until: ci.pushedFrom, limit: ci.pushedFrom == nil ? 1 : 50) ?? []
        return VerdictTrust(scope: ci.trustScope, variables: variables, pushed: pushed) { commit in
            try? CommitHistory(repositoryPath: path).treeID(commit)
        }
    }

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
            let moved = try ChangeDetector(repositoryPath: history.workTree).changes(.range(base: commit, head: "HEAD"))
            let lines = Set(key.references)
            let references = Set(record.key.references).symmetricDifference(lines).compactMap {
                $0.split(separator: "/").first.map(String.init)
            }
            return VerifiedChange(
                record: record, base: commit, differing: Set(moved.files.flatMap(\.touchedPaths)).sorted(), same: [],
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
            let suites = Set(prepared.tests.map { $0.suite.split(separator: ".").last.map(String.init) ?? "" })
            if verified.references.isSubset(of: suites) {
                reached.formUnion(
                    prepared.tests.filter {
                        verified.references.contains($0.suite.split(separator: ".").last.map(String.init) ?? "")
                    })
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

    /// Keeps a passing run's record where the settings say, saying so; a store that refuses is a
    /// note. A node of a shared run keeps its key in the run's folder instead: the run's report,
    /// which alone knows whether the whole run passed, keeps the record.
    package func keepVerdict(
        _ key: VerdictKey, report: TestReport, queue: WorkQueue?, composedOn: VerifiedChange? = nil
    ) async {
        guard let address = request.verdicts?.keep, report.passed else { return }
        if let queue {
            do {
                try await queue.keepNote(key.encoded(), as: Self.keyNote(request.limits.node.description))
            } catch {
                request.write("verdicts: could not file this node's key in \(queue.location): \(error)\n")
            }
            return
        }
        do {
            try await VerdictStore(try request.addressedStores().open(address)).keep(
                key, report: report, package: request.package, variables: request.shared.variables,
                composedOn: composedOn?.record, asChange: composedOn.map(\.composed) ?? true)
            request.write(
                composedOn.map { "verdicts: kept this run's verdict in \(address), composed on \($0.record.name)\n" }
                    ?? Self.keptLine(address))
        } catch {
            request.write("verdicts: could not keep this run's verdict in \(address): \(error)\n")
        }
    }

    /// The note a node (`I/N`) of a shared run files its key under.
    static func keyNote(_ node: String) -> String { "key-\(node.replacingOccurrences(of: "/", with: "-of-")).json" }

    /// The note the node that found the run's tree verified files the record under.
    static let verifiedNote = "verified.json"

    /// The record a shared run's `notes` say verified its tree; nil when none does.
    static func notedVerdict(_ notes: [String: Data]) -> Verdict? {
        notes[verifiedNote].flatMap { try? JSONDecoder().decode(Verdict.self, from: $0) }
    }

    /// The line saying a run's verdict was kept in `address`.
    static func keptLine(_ address: StoreAddress) -> String {
        "verdicts: kept this run's verdict in \(address) for a run of the same tree\n"
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
