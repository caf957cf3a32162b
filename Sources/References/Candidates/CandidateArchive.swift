import CISystem
import Foundation
import ImageDiff
import ObjectStorage

/// What CI rendered of failed snapshots, kept in feature so a reviewer can accept CI's rendering
/// instead of re-recording on a machine that draws pixels differently:
///
/// - `<prefix>/.candidates/<commit>/<run>/<Test>/<file>`: the new values a run's failed snapshots
///   wrote (the library's artifacts), in a reference store's layout;
/// - `<prefix>/.candidates/<commit>/<run>.json`: the run's record (`CandidateRun`).
///
/// A run's name starts with its UTC time (`20261123T211500.042Z`, then the CI's run id when there is
/// one), so names sort in the order the runs were made. Folders starting with `.` are not
/// references: listings, pulls, promotions and `refs orphans` leave them out.
public struct CandidateArchive: Sendable {
    /// Feature: the store and prefix the candidates are kept under.
    public let feature: StoreLocation

    public static let folder = ".candidates"
    /// The time records are written with.
    public var now: @Sendable () -> Date = { Date() }

    public init(feature: StoreLocation, now: @escaping @Sendable () -> Date = { Date() }) {
        self.feature = feature
        self.now = now
    }

    /// `.candidates/<commit>` under feature's prefix.
    func commitFolder(_ commit: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.folder)/\(commit)").under(feature.prefix)
    }

    /// How messages name the folder of `commit`'s candidates.
    public func place(of commit: String) -> String {
        ((try? commitFolder(commit)).map(feature.describe) ?? "\(feature.store.name)/\(Self.folder)/\(commit)") + "/"
    }

    /// The candidates of `commit`'s run `run`, shaped as a reference store (`<Test>/<file>`).
    public func candidates(of commit: String, run: String) throws(StoreError) -> StoreLocation {
        StoreLocation(store: feature.store, prefix: try ObjectKey(run).under(try commitFolder(commit)))
    }

    /// The records of `commit`'s runs, oldest first.
    public func runs(of commit: String) async throws -> [CandidateRun] {
        try await records(under: try commitFolder(commit)) { $0 == commit }
    }

    /// The run records below `folder`, each at `<commit>/<run>.json` from the archive's root (the
    /// commit one of `commits`), oldest first. A record whose name or commit is not its place's
    /// (written by hand) is refused, so no name read from a store leads anywhere else.
    private func records(under folder: ObjectKey, commits: (String) -> Bool) async throws -> [CandidateRun] {
        guard let shared = feature.store as? any SharedStore else { return [] }
        let root = try ObjectKey(Self.folder).under(feature.prefix)
        var runs: [CandidateRun] = []
        for object in try await feature.store.list(under: folder) {
            guard let parts = object.key.relative(to: root)?.rawValue.split(separator: "/"), parts.count == 2,
                parts[1].hasSuffix(".json"), PushArchive.isCommit(String(parts[0])), commits(String(parts[0])),
                let (data, _) = try await shared.get(object.key)
            else { continue }
            guard let run = try? JSONDecoder().decode(CandidateRun.self, from: data), run.commit == parts[0],
                "\(run.run).json" == parts[1]
            else {
                throw StoreError.io(path: object.key.rawValue, reason: "not a candidate run record")
            }
            runs.append(run)
        }
        return runs.sorted { $0.run < $1.run }
    }

    /// Keeps the files of `artifacts` (`<Test>/<file>`, as the library writes failed snapshots)
    /// as `commit`'s run `run`: the files first, then the record naming the tests, so a run with a
    /// record is whole. Returns the record; nil when there was nothing to keep.
    public func keep(
        artifacts: URL, commit: String, run: String, ciRun: String? = nil, node: String? = nil,
        renderedOn: () async -> RenderEnvironment, parallelism: Int = 16
    ) async throws -> CandidateRun? {
        let source = StoreLocation(store: FolderStore(root: artifacts, keepsMetadata: false))
        let sync = StoreSync(from: source, to: try candidates(of: commit, run: run), parallelism: parallelism)
        let plan = try await sync.plan(tests: nil)
        let files = plan.copies + plan.identical
        guard !files.isEmpty else { return nil }
        let environment = await renderedOn().metadataValue
        let result = await sync.execute(
            plan, commit: commit, prune: false, metadata: [StoreSync.renderedOnMetadata: environment])
        if let failure = result.failures.first {
            throw StoreError.transport(endpoint: feature.name, reason: "keeping CI's candidates: \(failure)")
        }
        let record = CandidateRun(
            commit: commit, run: run, createdAt: Timestamp.string(now()),
            tests: Set(files.map(\.firstSegment)).sorted(), environment: environment, ciRun: ciRun,
            node: node)
        try await save(record)
        return record
    }

    /// Notes that `commit`'s run `run` left no candidate of any test: later than the runs before
    /// it, it says their tests passed since. Only written where the commit has candidates.
    public func notePassingRun(commit: String, run: String, ciRun: String? = nil, node: String? = nil) async throws {
        guard !(try await runs(of: commit)).isEmpty else { return }
        try await save(
            CandidateRun(
                commit: commit, run: run, createdAt: Timestamp.string(now()), tests: [], ciRun: ciRun, node: node))
    }

    private func save(_ record: CandidateRun) async throws {
        guard let shared = feature.store as? any SharedStore else {
            throw StoreError.transport(
                endpoint: feature.store.name, reason: "this kind of store cannot keep candidates")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let key = try ObjectKey("\(record.run).json").under(try commitFolder(record.commit))
        try await shared.put(try encoder.encode(record), to: key, condition: .always)
    }

    /// Every run record kept, in one listing: for `refs prune`.
    public func allRuns() async throws -> [CandidateRun] {
        try await records(under: try ObjectKey(Self.folder).under(feature.prefix)) { _ in true }
    }

    /// Removes a run: its record first (so it is no longer offered), then its files and the
    /// review kept beside them (`.reviews/<commit>/<run>/`).
    public func remove(_ run: CandidateRun) async throws {
        try await feature.store.delete(try ObjectKey("\(run.run).json").under(try commitFolder(run.commit)))
        let folder = try candidates(of: run.commit, run: run.run)
        let review = try ObjectKey("\(ReviewArchive.folder)/\(run.commit)/\(run.run)").under(feature.prefix)
        for prefix in [folder.prefix, review] {
            for object in try await feature.store.list(under: prefix) { try await feature.store.delete(object.key) }
        }
    }

    /// A run's name: its UTC time, then the CI's run id and attempt (`ciRun`) and the node of a split
    /// run when there are ones, so that names sort by time and say which CI run made them.
    public static func runName(at date: Date, ciRun: String?, part: String? = nil) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: date) + [ciRun, part].compactMap { $0.map { "-" + $0 } }.joined()
    }
}

