import CISystem
import Foundation
import ObjectStorage

/// Which verdict records a job may take (docs/ci.md, "Tested once"). A record names the run and
/// the trust scope that wrote it, but a pull request's credentials can write a record saying
/// anything, so a job of a branch (a post-merge run) takes one only when the CI's own record
/// confirms it: the run it names passed, and is either a run of a pull request this push merged,
/// on the head it was merged at, or of the merge queue's entry this push is, or a run of this
/// branch on the record's commit. A developer's machine and a pull request's job take what their
/// stores hold, as before.
public struct VerdictTrust: Sendable {
    let scope: TrustScope
    let records: Result<GitHubRecords, CIRecordsError>
    /// The commits the push brought, newest first (the head first).
    let pushed: [String]
    /// A commit's tree, when this clone has it.
    let tree: @Sendable (String) -> String?

    public init(
        scope: TrustScope, variables: [String: String], pushed: [String], tree: @escaping @Sendable (String) -> String?
    ) {
        (self.scope, self.pushed, self.tree) = (scope, pushed, tree)
        records = GitHubRecords.reachable(variables) { url, headers in try await WebRequest.get(url, headers: headers) }
    }

    /// Whether a job of `scope` needs the CI to confirm what it takes: a branch's, a tag's, or a
    /// CI job whose event cannot be told.
    public static func confirms(_ scope: TrustScope) -> Bool {
        switch scope {
        case .machine, .pullRequest: false
        case .branch, .tag, .unknown: true
        }
    }

    /// nil when `record` may stand for this job; otherwise why it is passed over, one sentence.
    public func refusal(of record: Verdict) async -> String? {
        guard Self.confirms(scope) else { return nil }
        let records: GitHubRecords
        switch self.records {
        case .success(let reachable): records = reachable
        case .failure(let error): return "the CI cannot confirm it: \(error)"
        }
        guard let id = record.run.wholeMatch(of: /\d+/).map({ String($0.output) }) else {
            return "its run '\(record.run)' is not a GitHub run"
        }
        do {
            guard let run = try await records.run(id) else { return "GitHub knows no run \(id) of this repository" }
            guard run.completed, run.conclusion == "success" else {
                return
                    "GitHub says run \(id) \(run.completed ? "ended \(run.conclusion ?? "without a conclusion")" : "has not completed")"
            }
            return try await tie(record, to: run, records: records)
        } catch {
            return "GitHub could not be asked: \(error)"
        }
    }

    /// nil when the passing `run` is the one `record` claims and stands for this push's tree.
    private func tie(_ record: Verdict, to run: CIRun, records: GitHubRecords) async throws(CIRecordsError)
        -> String?
    {
        let label = record.scope
        if let number = label.firstMatch(of: /^pr\/(\d+)$/).flatMap({ Int($0.output.1) }) {
            if run.event == "merge_group" {
                let entry = run.branch?.firstMatch(of: /\/pr-(\d+)-[0-9a-f]+$/).flatMap { Int($0.output.1) }
                guard entry == number else {
                    return
                        "it is labelled \(label), but run \(run.id) checked \(entry.map { "pull request \($0)'s" } ?? "another") merge queue entry"
                }
                guard pushed.contains(run.head) else {
                    return
                        "run \(run.id) checked merge queue commit \(run.head.prefix(12)), which this push did not bring"
                }
                return nil
            }
            guard run.event.hasPrefix("pull_request") else {
                return "it is labelled \(label), but run \(run.id) is a \(run.event) run"
            }
            guard run.pullRequests.contains(number) else {
                let owner = run.pullRequests.map { "pull request \($0)'s" }.joined(separator: ", ")
                return "it is labelled \(label), but run \(run.id) is \(owner.isEmpty ? "no pull request's" : owner)"
            }
            let merged = try await records.mergedPullRequests(of: pushed)
            guard let pull = merged.first(where: { $0.number == number }) else {
                return "pull request \(number) is not one this push merged"
                    + (merged.isEmpty ? "" : " (it merged \(merged.map { "#\($0.number)" }.joined(separator: ", ")))")
            }
            guard pull.head == run.head else {
                return "run \(run.id) checked \(run.head.prefix(12)), but pull request \(number) was merged at "
                    + pull.head.prefix(12)
            }
            return nil
        }
        if case .branch(let own) = scope, label == scope.folder {
            guard run.branch == own, !run.event.hasPrefix("pull_request"), run.event != "merge_group" else {
                return
                    "it is labelled \(label), but run \(run.id) is a \(run.event) run of \(run.branch ?? "no branch")"
            }
            guard run.head == record.commit, let tree = tree(record.commit), tree == record.key.tree else {
                return "run \(run.id) checked \(run.head.prefix(12)), whose tree is not the record's"
            }
            return nil
        }
        return "it was written by \(label), whose runs \(scope.folder) does not take"
    }
}
