import CISystem
import Foundation
import GitChanges
import ObjectStorage

/// What a branch commit changed since its branch was cut, kept in feature beside its pushes and
/// CI's candidates as `<feature>/.changes/<commit>.json`, so that a merge giving the branch's work
/// other commit ids (a squash, a rebase, a branch rebased after it pushed) still finds them, even
/// in a clone that never had the branch's commits. Its JSON form is documented in docs/references.md.
public struct BranchChange: Codable, Sendable, Equatable {
    /// One commit of the branch and its own change (against its first parent).
    public struct Step: Codable, Sendable, Equatable {
        public let commit: String
        public let isMerge: Bool
        public let change: ChangeIdentity
    }

    public let commit: String
    /// Where the branch was cut: the nearest merge base with the integration branch.
    public let fork: String
    /// The branch's whole change from `fork` to `commit`.
    public let change: ChangeIdentity
    /// The branch's commits after `fork`, oldest first, `commit` last.
    public let commits: [Step]

    /// `commit`'s branch change, cut where `integration` (revisions, in order of preference)
    /// says; nil when none of them reads or `commit` is on all of them, or the branch is too long.
    static func make(commit: String, integration: [String], history: CommitHistory) throws -> BranchChange? {
        guard let fork = try history.forkPoint(of: commit, integration: integration),
            let commits = try history.commits(from: fork, to: commit)
        else { return nil }
        var steps: [Step] = []
        for (sha, isMerge) in commits {
            let parent = try history.parents(of: sha).first
            steps.append(Step(commit: sha, isMerge: isMerge, change: try history.changeIdentity(from: parent, to: sha)))
        }
        return BranchChange(
            commit: commit, fork: fork, change: try history.changeIdentity(from: fork, to: commit), commits: steps)
    }

    /// The revisions a branch merges into, most likely first: on a pull request's synthetic merge
    /// commit, its first parent (the base it was made on); the branch the CI says the pull request
    /// targets; else the spec's `changes.base`, the remote's default branch and the usual names.
    static func integration(syntheticMerge parents: [String]?, ci: CIContext, specBase: String?) -> [String] {
        if let parents, let base = parents.first { return [base] }
        if let target = ci.targetBranch { return ["origin/\(target)", "refs/heads/\(target)"] }
        let usual = ["develop", "main", "master", "trunk"].flatMap { ["origin/\($0)", "refs/heads/\($0)"] }
        return (specBase.map { [$0] } ?? []) + ["origin/HEAD"] + usual
    }
}

/// How a comparison brought in a commit that pushed references or kept CI's renderings.
public enum MergeMatch: String, Codable, Sendable {
    /// The commit is in the merged history (a merge commit's branch, a fast-forward).
    case ancestry
    /// Its branch's whole change is in the comparison's change: a squash merge, or a merge of the
    /// branch rebased after it pushed.
    case squash
    /// The head's last commits replay its branch's commits one by one: a rebase merge.
    case rebase
    /// The command named the merged branch's head (`--branch-head`).
    case named
}

/// The branch changes kept in feature: `.changes/<commit>.json`.
struct BranchChangeArchive {
    let feature: StoreLocation
    static let folder = ".changes"

    private func key(_ commit: String) throws(StoreError) -> ObjectKey {
        try ObjectKey("\(Self.folder)/\(commit).json").under(feature.prefix)
    }

    func save(_ change: BranchChange) async throws {
        guard let shared = feature.store as? any SharedStore else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await shared.put(try encoder.encode(change), to: try key(change.commit), condition: .always)
    }

    /// Every commit with a kept change, in one listing.
    func commits() async throws -> [String] {
        let folder = try ObjectKey(Self.folder).under(feature.prefix)
        return try await feature.store.list(under: folder).compactMap { object in
            guard let name = object.key.relative(to: folder)?.rawValue, name.hasSuffix(".json") else { return nil }
            let commit = String(name.dropLast(".json".count))
            return PushArchive.isCommit(commit) ? commit : nil
        }
    }

    /// `commit`'s kept change; nil when there is none. One that does not read is refused by name.
    func change(of commit: String) async throws -> BranchChange? {
        guard let shared = feature.store as? any SharedStore, let (data, _) = try await shared.get(try key(commit))
        else { return nil }
        guard let change = try? JSONDecoder().decode(BranchChange.self, from: data), change.commit == commit else {
            throw StoreError.io(path: try key(commit).rawValue, reason: "not a branch change record")
        }
        return change
    }
}

extension ReferenceTransfers {
    /// Keeps what `commit`'s branch changed since it was cut, so a squash or rebase merge finds
    /// what `commit` pushed or CI kept. On a pull request's synthetic merge commit of `commit` (the
    /// checkout's HEAD, `commit` its second parent) the branch is cut from HEAD's first parent.
    /// Returns a note when it cannot be kept (no repository, no integration branch in the clone);
    /// nothing is thrown: the push or the candidates stand, and a merge that cannot find them
    /// fails loudly instead. A commit already on an integration branch keeps nothing.
    func keepBranchChange(of commit: String, in feature: StoreLocation) async -> String? {
        do {
            let history = try CommitHistory(repositoryPath: stores.base.path)
            let head = try history.sha("HEAD")
            let parents = try history.parents(of: head)
            let synthetic = head != commit && parents.count == 2 && parents[1] == commit
            let integration = BranchChange.integration(
                syntheticMerge: synthetic ? parents : nil, ci: CIContext(stores.variables),
                specBase: integrationBranch)
            for revision in integration where (try? history.isAncestor(commit, of: revision)) == true { return nil }
            guard let change = try BranchChange.make(commit: commit, integration: integration, history: history) else {
                return "\(commit.prefix(12)) is on no integration branch this clone has "
                    + "(\(integration.prefix(3).joined(separator: ", ")), …), so a squash or rebase merge of its branch "
                    + "will not find this by itself; set changes.base in the spec, or fetch the branch it merges into"
            }
            guard !change.change.isEmpty else { return nil }
            try await BranchChangeArchive(feature: feature).save(change)
            return nil
        } catch {
            return "what \(commit.prefix(12))'s branch changed could not be kept (\(error)); "
                + "a squash or rebase merge of it will not find this by itself"
        }
    }
}
