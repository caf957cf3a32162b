import CLibgit2

/// Text files merged and compared as git does (libgit2's xdiff): three versions of a file merged
/// into one, conflicts marked as `git merge` marks them; one version's difference from another
/// as `git diff` prints it.
public enum TextMerge {
    public struct Merged: Sendable, Equatable {
        public let text: String
        /// The line numbers (from 1) of each conflict's opening marker in `text`; empty when the
        /// merge is clean.
        public let conflicts: [Int]
    }

    /// `ours` and `theirs` merged from their common `base`; `labels` name ours and theirs in the markers.
    public static func merge(
        base: String, ours: String, theirs: String, labels: (ours: String, theirs: String)
    ) throws(GitError) -> Merged {
        try LibGit2Runtime.ensureInitialized()
        let texts = [base, ours, theirs].map { Array($0.utf8CString) }
        var options = git_merge_file_options()
        try LibGit2Runtime.check(
            git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION)), "setting up a merge")
        var result = git_merge_file_result()
        let status = texts[0].withUnsafeBufferPointer { base in
            texts[1].withUnsafeBufferPointer { ours in
                texts[2].withUnsafeBufferPointer { theirs in
                    labels.ours.withCString { oursLabel in
                        labels.theirs.withCString { theirsLabel in
                            func input(_ text: UnsafeBufferPointer<CChar>) -> git_merge_file_input {
                                var input = git_merge_file_input()
                                _ = git_merge_file_input_init(&input, UInt32(GIT_MERGE_FILE_INPUT_VERSION))
                                input.ptr = text.baseAddress
                                input.size = text.count - 1  // without the terminating zero
                                return input
                            }
                            var inputs = (input(base), input(ours), input(theirs))
                            options.our_label = oursLabel
                            options.their_label = theirsLabel
                            return git_merge_file(&result, &inputs.0, &inputs.1, &inputs.2, &options)
                        }
                    }
                }
            }
        }
        try LibGit2Runtime.check(status, "merging three versions of a file")
        defer { git_merge_file_result_free(&result) }
        let text =
            result.ptr.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: result.len), as: UTF8.self) }
            ?? ""
        let conflicts = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .compactMap { $0.element.hasPrefix("<<<<<<< ") ? $0.offset + 1 : nil }
        return Merged(text: text, conflicts: result.automergeable == 0 ? conflicts : [])
    }

    /// `new`'s difference from `old` as a unified diff with `path` in its headers; empty when equal.
    public static func diff(from old: String, to new: String, path: String) throws(GitError) -> String {
        try LibGit2Runtime.ensureInitialized()
        // libgit2 does not copy the two texts: the patch points into them and reads them again
        // when it is printed. So they are copied into memory the patch's owner keeps (the path too).
        let (oldBytes, newBytes, pathBytes) = (CopiedBytes(old.utf8), CopiedBytes(new.utf8), CopiedBytes(cString: path))
        var patch: OpaquePointer?
        try LibGit2Runtime.check(
            git_patch_from_buffers(
                &patch, oldBytes.start, oldBytes.count, pathBytes.cString, newBytes.start, newBytes.count,
                pathBytes.cString, nil),
            "comparing two versions of \(path)")
        guard let patch else { return "" }
        return try Owned(patch, free: git_patch_free, keeping: [oldBytes, newBytes, pathBytes]).with {
            (patch) throws(GitError) in
            var buffer = git_buf()
            try LibGit2Runtime.check(git_patch_to_buf(&buffer, patch), "printing the difference of \(path)")
            defer { git_buf_dispose(&buffer) }
            return buffer.ptr.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: buffer.size), as: UTF8.self)
            } ?? ""
        }
    }
}

extension TextMerge {
    /// The id git gives `text` as a file (`git hash-object`), in full.
    public static func blobID(of text: String) throws(GitError) -> String {
        try LibGit2Runtime.ensureInitialized()
        var id = git_oid()
        let bytes = Array(text.utf8)
        try LibGit2Runtime.check(git_odb_hash(&id, bytes, bytes.count, GIT_OBJECT_BLOB), "hashing a file")
        return Commit.hex(id)
    }
}
