import Foundation

/// Where the tool keeps a folder store's records (docs/references.md#records): beside the store,
/// `<parent>/.pipeline/<scope>/<store's name>/<record>`, in the scope of the job that wrote them.
/// Tests find them wherever the scope put them: a job's scope depends on the CI variables the
/// test runs under.
public enum RecordFiles {
    /// The file of `record` (`.pushes/<commit>/…`, `pipeline-timings.json`) of the store folder
    /// `store`, in whichever scope holds it; nil when none does.
    public static func find(_ record: String, of store: URL) -> URL? {
        scopeFolders(of: store).map { $0.appendingPathComponent(record) }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Each scope's folder of `store`'s records that exists: `<parent>/.pipeline/<scope>/<name>`.
    public static func scopeFolders(of store: URL) -> [URL] {
        let store = store.standardizedFileURL
        let root = store.deletingLastPathComponent().appendingPathComponent(".pipeline")
        let manager = FileManager.default
        var found: [URL] = []
        for first in ((try? manager.contentsOfDirectory(atPath: root.path)) ?? []).sorted() {
            let level = root.appendingPathComponent(first)
            let direct = level.appendingPathComponent(store.lastPathComponent)
            if ["local", "develop", "migrated"].contains(first) {
                if manager.fileExists(atPath: direct.path) { found.append(direct) }
                continue
            }
            for second in ((try? manager.contentsOfDirectory(atPath: level.path)) ?? []).sorted() {
                let folder = level.appendingPathComponent(second).appendingPathComponent(store.lastPathComponent)
                if manager.fileExists(atPath: folder.path) { found.append(folder) }
            }
        }
        return found
    }
}