/// One run's record of candidates: the tests it kept new values of (none when it left none, which
/// says the tests of earlier runs passed since). Its JSON form is documented in docs/references.md.
public struct CandidateRun: Codable, Sendable, Equatable {
    public let commit: String
    public let run: String
    /// When the run kept them, ISO 8601 in UTC, to the millisecond.
    public let createdAt: String
    public let tests: [String]
    /// Where the run rendered them (`RenderEnvironment.metadataValue`).
    public var environment: String?
    /// The CI's run (its id and attempt), shared by the nodes of a run split across machines, each
    /// of which keeps its own tests' candidates as a run record of its own; nil outside such a CI.
    public var ciRun: String?
    /// The node of a run split across machines (`node-2-of-4`); nil for a whole run.
    public var node: String?

    public init(
        commit: String, run: String, createdAt: String, tests: [String], environment: String? = nil,
        ciRun: String? = nil, node: String? = nil
    ) {
        self.commit = commit
        self.run = run
        self.createdAt = createdAt
        self.tests = tests
        self.environment = environment
        self.ciRun = ciRun
        self.node = node
    }

    /// Whether the two records are parts of one CI run: two nodes of its matrix. The same node
    /// again (a job re-run under the same run id, as GitLab's retry) is a later run.
    public func sameCIRun(as other: CandidateRun) -> Bool {
        guard let ciRun, ciRun == other.ciRun, let node, let otherNode = other.node else { return false }
        return node != otherNode
    }

