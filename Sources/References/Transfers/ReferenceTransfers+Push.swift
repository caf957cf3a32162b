import Foundation
import ObjectStorage
import PipelineSpec

extension ReferenceTransfers {
    /// Uploads the checkout's references of `tests` (every test's that has local references with
    /// `all`) to each of `roles`, recording `commit`. Every name must be a test of the checkout with
    /// local references.
    public func push(
        tests named: [String], all: Bool = false, to roles: [StoreRole], commit: String?, prune: Bool,
        dryRun: Bool
    ) async throws -> [TransferReport] {
        let local = stores.local(testPattern: testPattern)
        let withReferences = Set(try await local.testsWithReferences())
        let tests = all ? withReferences.sorted() : named
        if all, tests.isEmpty {
            throw ReferenceError.noLocalReferences(
                what: "nothing to push to \(roles.map(\.rawValue).joined(separator: " and "))", store: local.name)
        }
        for test in tests {
            guard local.testFiles.contains(test) else {
                throw ReferenceError.notATest(test, reason: "no test file \(test).swift in \(local.checkout.path)")
            }
            if let problem = local.problem(placing: test) {
                throw ReferenceError.notATest(test, reason: problem.description)
            }
            guard withReferences.contains(test) else {
                throw ReferenceError.notATest(test, reason: "it has no local references in \(local.name)")
            }
        }
        return try await push(
            tests: tests, from: StoreLocation(store: local), to: roles, commit: commit, prune: prune, dryRun: dryRun,
            renderedOn: await RenderEnvironment.current(package: stores.base, variables: stores.variables))
    }

    /// Uploads `source`'s references of `tests` to each of `roles`, recording `commit` and where
    /// they were rendered; feature keeps the push under the commit, its record naming
    /// `acceptedFrom` when it came from CI's candidates.
    func push(
        tests: [String], from source: StoreLocation, to roles: [StoreRole], commit: String?, prune: Bool,
        dryRun: Bool, renderedOn: RenderEnvironment?, acceptedFrom run: String? = nil
    ) async throws -> [TransferReport] {
        let metadata = renderedOn.map { [StoreSync.renderedOnMetadata: $0.metadataValue] } ?? [:]
        var reports: [TransferReport] = []
        for role in roles {
            let created = dryRun ? nil : stores.missingFolder(role)
            let destination = try stores.folder(role, creating: true)
            let sync = StoreSync(from: source, to: destination, parallelism: parallelism)
            let plan = try await sync.plan(tests: tests)
            let report = TransferReport(
                action: run == nil ? "push" : "accept", from: source.name, to: destination.name,
                tests: Set(tests).sorted(), commit: commit, dryRun: dryRun)
            reports.append(
                await carryOut(plan, with: sync, report: report, commit: commit, prune: prune, metadata: metadata))
            if let created, reports[reports.count - 1].failures.isEmpty {
                reports[reports.count - 1].notes.append("created the \(role.rawValue) store at \(created)")
            }
            if role == .feature, let commit, !dryRun, reports.last?.failures.isEmpty == true {
                try await keep(
                    tests, from: source, pushedBy: commit, in: destination, metadata: metadata, acceptedFrom: run)
                if let note = await keepBranchChange(of: commit, in: destination) {
                    reports[reports.count - 1].notes.append(note)
                }
            }
        }
        return reports
    }

    /// Keeps `commit`'s push of `tests` from `source` in feature's archive beside the latest copy:
    /// the files, then a record naming them and what develop held of each test (read from develop
    /// unless given), which later says what the push changed.
    func keep(
        _ tests: [String], from source: StoreLocation, pushedBy commit: String, in feature: StoreLocation,
        develop bases: [String: [String: String]]? = nil, metadata: [String: String] = [:],
        acceptedFrom run: String? = nil
    ) async throws {
        let archive = PushArchive(feature: feature)
        let kept = StoreSync(from: source, to: try archive.pushed(by: commit), parallelism: parallelism)
        let plan = try await kept.plan(tests: tests)
        let develop = stores.settings.address(of: .develop) == nil ? nil : try? stores.folder(.develop)
        let pushedAt = Timestamp.string(now())
        var records: [(test: String, record: PushManifest)] = []
        for test in Set(tests).sorted() {
            let files = try await Self.files(of: test, in: source)
            var base = bases?[test]
            if bases == nil, let develop { base = try? await Self.files(of: test, in: develop) }
            records.append(
                (test, PushManifest(commit: commit, pushedAt: pushedAt, files: files, develop: base, acceptedFrom: run))
            )
        }
        // The files first, then the record naming them: a push stopped between the two is absent
        // (a record without its files would be promoted from half a push).
        if Self.unsafeRecordFirst { for (test, record) in records { try await archive.save(record, of: test) } }
        let result = await kept.execute(plan, commit: commit, prune: true, metadata: metadata)
        if let failure = result.failures.first {
            throw StoreError.transport(
                endpoint: feature.name, reason: "keeping the push of \(commit.prefix(12)): \(failure)")
        }
        if !Self.unsafeRecordFirst { for (test, record) in records { try await archive.save(record, of: test) } }
    }

    /// Debug builds only, to show scripts/bench-kill.sh catches what it guards against:
    /// `PIPELINE_TEST_UNSAFE=push-record-first` writes a push's record before its files.
    static var unsafeRecordFirst: Bool {
        #if DEBUG
            ProcessInfo.processInfo.environment["PIPELINE_TEST_UNSAFE"] == "push-record-first"
        #else
            false
        #endif
    }
}
