import GitChanges
import ObjectStorage

/// The versions of the C libraries pipeline loads (loading them to ask).
public enum LibraryVersions {
    public static var libgit2: String { LibGit2.version }
    public static var libcurl: String { Curl.version }
}
