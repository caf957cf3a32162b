import CISystem
import GitChanges

/// The commit what a run keeps in the stores is keyed by: CI's candidates and pushes. A pull
/// request's CI run on a synthetic merge commit (GitHub's `refs/pull/N/merge`, GitLab's merged
/// results) keys them by the branch head the merge was made from, since the real merge brings in
/// that head and never the synthetic commit; any other run keys them by the commit checked out.
public enum BranchCommit {
    /// The key for `checkedOut`, and why it is another commit when it is.
    public static func key(for checkedOut: String, history: CommitHistory?, ci: CIContext = CIContext()) -> (
        commit: String, why: String?
    ) {
        let parents = (try? history?.parents(of: checkedOut)) ?? []
        if let entry = ci.mergeQueueEntry, let history,
            let head = queuedBranch(of: checkedOut, parents: parents, base: entry.base, history: history)
        {
            return (
                head.sha,
                "the merge queue's entry of pull request #\(entry.pullRequest), which brings in \(head.name): accept "
                    + "on that branch, on the entry's new base"
            )
        }
        guard let head = ci.branchHead(of: checkedOut, parents: parents) else { return (checkedOut, nil) }
        return (head.commit, head.why)
    }

    /// The branch a merge queue's entry brings in: a merge's second parent; for a squash, the
    /// fetched branch (`refs/remotes/origin/*`) whose change since it was cut from `base` is the
    /// entry's own change (the same files, its lines all there). A queue commit is never the
    /// branch's, so what the check keeps must be keyed by the branch's head to be accepted there.
    static func queuedBranch(of entry: String, parents: [String], base: String, history: CommitHistory) -> (
        name: String, sha: String
    )? {
        if parents.count == 2 { return ("its branch's head (the entry's second parent)", parents[1]) }
        guard let parent = parents.first, let own = try? history.changeIdentity(from: parent, to: entry),
            let branches = try? history.branches(matching: "refs/remotes/origin/*")
        else { return nil }
        let matches = branches.filter { branch in
            let name = branch.name.dropFirst("refs/remotes/origin/".count)
            guard name != base, name != "HEAD", !name.hasPrefix("gh-readonly-queue/"), branch.sha != entry,
                let change = try? BranchChange.make(
                    commit: branch.sha, integration: ["refs/remotes/origin/\(base)"], history: history)
            else { return false }
            return Set(change.change.files.keys) == Set(own.files.keys) && change.change.isContained(in: own)
        }
        // Two branches with one change cannot be told apart: the entry's commit stays the key.
        guard matches.count == 1, let match = matches.first else { return nil }
        return ("its branch " + match.name.dropFirst("refs/remotes/origin/".count), match.sha)
    }
}
