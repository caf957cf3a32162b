import Foundation
import GitChanges
import ObjectStorage
import SnapshotConventions

extension ReferenceTransfers {
    /// The tests a merge's promotion leaves develop stale for, each with the command that fixes
    /// it; `report` is the promotion's so far. A test the merge changed in git (its test file or
    /// reference folder) is stale when none of its references reached develop and
    ///
    /// - it is a snapshot test develop has no references for (a new test: nothing pushed or
    ///   accepted on its branch, or none found), or
    /// - its references were pushed from commits the merge cannot be shown to bring in, while the
    ///   merge gave its branch's work new commit ids (a single-parent head: a squash or rebase)
    ///   and no kept branch change matched it, so whether this branch pushed them cannot be told.
    ///
    /// A test whose CI renderings were never accepted is already failing the promotion
    /// (`neverAccepted`); a test whose test file changed on a merge whose branch is known and
    /// pushed nothing of it changed no reference (its branch's CI passed on develop's).
    func notPromoted(
        _ report: TransferReport, changes: ChangeSet, merged: MergedCommits, notPushed: [String],
        committed: CommittedReferences, develop: StoreLocation, history: CommitHistory
    ) async throws -> [NotPromoted] {
        var found: [NotPromoted] = []
        let unknownBranch = !changes.headIsMerge && merged.heads.isEmpty
        for test in changes.promotable.sorted()
        where committed.tests[test] == nil && report.pushCommits[test] == nil
            && !report.neverAccepted.contains(test)
        {
            if try await Self.files(of: test, in: develop).isEmpty,
                let file = changes.testFiles.first(where: { $0.name == test && $0.status != .deleted }),
                let text = try history.contents(of: file.path, at: changes.head),
                SnapshotTestSource.keepsReferences(String(decoding: text, as: UTF8.self))
            {
                found.append(
                    NotPromoted(
                        test: test,
                        reason: "a snapshot test new to develop, and nothing of it was pushed or accepted on the "
                            + "merged branch (\(develop.name) has no references for it)",
                        fix:
                            "accept CI's rendering on the branch (pipeline refs accept \(test) --commit <branch head>) "
                            + "or, on this commit, "
                            + RecordCommand.text(testFile: test, package: stores.base, variables: stores.variables)
                            + "; then pipeline refs promote"))
            } else if unknownBranch, notPushed.contains(test) {
                found.append(
                    NotPromoted(
                        test: test,
                        reason: "feature holds pushes of it, but this merge gave its branch's commits new ids "
                            + "(a squash or rebase) and no change kept of that branch matches it, so whether they "
                            + "are this merge's cannot be told",
                        fix: "pipeline refs promote --branch-head <the merged branch's last commit>"))
            }
        }
        return found
    }
}
