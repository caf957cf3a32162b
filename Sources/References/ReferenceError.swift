import PipelineCore

/// Why a reference command cannot go on. Each reads as one line.
public enum ReferenceError: Error, Equatable, CustomStringConvertible {
    /// The spec (or the flags) do not say where a store is.
    case notConfigured(String)
    /// A name given on the command line is not a test of this checkout, or has no references.
    case notATest(String, reason: String)
    /// A named test has nothing in the store it is pulled from.
    case noReferences(test: String, store: String)
    /// Develop's copies were promoted after the branch was cut; `--overwrite` overwrites them.
    case developChanged([PromotionConflict])
    /// Some objects could not be copied or deleted; the rest were. A re-run finishes the job.
    case incomplete(failed: Int, total: Int)
    /// Overwriting needs a confirmation nobody can give.
    case needsConfirmation(String)
    /// Recording references stopped: a test failed for another reason, or wrote another test's
    /// reference. Every reference was put back as it was.
    case recordingFailed(test: String, reason: String)
    /// CI kept no candidates for the commit (or not in the named run) in the folder looked in.
    case noCandidates(commit: String, run: String?, folder: String)
    /// A candidate is not to be accepted: its test passed since, or feature changed after the run.
    case candidateRefused(test: String, reason: String)
    /// The merged commit's last CI run kept new renderings of these tests, and nobody accepted
    /// them: develop keeps the old references, which that run showed failing.
    case neverAccepted(tests: [String], commit: String, environment: String?)
    /// `refs accept --commit` names a commit HEAD's history does not hold, and no parent of it
    /// that the history holds: a push under it would never be merged.
    case notOnBranch(commit: String, head: String)
    /// A folder store a command reads does not exist: a mistyped path would read as an empty store.
    case noStore(role: String, path: String, origin: String)
    /// A merge's promotion left tests it touched without their references in develop.
    case developStale([NotPromoted])
    /// `--all` found nothing to act on: no test of the checkout has local references (`what` says
    /// what was asked, `store` where the references were looked for).
    case noLocalReferences(what: String, store: String)
    /// A store taken over as it is (`init --existing-store`) holds no reference of any test of
    /// the checkout: the layout or the credentials named are not the store's.
    case notAdoptable(String)

    public var description: String {
        switch self {
        case .notConfigured(let message):
            message
        case .notATest(let name, let reason):
            "'\(name)' is not a test here: \(reason)"
        case .noReferences(let test, let store):
            "\(store) has no references for '\(test)'"
        case .neverAccepted(let tests, let commit, let environment):
            "the merged commit \(commit.prefix(12))'s CI run failed snapshots of \(tests.joined(separator: ", ")) and "
                + "its renderings were never accepted, so develop keeps references that fail; accept them "
                + "('\(CandidateArchive.acceptCommand(commit: commit, environment: environment).line(tests))') and promote again"
        case .notOnBranch(let commit, let head):
            "\(commit.prefix(12)) is not in the history of HEAD (\(head.prefix(12))), nor is any parent of it: "
                + "a push recorded under it would never be merged; check out the branch CI ran (or pass "
                + "--commit with the branch's commit CI rendered at)"
        case .noStore(let role, let path, let origin):
            "the \(role) store \(path) does not exist (references.\(role), \(origin)); check the path. "
                + (role == "develop"
                    ? "To start develop, 'pipeline refs promote --all --force --yes' creates it"
                    : "The first 'pipeline refs push' (or 'refs record --push') creates it")
        case .developStale(let tests):
            "develop is stale: the merge touched \(tests.count) test(s) whose references did not reach it "
                + (tests.first.map { "(first: \($0)); " } ?? "") + "fix each as said and promote again"
        case .developChanged(let conflicts):
            "\(conflicts.count) reference(s) in develop changed after this branch was cut "
                + (conflicts.first.map { "(first: \($0)); " } ?? "") + "re-run with --overwrite to overwrite them"
        case .incomplete(let failed, let total):
            "\(failed) of \(total) object(s) failed; the others were done, and re-running finishes the job"
        case .noLocalReferences(let what, let store):
            "\(what): no test has references in \(store) yet; record them first ('pipeline refs record --all')"
        case .notAdoptable(let message): message
        case .needsConfirmation(let what):
            "\(what) needs confirmation: run it in a terminal, or pass --yes"
        case .recordingFailed(let test, let reason):
            "recording stopped: \(test) \(reason); every reference was put back as it was"
        case .noCandidates(let commit, let run, let folder):
            (run.map { "CI's run \($0) of commit \(commit.prefix(12)) kept no candidates" }
                ?? "CI kept no candidates for commit \(commit.prefix(12))") + " (looked in \(folder))"
        case .candidateRefused(let test, let reason):
            "not accepting \(test): \(reason); --force accepts it anyway"
        }
    }
}

extension ReferenceError: ExitCoded {
    public var exitStatus: ExitStatus {
        switch self {
        case .notConfigured: .spec
        case .notATest, .needsConfirmation, .noLocalReferences: .usage
        case .noReferences, .incomplete, .noCandidates, .noStore, .notAdoptable: .storage
        case .developChanged, .candidateRefused, .neverAccepted, .notOnBranch: .conflict
        case .recordingFailed: .testsFailed
        case .developStale: .stale
        }
    }
}
