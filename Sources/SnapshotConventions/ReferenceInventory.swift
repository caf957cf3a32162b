import Foundation

/// The reference files under every `__Snapshots__` folder below a root (hidden folders and
/// `.build` skipped), each with what tells a rewrite apart: size, modification time, inode.
/// Taken before and after a test run, it shows which references the run wrote.
public struct ReferenceInventory: Sendable, Equatable {
    public struct Stamp: Sendable, Equatable {
        let size: Int64
        let modified: Double
        let inode: UInt64
    }

    /// By absolute path.
    public let files: [String: Stamp]

    public init(files: [String: Stamp] = [:]) {
        self.files = files
    }

    public static func scan(_ root: URL) -> ReferenceInventory {
        var files: [String: Stamp] = [:]
        for folder in snapshotFolders(below: root) {
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            while let url = walker?.nextObject() as? URL {
                var info = stat()
                guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                files[url.standardizedFileURL.path] = Stamp(
                    size: Int64(info.st_size),
                    modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
                    inode: UInt64(info.st_ino))
            }
        }
        return ReferenceInventory(files: files)
    }

    /// Every `__Snapshots__` folder below `root`, not descending into them, hidden folders or `.build`.
    public static func snapshotFolders(below root: URL) -> [URL] {
        var folders: [URL] = []
        let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey],
            options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true else { continue }
            switch url.lastPathComponent {
            case ".build": walker?.skipDescendants()
            case SnapshotFile.folderName:
                walker?.skipDescendants()
                folders.append(url.standardizedFileURL)
            default: continue
            }
        }
        return folders.sorted { $0.path < $1.path }
    }

    /// The files written since `earlier`: new ones and rewritten ones, by path.
    public func written(since earlier: ReferenceInventory) -> [String] {
        files.filter { earlier.files[$0.key] != $0.value }.keys.sorted()
    }

    /// The files `earlier` had and this does not.
    public func removed(since earlier: ReferenceInventory) -> [String] {
        earlier.files.keys.filter { files[$0] == nil }.sorted()
    }
}
