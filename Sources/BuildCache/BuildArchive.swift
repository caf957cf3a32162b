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
        // Each path is a positional parameter, never part of the script's text.
        let script =
            "set -o pipefail; root=\"$1\"; parts=\"$2\"; shift 2; excludes=(); "
            + "while [ \"$1\" != -- ]; do excludes+=(\"--exclude=$1\"); shift; done; shift; "
            + "tar -C \"$root\" -cf - \"${excludes[@]}\" \"$@\" | \(compress) | split -b \(partSize) -a 4 - \"$parts/part-\""
        try await run(
            ["bash", "-c", script, "pack", root.path, parts.path] + excluded + ["--"] + members,
            what: "archiving \(root.path)", variables: variables, log: parts.appendingPathComponent("../pack.log"))
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

    private static func run(_ arguments: [String], what: String, variables: [String: String], log: URL)
        async throws(BuildCacheError)
    {
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(arguments, variables: variables, log: log.standardizedFileURL)
        } catch {
            throw .archive(command: what, output: error.description)
        }
        guard result.termination == .exited(0) else {
            throw .archive(command: what, output: "\(result.termination): \(result.output)")
        }
    }
}
