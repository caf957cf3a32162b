import CISystem
import Foundation
import GitChanges
import ObjectStorage

/// The merged branches' commits the CI confirms. A squash or rebase is matched to its branch
/// through the branch changes kept in feature, which a pull request's credentials write, saying
/// anything: a kept change claiming another pull request's content under its own commit would
/// bring that commit's pushes into develop. So a branch's job on GitHub (a post-merge run) that
/// can ask takes a squash or rebase match only at a commit of a pull request GitHub lists as
/// merged by the comparison's commits. A person's promotion, and other CIs, match by content as
/// before.
struct MergeConfirmation: Sendable {
    /// The merged pull requests' commits GitHub lists; nil when not asked (then matches by content stand).
    let commits: Set<String>?
    /// Why a branch's job on GitHub did not ask, or could not; nil otherwise.
    let note: String?

    /// Not asked: matches by content stand.
    static let unasked = MergeConfirmation(commits: nil, note: nil)

    /// What GitHub says of `changes`: the commits of the pull requests merged by its head and the
    /// head's first parents back to its base (50 at most), asked only in a branch's job on GitHub.
    static func of(_ changes: ChangeSet, history: CommitHistory, variables: [String: String]) async
        -> MergeConfirmation
    {
        let ci = CIContext(variables)
        guard ci.gitHub != nil, case .branch = ci.trustScope else { return .unasked }
        let records: GitHubRecords
        switch GitHubRecords.reachable(
            variables, fetch: { url, headers in try await WebRequest.get(url, headers: headers) })
        {
        case .success(let reachable): records = reachable
        case .failure(let error):
            return MergeConfirmation(
                commits: nil, note: "squash and rebase matches taken by content, unconfirmed: \(error)")
        }
        let commits = history.firstParents(of: changes.head, until: changes.base, limit: 50)
        do {
            var confirmed: Set<String> = []
            for pull in try await records.mergedPullRequests(of: commits) {
                confirmed.insert(pull.head)
                confirmed.formUnion(try await records.commits(ofPullRequest: pull.number))
            }
            return MergeConfirmation(commits: confirmed, note: nil)
        } catch {
            return MergeConfirmation(
                commits: nil, note: "squash and rebase matches taken by content, unconfirmed: \(error)")
        }
    }
}
