import CLibgit2
import CLibgit2Loader
import PipelineCore

/// Why git could not answer. Messages say what to do, not what libgit2 called it.
public enum GitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No repository at `path` or any folder above it.
    case notARepository(path: String)
    /// The repository belongs to another user and git refuses to read it.
    case notOwned(path: String)
    /// `revision` names no commit.
    case unknownRevision(String, reason: String)
    /// The repository has no commits yet.
    case noCommits(path: String)
    /// A shallow clone lacks the history the comparison needs.
    case shallowClone(missing: String)
    /// The two revisions share no history.
    case noMergeBase(String, String)
    /// Any other libgit2 failure: the operation, libgit2's code, error class and message.
    case libgit2(operation: String, code: Int32, errorClass: Int32, message: String)

    /// For a remote branch a CI's checkout did not fetch (GitHub's pull-request checkout fetches
    /// only the merge), the command that fetches it.
    static func fetchHint(_ revision: String) -> String {
        let parts = revision.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, parts[0] == "origin", !revision.contains("..") else { return "" }
        return "; this checkout has not fetched it: 'git fetch origin \(parts[1]):refs/remotes/\(revision)' "
            + "(in GitHub Actions, 'fetch-depth: 0' on actions/checkout fetches every branch)"
    }

    public var description: String {
        switch self {
        case .notARepository(let path):
            "not a git repository: \(path) (nor any folder above it)"
        case .notOwned(let path):
            "the repository at \(path) belongs to another user; if you trust it, run "
                + "'git config --global --add safe.directory \(path)'"
        case .unknownRevision(let revision, let reason):
            "unknown revision '\(revision)': \(reason)" + Self.fetchHint(revision)
        case .noCommits(let path):
            "the repository at \(path) has no commits yet"
        case .shallowClone(let missing):
            "shallow clone: \(missing) is not in this clone; fetch more history "
                + "('git fetch --deepen=1', or 'git fetch --unshallow'; in GitHub Actions, 'fetch-depth: 0')"
        case .noMergeBase(let first, let second):
            "'\(first)' and '\(second)' have no common ancestor"
        case .libgit2(let operation, let code, let errorClass, let message):
            "\(operation) failed: \(message) (libgit2 error \(code), class \(errorClass))"
        }
    }
}

/// libgit2's process-wide set-up, and the one checker every libgit2 call goes through.
enum LibGit2Runtime {
    /// `git_libgit2_init` runs once per process, before any repository is opened; then reading is
    /// set up as git reads: without re-hashing every object to verify it (git's own default).
    private static let initialized = Result { () throws(GitError) -> Void in
        _ = try check(git_libgit2_init(), "initialising libgit2")
        try check(pipeline_git_set_strict_hash_verification(0), "turning off strict hash verification")
    }

    static func ensureInitialized() throws(GitError) {
        try initialized.get()
    }

    /// Returns `result` when it is not an error; otherwise reads libgit2's thread-local error at once
    /// and throws it. The last error is read in the same synchronous call that failed.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(GitError) -> Int32 {
        guard result < 0 else { return result }
        let (errorClass, message) = lastError()
        throw .libgit2(operation: operation(), code: result, errorClass: errorClass, message: message)
    }

    static func lastError() -> (errorClass: Int32, message: String) {
        guard let error = git_error_last() else { return (0, "no message") }
        return (error.pointee.klass, error.pointee.message.map { String(cString: $0) } ?? "no message")
    }
}

/// Facts about the libgit2 this binary uses (loaded on first use where built to, linked elsewhere).
public enum LibGit2 {
    /// The libgit2 version in use, such as `1.5.1`; throws why none could be loaded.
    public static func version() throws(GitError) -> String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        try LibGit2Runtime.check(git_libgit2_version(&major, &minor, &patch), "loading libgit2")
        return "\(major).\(minor).\(patch)"
    }
}

extension GitError: ExitCoded {
    public var exitStatus: ExitStatus { .git }
}
