import CISystem
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec
import References
import SharedRun
import TestCore
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
