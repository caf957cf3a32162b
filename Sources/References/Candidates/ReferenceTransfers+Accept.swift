import Foundation
import GitChanges
import ObjectStorage

/// What `refs accept` takes: the named tests' candidates (or every test's) of one CI run of a commit.
public struct AcceptRequest: Sendable {
    /// Test file names, or a device's image of one (`ProfileTests/testProfile_iPhone15.1.png`,
    /// that file alone); empty with `all`.
    public var tests: [String]
    public var all: Bool
    /// The commit CI rendered at (full SHA).
    public var commit: String
    /// The branch commit the push is recorded under when it is not `commit`: a CI's synthetic
    /// merge commit's parent on the branch. Nil: `commit` itself.
    public var pushAs: String?
    /// The run; nil takes the latest run that kept candidates.
    public var run: String?
    /// Accept although the test passed since, or feature's references changed after the run.
    public var force: Bool
    public var dryRun: Bool

    /// The test a name given to accept stands for: a test file's name, or the test of one of its
    /// images (`ProfileTests/testProfile_iPhone15.1.png`).
    static func test(of name: String) -> String {
        String(name.prefix { $0 != "/" })
    }

    /// The images named (test → file names), for the tests named by an image rather than whole.
    static func images(_ names: [String]) -> [String: Set<String>] {
        var images: [String: Set<String>] = [:]
        for name in names where name.contains("/") {
            images[test(of: name), default: []].insert(String(name.drop { $0 != "/" }.dropFirst()))
        }
        // A test named whole as well takes all its images.
        for name in names where !name.contains("/") { images[name] = nil }
        return images
    }

    public init(tests: [String], all: Bool, commit: String, run: String?, force: Bool, dryRun: Bool) {
        self.tests = tests
        self.all = all
        self.commit = commit
        self.run = run
        self.force = force
        self.dryRun = dryRun
    }
}

/// What `refs accept` did: the run taken, and the transfers to feature and to the checkout.
public struct AcceptOutcome: Sendable, Encodable {
    public let commit: String
    public let run: String
    public let tests: [String]
    /// The branch commit the push was recorded under, when not `commit` (a synthetic merge's parent).
    public var pushedAs: String?
    /// Tests accepted with `--force` although they would have been refused, with the reason.
    public var overridden: [String: String] = [:]
    public var reports: [TransferReport] = []
    /// The render environment's set the candidates were kept and accepted in; nil (absent in
    /// JSON) for the shared set.
    public var environment: String?
}

