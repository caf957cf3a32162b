import ChildProcesses
import Foundation
import ObjectStorage

/// A part of a tree's archive, as kept in the store.
public struct ArchivePart: Sendable, Codable, Equatable {
    public let name: String
    public let size: Int64
    public let md5: String
}

/// A folder's files as a compressed tar stream cut into parts (so they are transferred in
/// parallel), and back: `tar | zstd -1 -T0 | split`, read back by `cat | zstd -d | tar -x`; gzip
/// where zstd is not installed. Modification times go with the files (SwiftPM's dependency
/// checkouts need theirs).
enum BuildArchive {
    static let partSize = 64 << 20

    /// The compressor on `variables`'s PATH: zstd, else gzip.
    static func compression(_ variables: [String: String]) -> String {
        Toolchain.executable("zstd", in: variables["PATH"]) != nil ? "zstd" : "gzip"
    }

    /// Archives `members` (paths relative to `root`), leaving out `excluded` (relative to `root`),
    /// into parts in the empty folder `parts`.
    static func pack(
        root: URL, members: [String], excluded: [String], into parts: URL, compression: String,
        variables: [String: String]
    ) async throws(BuildCacheError) -> [ArchivePart] {
        let compress = compression == "zstd" ? "zstd -1 -T0 -q -c" : "gzip -1 -c"
        // Each path is a positional parameter, never part of the script's text. tar's own status is
        // the script's (1: something changed while it read); the compressor's or split's failure is 2.
        let script =
            "root=\"$1\"; parts=\"$2\"; shift 2; excludes=(); "
            + "while [ \"$1\" != -- ]; do excludes+=(\"--exclude=$1\"); shift; done; shift; "
            + "tar -C \"$root\" -cf - \"${excludes[@]}\" \"$@\" | \(compress) | split -b \(partSize) -a 4 - \"$parts/part-\"; "
            + "s=(\"${PIPESTATUS[@]}\"); [ \"${s[1]}\" = 0 ] && [ \"${s[2]}\" = 0 ] || exit 2; exit \"${s[0]}\""
        let what = "archiving \(root.path)"
        let result = try await start(
            ["bash", "-c", script, "pack", root.path, parts.path] + excluded + ["--"] + members, what: what,
            variables: variables, log: parts.appendingPathComponent("../pack.log"))
        if result.termination != .exited(0) {
            try tolerate(result, root: root, what: what)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []).filter {
            $0.hasPrefix("part-")
        }.sorted()
        var made: [ArchivePart] = []
        for name in names {
            let file = parts.appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
            do {
                made.append(ArchivePart(name: name, size: size, md5: try Digest.hex(ofFile: file, .md5)))
            } catch {
                throw .store(error)
            }
        }
        return made
    }

    /// Extracts the parts (in order) into the folder `into`, which exists.
    static func unpack(
        _ parts: [URL], into folder: URL, compression: String, variables: [String: String], log: URL
    ) async throws(BuildCacheError) {
        guard compression == "zstd" || compression == "gzip" else {
            throw .unusable("the entry is compressed with '\(compression)', which this pipeline cannot read")
        }
        if Toolchain.executable(compression, in: variables["PATH"]) == nil {
            throw .unusable("the entry is compressed with \(compression), which is not installed here")
        }
        let decompress = compression == "zstd" ? "zstd -d -q -c" : "gzip -d -c"
        let script = "set -o pipefail; into=\"$1\"; shift; cat \"$@\" | \(decompress) | tar -C \"$into\" -xf -"
        try await run(
            ["bash", "-c", script, "unpack", folder.path] + parts.map(\.path),
            what: "unpacking into \(folder.path)", variables: variables, log: log)
    }

    /// A pack that tar ended with status 1 stands when every complaint is a folder that changed
    /// while it was read: the tests write into `.build` (pipeline's outputs, which are not kept)
    /// while the build is saved, and the files in those folders are the finished build's. A file
    /// whose content changed, or any other failure, fails the save and says which.
    static func tolerate(_ result: ProcessResult, root: URL, what: String) throws(BuildCacheError) {
        let suffix = ": file changed as we read it"
        let complaints = result.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let folders = complaints.allSatisfy { line in
            guard line.hasPrefix("tar: "), line.hasSuffix(suffix) else { return false }
            let path = String(line.dropFirst(5).dropLast(suffix.count))
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        guard result.termination == .exited(1), !complaints.isEmpty, folders else {
            throw .archive(command: what, output: "\(result.termination): \(result.output)")
        }
    }

    private static func run(_ arguments: [String], what: String, variables: [String: String], log: URL)
        async throws(BuildCacheError)
    {
        let result = try await start(arguments, what: what, variables: variables, log: log)
        guard result.termination == .exited(0) else {
            throw .archive(command: what, output: "\(result.termination): \(result.output)")
        }
    }

    private static func start(_ arguments: [String], what: String, variables: [String: String], log: URL)
        async throws(BuildCacheError) -> ProcessResult
    {
        do {
            return try await ChildProcess.run(arguments, variables: variables, log: log.standardizedFileURL)
        } catch {
            throw .archive(command: what, output: error.description)
        }
    }
}
