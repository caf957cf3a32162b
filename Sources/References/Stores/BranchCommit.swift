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
        guard let head = ci.branchHead(of: checkedOut, parents: parents) else { return (checkedOut, nil) }
        return (head.commit, head.why)
    }
}
