import Foundation
import ObjectStorage
import SnapshotConventions

/// The modification times the build saw, by content: saved with a build tree, they are put back on
/// the files of a fresh checkout whose content is the same, so the build sees exactly the files
/// that changed as changed, as the original checkout would. A file whose content differs keeps
/// its new time (later than the build's), so it is always rebuilt; one not recorded (too large,
/// hidden, a snapshot reference) keeps it too, and is rebuilt if the build reads it.
public struct SourceStamps: Sendable, Codable, Equatable {
    public struct Stamp: Sendable, Codable, Equatable {
        let size: Int64
        let md5: String
        let seconds: Int
        let nanoseconds: Int
    }

    /// Path relative to the package → its stamp.
    public var files: [String: Stamp] = [:]
    /// `Package.resolved` as the build left it, for a checkout without one (a library that does
    /// not commit it): SwiftPM would write the same from the restored checkouts, and re-plan the
    /// build for it; it still checks it against the manifests.
    public var resolved: String?

    /// Files larger than this are left out (rarely a build input; costly to hash).
    static let largest: Int64 = 4 << 20

    /// The stamps of the package's files: every regular file below it, but hidden files and
    /// folders (`.build`, `.git`, `.swiftpm`) and `__Snapshots__` folders.
    static func read(_ package: URL) -> SourceStamps {
        var stamps = SourceStamps()
        for (path, file) in files(of: package) {
            guard let stat = status(of: file), stat.size <= largest,
                let md5 = try? Digest.hex(ofFile: file, .md5)
            else { continue }
            stamps.files[path] = Stamp(
                size: stat.size, md5: md5, seconds: stat.seconds, nanoseconds: stat.nanoseconds)
        }
        stamps.resolved = try? String(
            contentsOf: package.appendingPathComponent("Package.resolved"), encoding: .utf8)
        return stamps
    }

    /// Puts the recorded times back on the files whose content is the recorded one; the number of
    /// files put back and of files that differ.
    func apply(to package: URL) -> (restored: Int, changed: Int) {
        var (restored, changed) = (0, 0)
        let resolvedFile = package.appendingPathComponent("Package.resolved")
        if let resolved, !FileManager.default.fileExists(atPath: resolvedFile.path) {
            try? Data(resolved.utf8).write(to: resolvedFile)
        }
        for (path, file) in Self.files(of: package) {
            guard let stamp = files[path] else { continue }
            guard let stat = Self.status(of: file), stat.size == stamp.size,
                (try? Digest.hex(ofFile: file, .md5)) == stamp.md5
            else {
                changed += 1
                continue
            }
            var times = [
                timespec(tv_sec: stat.accessSeconds, tv_nsec: 0),
                timespec(tv_sec: stamp.seconds, tv_nsec: stamp.nanoseconds),
            ]
            if utimensat(AT_FDCWD, file.path, &times, 0) == 0 { restored += 1 }
        }
        return (restored, changed)
    }

    private static func files(of package: URL) -> [(String, URL)] {
        let root = package.standardizedFileURL
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [(String, URL)] = []
        while let url = walk.nextObject() as? URL {
            if url.lastPathComponent == SnapshotFile.folderName {
                walk.skipDescendants()
                continue
            }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(root.path + "/") else { continue }
            found.append((String(path.dropFirst(root.path.count + 1)), url))
        }
        return found
    }

    private static func status(of file: URL) -> (
        size: Int64, seconds: Int, nanoseconds: Int, accessSeconds: Int
    )? {
        var info = stat()
        guard lstat(file.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            return (
                Int64(info.st_size), info.st_mtimespec.tv_sec, info.st_mtimespec.tv_nsec, info.st_atimespec.tv_sec
            )
        #else
            return (Int64(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_atim.tv_sec)
        #endif
    }
}