    /// The newest CI run among `runs` (oldest first): the last record and the other records of its
    /// CI run, which are its other nodes' parts.
    public static func latest(_ runs: [CandidateRun]) -> [CandidateRun] {
        guard let last = runs.last else { return [] }
        return runs.filter { $0.run == last.run || $0.sameCIRun(as: last) }
    }
}

extension CandidateArchive {
    /// `pipeline refs accept` with the options that name the candidates kept under `commit` in
    /// `environment`'s set (nil: the shared set): ` --commit <sha> --environment linux`. The one
    /// place the command's text is made.
    public static func acceptCommand(commit: String, environment: String?) -> AcceptCommand {
        AcceptCommand(
            prefix: "pipeline refs accept",
            options: " --commit \(commit)" + (environment.map { " --environment \($0)" } ?? ""))
    }
}

extension ReferenceTransfers {
    /// After a CI run's snapshot check: keeps the new values the failed snapshots wrote
    /// (`artifacts`, `<Test>/<file>`) in feature as `commit`'s candidates, so a reviewer can accept
    /// them; a run that passed with none is noted, which says earlier candidates' tests passed since.
    /// With a `review` (the page and what it shows), the page and its images are kept beside the
    /// candidates (`ReviewArchive`). Returns the lines to show and where the review is; a store
    /// that cannot be written is a warning, not a failed stage.
    public func keepCandidates(
        artifacts: URL, commit: String, passed: Bool, renderedOn: () async -> RenderEnvironment,
        variables: [String: String], part: String? = nil, review: (page: URL, entries: [ReviewEntry])? = nil
    ) async -> (lines: [String], review: ReviewArchive.Published?) {
        guard stores.settings.address(of: .feature) != nil else { return ([], nil) }
        do {
            let feature = try stores.folder(.feature)
            // What the branch changed, so a squash or rebase merge of it finds these runs and its pushes.
            let branch = await keepBranchChange(of: commit, in: feature).map { ["note: \($0)"] } ?? []
            let archive = CandidateArchive(feature: feature, now: now)
            let ciRun = CIContext(variables).runLabel
            let run = CandidateArchive.runName(at: now(), ciRun: ciRun, part: part)
            guard
                let kept = try await archive.keep(
                    artifacts: artifacts, commit: commit, run: run, ciRun: ciRun, node: part, renderedOn: renderedOn,
                    parallelism: parallelism)
            else {
                if passed { try await archive.notePassingRun(commit: commit, run: run, ciRun: ciRun, node: part) }
                return (branch, nil)
            }
            var lines =
                branch + [
                    "CI's renderings of \(kept.tests.count) test(s) kept in \(archive.place(of: commit))\(run)/; "
                        + CandidateArchive.acceptCommand(commit: commit, environment: stores.environmentName)
                        .advice(kept.tests)
                ]
            guard let review else { return (lines, nil) }
            do {
                // Presigned links open for anyone holding them: in a public repository's logs and
                // summaries, only when the spec says so.
                let presigns =
                    stores.settings.presignedLinks ?? !(CIContext(variables).repositoryIsPublic ?? false)
                let published = try await ReviewArchive(
                    feature: feature, publicAddress: stores.settings.reviewURL, presigns: presigns
                )
                .publish(
                    page: review.page, entries: review.entries, commit: commit, run: run)
                lines.append(
                    "review: \(published.page)" + (published.expires.map { " (the link is valid for \($0))" } ?? ""))
                return (lines, published)
            } catch {
                lines.append("warning: the review page could not be kept in feature: \(error)")
                return (lines, nil)
            }
        } catch {
            return (["warning: CI's renderings could not be kept for 'pipeline refs accept': \(error)"], nil)
        }
    }
}
