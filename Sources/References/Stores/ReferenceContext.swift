import CISystem
import Foundation
import GitChanges
import PipelineCore
import PipelineSpec

/// The spec whose references a command uses, and the folder its paths are relative to: the
/// pipeline named, else the one pipeline that sets references; none when there is no spec.
public struct ReferenceSource: Sendable {
    public let spec: PipelineSpec?
    /// Where the settings came from, for messages: `pipelines/post-merge.yml`, or why there is no spec.
    public let origin: String
    /// The folder holding `pipelines/` (or the working folder without one).
    public let base: URL

    public init(spec: PipelineSpec?, origin: String, base: URL) {
        self.spec = spec
        self.origin = origin
        self.base = base
    }

    /// Finds the spec from `directory`: `pipeline` when named, else the one that sets references.
    public static func locate(from directory: URL, pipeline: String?) throws -> ReferenceSource {
        let catalog: PipelineCatalog
        do {
            catalog = try PipelineCatalog.locate(from: directory)
        } catch {
            if pipeline != nil { throw error }
            return ReferenceSource(spec: nil, origin: "there is no pipelines/ folder here", base: directory)
        }
        let base = catalog.folder.deletingLastPathComponent()
        if let pipeline {
            let spec = try catalog.load(named: pipeline)
            return ReferenceSource(
                spec: spec, origin: catalog.displayPath(of: try catalog.file(named: pipeline)), base: base)
        }
        // The pipelines that set references; invalid specs are left to 'pipeline validate'.
        let candidates = catalog.names().compactMap { name -> (String, PipelineSpec)? in
            guard let spec = try? catalog.load(named: name), spec.references != nil else { return nil }
            return (name, spec)
        }
        guard let first = candidates.first else {
            return ReferenceSource(spec: nil, origin: "no valid pipeline in pipelines/ sets references", base: base)
        }
        if let other = candidates.first(where: { $0.1.references != first.1.references }) {
            throw RequestError(
                "pipelines \(first.0) and \(other.0) name different references; choose one with --pipeline NAME")
        }
        return ReferenceSource(
            spec: first.1, origin: catalog.displayPath(of: try catalog.file(named: first.0)), base: base)
    }

    /// The spec's reference settings with what `overrides` sets (a command line's flags) over them.
    public func references(_ overrides: ReferenceSettings) -> ReferenceSettings {
        var references = spec?.references ?? ReferenceSettings()
        references.feature = overrides.feature ?? references.feature
        references.develop = overrides.develop ?? references.develop
        references.local = overrides.local ?? references.local
        references.endpoint = overrides.endpoint ?? references.endpoint
        references.region = overrides.region ?? references.region
        references.profile = overrides.profile ?? references.profile
        return references
    }

    /// The spec's change settings, with the test pattern overridden when one is given.
    public func changes(testPattern: String?) -> ChangeSettings {
        var changes = spec?.changes ?? ChangeSettings()
        changes.tests = testPattern ?? changes.tests
        return changes
    }
}

/// Everything a reference command works with, read once: the transfers over the stores the spec
/// (and the flags) name, the spec's change settings, and the checkout.
public struct ReferenceContext: Sendable {
    public let transfers: ReferenceTransfers
    public let changeSettings: ChangeSettings
    /// The working folder: the checkout the commands read.
    public let checkout: URL

    /// `environment` names the run's render environment over `PIPELINE_ENVIRONMENT` and the spec's.
    public init(
        checkout: URL, pipeline: String?, overrides: ReferenceSettings = ReferenceSettings(),
        testPattern: String? = nil, environment: String? = nil,
        parallelism: Int = 16, progress: @escaping @Sendable (String, Int, Int) async -> Void = { _, _, _ in }
    ) async throws {
        let source = try ReferenceSource.locate(from: checkout, pipeline: pipeline)
        let stores = try await ReferenceStores(
            settings: source.references(overrides), base: source.base, origin: source.origin, named: environment)
        changeSettings = source.changes(testPattern: testPattern)
        transfers = ReferenceTransfers(
            stores: stores, testPattern: changeSettings.tests, integrationBranch: changeSettings.base,
            parallelism: parallelism, progress: progress)
        self.checkout = checkout
    }

    /// The commit pushes from the checkout are recorded under: HEAD, or on a pull request's CI
    /// run on a synthetic merge commit, the branch head it was made from (`BranchCommit`); nil
    /// outside a repository.
    public var headCommit: String? {
        guard let history = try? CommitHistory(repositoryPath: checkout.path), let head = try? history.sha("HEAD")
        else {
            return nil
        }
        return BranchCommit.key(for: head, history: history, ci: CIContext(transfers.stores.variables)).commit
    }

    /// What the compared commits changed, with the spec's change settings under `query`.
    public func changes(_ query: ChangeQuery) throws -> ChangeSet {
        try query.changes(in: checkout, settings: changeSettings)
    }

    /// The checkout's history, for promotion's ancestry checks.
    public func history() throws -> CommitHistory {
        try CommitHistory(repositoryPath: checkout.path)
    }
}