extension ReferenceTransfers {
    /// `refs accept`: makes the chosen candidates of a CI run the branch's references. Each test's
    /// references as the branch had them (its newest push from the commit or its ancestors, else
    /// develop's), with the candidates over them, are pushed to feature as the commit's push, so
    /// the merge promotes them as its own; the push's record names the run. Where the checkout
    /// commits a test's references in git, the candidates are written there too, to be committed.
    public func accept(_ request: AcceptRequest, history: CommitHistory?) async throws -> AcceptOutcome {
        let feature = try stores.folder(.feature)
        let archive = CandidateArchive(feature: feature, now: now)
        let runs = try await archive.runs(of: request.commit)
        let kept = runs.filter { !$0.tests.isEmpty }
        // The CI run: the one named, else the latest with every node's part of it.
        let group = request.run.map { name in kept.filter { $0.run == name } } ?? CandidateRun.latest(kept)
        guard let chosen = group.last else {
            throw ReferenceError.noCandidates(
                commit: request.commit, run: request.run, folder: archive.place(of: request.commit))
        }
        // A test file whose tests ran on several nodes has candidates in each node's part.
        var source: [String: [CandidateRun]] = [:]
        for part in group { for test in part.tests { source[test, default: []].append(part) } }
        // A device's image (`ProfileTests/testProfile_iPhone15.1.png`) names its test and that file alone.
        let images = AcceptRequest.images(request.tests)
        let tests = request.all ? source.keys.sorted() : Set(request.tests.map(AcceptRequest.test(of:))).sorted()
        for test in tests where source[test] == nil {
            throw ReferenceError.notATest(
                test,
                reason: "CI's run \(chosen.run) of \(request.commit.prefix(12)) kept no candidate of it "
                    + "(it kept: \(source.keys.sorted().joined(separator: ", ")))")
        }
        var outcome = AcceptOutcome(commit: request.commit, run: chosen.run, tests: tests)
        outcome.environment = stores.environmentName
        outcome.pushedAs = request.pushAs
        let branch = request.pushAs ?? request.commit
        let pushes = PushArchive(feature: feature)
        let pushed = try await pushes.allCommits()  // one listing for every test
        for (test, reason) in try await refusals(of: tests, from: chosen, among: runs, pushes: pushes, pushed) {
            guard request.force else { throw ReferenceError.candidateRefused(test: test, reason: reason) }
            outcome.overridden[test] = reason
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-accept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let staged = StoreLocation(store: FolderStore(root: scratch, keepsMetadata: false))
        for test in tests {
            for base in try await branchReferences(
                of: test, at: branch, history: history, pushes: pushes, pushed[test] ?? [])
            {
                try await copy(test, from: base, to: staged, commit: branch)
            }
            var found: Set<String> = []
            for part in source[test] ?? [chosen] {
                found.formUnion(
                    try await copy(
                        test, from: try archive.candidates(of: request.commit, run: part.run), to: staged,
                        commit: branch, only: images[test]))
            }
            if let named = images[test], case let missing = named.subtracting(found), !missing.isEmpty {
                throw ReferenceError.notATest(
                    "\(test)/\(missing.sorted()[0])",
                    reason: "CI's run \(chosen.run) of \(request.commit.prefix(12)) kept no such candidate of \(test)")
            }
        }
        outcome.reports = try await push(
            tests: tests, from: staged, to: [.feature], commit: branch, prune: false, dryRun: request.dryRun,
            renderedOn: chosen.environment.flatMap(RenderEnvironment.init(metadata:)), acceptedFrom: chosen.run)
        if let history {
            let committed = try committedInGit(tests, at: branch, history: history)
            for part in group {
                let tests = committed.filter { source[$0]?.contains { $0.run == part.run } == true }
                guard !tests.isEmpty else { continue }
                let candidates = try archive.candidates(of: request.commit, run: part.run)
                outcome.reports.append(
                    try await write(tests, from: candidates, dryRun: request.dryRun, images: images))
            }
        }
        return outcome
    }

    /// Why each of `tests` should not be accepted from `run`: it passed in a later run of the
    /// commit, or feature's references of it were pushed after the run (other than by accepting
    /// it).
    private func refusals(
        of tests: [String], from run: CandidateRun, among runs: [CandidateRun], pushes: PushArchive,
        _ pushed: [String: [String]]
    ) async throws -> [(String, String)] {
        var reasons: [String: String] = [:]
        // Each later CI run, its nodes' parts together: a test none of them kept passed there.
        var later: [String: (name: String, tests: Set<String>)] = [:]
        for other in runs where other.run > run.run && !other.sameCIRun(as: run) {
            let key = other.ciRun ?? other.run
            later[key, default: (other.run, [])].tests.formUnion(other.tests)
        }
        for (_, ci) in later.sorted(by: { $0.value.name < $1.value.name }) {
            for test in tests where reasons[test] == nil && !ci.tests.contains(test) {
                reasons[test] = "it passed in a later run of the commit, \(ci.name)"
            }
        }
        for test in tests where reasons[test] == nil {
            for commit in pushed[test] ?? [] {
                guard let record = try await pushes.record(of: test, by: commit), record.acceptedFrom != run.run,
                    let pushed = Timestamp.date(record.pushedAt), let ran = Timestamp.date(run.createdAt), pushed >= ran
                else { continue }
                reasons[test] =
                    "its references in feature were pushed from \(commit.prefix(12)) at \(record.pushedAt), "
                    + "after CI's run \(run.run)"
                break
            }
        }
        return reasons.sorted { $0.key < $1.key }
    }

    /// The test's references as the branch at `commit` has them in the stores, as folders to copy
    /// in turn (a later one's files over an earlier one's): its newest push (among the commits that
    /// pushed it) from `commit` or an ancestor, else develop's along the environment's chain (the
    /// shared set first, the run's own set last); none when neither is known.
    private func branchReferences(
        of test: String, at commit: String, history: CommitHistory?, pushes: PushArchive, _ commits: [String]
    ) async throws -> [StoreLocation] {
        if let history, !commits.isEmpty,
            let found = try await pushes.newestPush(
                of: test, among: commits, history: history, where: { try history.isAncestor($0, of: commit) == true })
        {
            return [try pushes.pushed(by: found)]
        }
        return stores.settings.address(of: .develop) == nil ? [] : try stores.chain(.develop).reversed().map(\.folder)
    }

    /// Copies `test`'s files from `source` over what `destination` holds of it.
    /// Copies `test`'s files (only those named in `only`, when given) from `source`; the names of
    /// the files the source holds of those (copied or identical already).
    @discardableResult
    private func copy(
        _ test: String, from source: StoreLocation, to destination: StoreLocation, commit: String,
        only: Set<String>? = nil
    ) async throws -> Set<String> {
        let sync = StoreSync(from: source, to: destination, parallelism: parallelism)
        var work = try await sync.plan(tests: [test])
        func name(_ key: ObjectKey) -> String { String(key.rawValue.dropFirst(test.count + 1)) }
        if let only { work.keep { only.contains(name($0)) } }
        let result = await sync.execute(work, commit: commit, prune: false)
        if let failure = result.failures.first {
            throw StoreError.transport(endpoint: source.name, reason: "reading \(test): \(failure)")
        }
        return Set((work.copies + work.identical).map(name))
    }

    /// Of `tests`, those whose reference folder in the checkout holds files committed at `commit`.
    private func committedInGit(_ tests: [String], at commit: String, history: CommitHistory) throws -> [String] {
        let local = stores.local(testPattern: testPattern)
        return try tests.filter { test in
            guard let folder = CommittedReferences.checkoutFolder(of: test, local: local, workTree: history.workTree)
            else { return false }
            return !(try history.files(in: folder, at: commit)).isEmpty
        }
    }

    /// Writes the candidates of `tests` into the checkout, over its references (nothing deleted).
    /// Of a test named in `images`, only those files.
    private func write(
        _ tests: [String], from candidates: StoreLocation, dryRun: Bool, images: [String: Set<String>]
    ) async throws -> TransferReport {
        let local = stores.local(testPattern: testPattern)
        let sync = StoreSync(from: candidates, to: StoreLocation(store: local), parallelism: parallelism)
        var plan = try await sync.plan(tests: tests)
        plan.keep { key in
            let test = String(key.rawValue.prefix { $0 != "/" })
            return images[test].map { $0.contains(String(key.rawValue.dropFirst(test.count + 1))) } ?? true
        }
        let report = TransferReport(
            action: "accept", from: candidates.name, to: local.name, tests: tests, commit: nil, dryRun: dryRun)
        return await carryOut(plan, with: sync, report: report, commit: nil, prune: false)
    }
}
