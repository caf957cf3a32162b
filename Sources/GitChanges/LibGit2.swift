import CLibgit2

/// Facts about the libgit2 this binary is linked against.
public enum LibGit2 {
    /// The linked libgit2's version, such as `1.5.1`.
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        _ = git_libgit2_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
