import Foundation
import GitChanges
import ObjectStorage

/// Which branch commits a comparison merged, and how each is known: by ancestry (a merge commit,
/// a fast-forward), or, where a squash or a rebase gave the branch's work other commit ids, by the
/// branch changes kept in feature (`BranchChange`): a squash's change contains the branch's whole
/// change; a rebase's last commits each contain one of the branch's commits, in order. A named
/// branch head (`--branch-head`) brings in its commits too. Read once per promotion or pull.
final class MergedCommits {
    let changes: ChangeSet
    let history: CommitHistory
    /// Commits matched through a kept branch change (and the commits of its branch), or named.
    private var matched: [String: MergeMatch] = [:]
    /// The commits whose kept change matched, or the named head: the merged branches' heads as
    /// a push or CI saw them, whose CI runs say whether renderings were left unaccepted.
    private(set) var heads: [String: MergeMatch] = [:]
    /// Each matched head's branch commits, as its kept change lists them.
    private var branches: [String: Set<String>] = [:]
    /// The heads no other head's branch holds: the merged branches' last commits that a push or a
    /// CI run saw, whose last CI run says whether renderings were left unaccepted.
    var tips: [String] {
        heads.keys.filter { head in !branches.contains { $0.key != head && $0.value.contains(head) } }.sorted()
    }
    private var ancestry: [String: Bool] = [:]
    private let namedHead: String?
    /// Kept changes matched by content whose heads the CI did not confirm, a line each, and why the
    /// CI was not asked (`MergeConfirmation`).
    private(set) var passedOver: [String] = []

    private init(changes: ChangeSet, history: CommitHistory, namedHead: String?) {
        (self.changes, self.history, self.namedHead) = (changes, history, namedHead)
    }

    /// The commits `changes` merged, with the branch changes kept in `feature` (nil: ancestry and
    /// the named head only); a squash or rebase matched by content only at a commit `confirmation`
    /// holds, when it holds any. `branchHead` is the merged branch's head when a person named it.
    static func resolve(
        _ changes: ChangeSet, history: CommitHistory, feature: StoreLocation?, branchHead: String?, parallelism: Int,
        confirmation: MergeConfirmation = .unasked
    ) async throws -> MergedCommits {
        let named = try branchHead.map { revision -> String in
            if PushArchive.isCommit(revision), (try? history.sha(revision)) == nil { return revision.lowercased() }
            return try history.sha(revision)
        }
        let merged = MergedCommits(changes: changes, history: history, namedHead: named)
        if let named { merged.heads[named] = .named }
        if let note = confirmation.note { merged.passedOver.append(note) }
        guard let feature else { return merged }
        let archive = BranchChangeArchive(feature: feature)
        var open: [String] = []
        for commit in try await archive.commits() {
            // Commits this clone places by ancestry need no kept change: merged, or merged before.
            if try merged.isBroughtIn(commit) { continue }
            if let base = changes.base, try history.isAncestor(commit, of: base) == true { continue }
            open.append(commit)
        }
        let kept = try await StoreSync.concurrently(open, limit: parallelism) { commit async throws(StoreError) in
            do {
                return try await archive.change(of: commit)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.io(path: commit, reason: "\(error)")
            }
        }
        var unconfirmed: [(commit: String, how: MergeMatch)] = []
        for change in kept.compactMap({ $0 }) {
            let how: MergeMatch?
            if change.commit == named {
                how = .named
            } else if try merged.replays(change) {
                how = .rebase
            } else if change.change.isContained(in: try merged.comparison()) {
                how = .squash
            } else {
                how = nil
            }
            guard let how else { continue }
            if how != .named, let confirmed = confirmation.commits, !confirmed.contains(change.commit) {
                unconfirmed.append((change.commit, how))
                continue
            }
            merged.heads[change.commit] = how
            merged.branches[change.commit] = Set(change.commits.map(\.commit))
            for step in change.commits where merged.matched[step.commit] == nil { merged.matched[step.commit] = how }
            merged.matched[change.commit] = how
        }
        // A commit of a confirmed branch (an earlier head of the merged pull request) is matched
        // through it; any other is named.
        for (commit, how) in unconfirmed where merged.matched[commit] == nil {
            merged.passedOver.append(
                "passed over the branch change kept for \(commit.prefix(12)): it matches this comparison as a "
                    + "\(how.rawValue), but GitHub lists it in no pull request merged here")
        }
        return merged
    }

    /// How the comparison brought `commit` in; nil when it did not (as far as can be told).
    func match(_ commit: String) throws -> MergeMatch? {
        if try isBroughtIn(commit) { return .ancestry }
        if let how = matched[commit] { return how }
        if let namedHead, try history.isAncestor(commit, of: namedHead) == true,
            try changes.base.map({ try history.isAncestor(commit, of: $0) }) != true
        {
            return .named
        }
        return nil
    }

    /// An ancestor of the comparison's head, not of its base.
    private func isBroughtIn(_ commit: String) throws -> Bool {
        if let known = ancestry[commit] { return known }
        var answer = try history.isAncestor(commit, of: changes.head) == true
        if answer, let base = changes.base { answer = try history.isAncestor(commit, of: base) != true }
        ancestry[commit] = answer
        return answer
    }

    private var comparisonChange: ChangeIdentity?
    /// The comparison's own change, read once.
    private func comparison() throws -> ChangeIdentity {
        if let comparisonChange { return comparisonChange }
        let change = try history.changeIdentity(from: changes.base, to: changes.head)
        comparisonChange = change
        return change
    }

    private var ownChanges: [String: ChangeIdentity] = [:]
    /// Whether the head's last commits replay `branch`'s commits one by one, the last on the head
    /// itself: a rebase merge (a branch with merge commits is never replayed so).
    private func replays(_ branch: BranchChange) throws -> Bool {
        let steps = branch.commits
        guard !steps.isEmpty, !steps.contains(where: \.isMerge), steps.contains(where: { !$0.change.isEmpty }) else {
            return false
        }
        // A clone too shallow to read the head's last commits cannot tell; the promotion then says so.
        guard let chain = try? history.firstParents(of: changes.head, count: steps.count), chain.count == steps.count,
            !chain.contains(branch.commit)
        else { return false }
        for (index, commit) in chain.enumerated() {
            let step = steps[steps.count - 1 - index]
            if step.change.isEmpty { continue }
            let own: ChangeIdentity
            if let known = ownChanges[commit] {
                own = known
            } else {
                guard let change = try? history.changeIdentity(from: try history.parents(of: commit).first, to: commit)
                else { return false }
                own = change
                ownChanges[commit] = own
            }
            // A replay is the same change: the same files, at least the same lines (a squash of
            // more than this commit is matched as a squash).
            guard Set(own.files.keys) == Set(step.change.files.keys), step.change.isContained(in: own) else {
                return false
            }
        }
        return true
    }
}
