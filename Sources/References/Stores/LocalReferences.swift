import Foundation
import ObjectStorage
import SnapshotConventions

/// The reference images in a checkout, seen as a store with the same keys as `feature/` and
/// `develop/` (`<Test>/<image>`), so pulling and pushing are promotions to and from it.
///
/// Where a test's references live locally:
/// - swift-snapshot-testing's layout (the default): beside the test file,
///   `<folder of Test.swift>/__Snapshots__/<Test>/…`; a test whose file is gone but whose folder
///   is still there keeps that folder;
/// - one folder for all (`references.local` in a spec): `<folder>/<Test>/…`.
///
/// No metadata is kept here: the working tree holds images only.
public struct LocalReferences: ObjectStore, FileBacked {
    /// The `__Snapshots__` folder (or the one folder) holding each test's references.
    public let roots: [String: URL]
    /// Test names with a test file in more than one place: their references cannot be placed.
    public let ambiguous: [String: [String]]
    /// The single folder, when the spec names one.
    public let folder: URL?
    /// Where the test files were looked for: named in messages.
    public let checkout: URL
    /// Tests that have a test file (`Test.swift`) in the checkout.
    public let testFiles: Set<String>
    /// Each test's file, where exactly one has its name.
    public let testFilePaths: [String: URL]

    public var name: String { folder?.path ?? "the \(SnapshotFile.folderName) folders in \(checkout.path)" }
    public var keepsMetadata: Bool { false }

    /// Scans `checkout` for test files whose name (without `.swift`) `isTest` accepts and for
    /// `__Snapshots__/<Test>` folders. Hidden folders and `.build` are skipped.
    public static func scan(
        _ checkout: URL, folder: URL? = nil,
        isTest: (String) -> Bool
    ) -> LocalReferences {
        var files: [String: [URL]] = [:]
        var snapshotFolders: [String: URL] = [:]
        let walker = FileManager.default.enumerator(
            at: checkout, includingPropertiesForKeys: [.isDirectoryKey],
            options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            let name = url.lastPathComponent
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true
            if isFolder {
                if name == ".build" { walker?.skipDescendants() }
                if name == SnapshotFile.folderName {
                    walker?.skipDescendants()
                    for test in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
                    where !test.hasPrefix(".") {
                        snapshotFolders[test] = snapshotFolders[test] ?? url.standardizedFileURL
                    }
                }
            } else if name.hasSuffix(".swift") {
                let test = String(name.dropLast(".swift".count))
                if isTest(test) { files[test, default: []].append(url.deletingLastPathComponent()) }
            }
        }
        var roots: [String: URL] = [:]
        var ambiguous: [String: [String]] = [:]
        if let folder {
            for test in files.keys { roots[test] = folder.standardizedFileURL }
        } else {
            roots = snapshotFolders
            for (test, folders) in files {
                if folders.count > 1 {
                    ambiguous[test] = folders.map {
                        String($0.standardizedFileURL.path.dropFirst(checkout.standardizedFileURL.path.count + 1))
                    }.sorted()
                    roots[test] = nil
                } else if let only = folders.first {
                    roots[test] = only.appendingPathComponent(SnapshotFile.folderName).standardizedFileURL
                }
            }
        }
        let paths = files.compactMapValues { folders in
            folders.count == 1 ? folders[0].standardizedFileURL : nil
        }.reduce(into: [String: URL]()) { $0[$1.key] = $1.value.appendingPathComponent("\($1.key).swift") }
        return LocalReferences(
            roots: roots, ambiguous: ambiguous, folder: folder?.standardizedFileURL,
            checkout: checkout.standardizedFileURL, testFiles: Set(files.keys), testFilePaths: paths)
    }

    /// The tests that have references here.
    public func testsWithReferences() async throws(StoreError) -> [String] {
        if let folder {
            return try await FolderStore(root: folder, keepsMetadata: false).list(under: nil).map(\.key.firstSegment)
                .uniqued()
        }
        return roots.filter { FileManager.default.fileExists(atPath: $0.value.appendingPathComponent($0.key).path) }
            .keys.sorted()
    }

    /// Where `file` of `test` lives in the checkout (it may not exist yet); nil when the test has no place here.
    public func path(of test: String, file: String) -> URL? {
        guard ambiguous[test] == nil, let root = roots[test] ?? folder else { return nil }
        return root.appendingPathComponent(test).appendingPathComponent(file)
    }

    /// Why `test`'s references have no place in the checkout; nil when they have one.
    public func problem(placing test: String) -> StoreError? {
        do {
            _ = try store(for: test)
            return nil
        } catch {
            return error
        }
    }

    /// The folder store holding `test`'s references.
    func store(for test: String) throws(StoreError) -> FolderStore {
        if let folders = ambiguous[test] {
            throw .unplaceable(
                test: test, reason: "test files named \(test).swift are in \(folders.joined(separator: " and "))")
        }
        if let root = roots[test] ?? folder { return FolderStore(root: root, keepsMetadata: false) }
        throw .unplaceable(test: test, reason: "no test file \(test).swift in \(checkout.path)")
    }

    public func list(under prefix: ObjectKey?) async throws(StoreError) -> [ObjectInfo] {
        if let folder { return try await FolderStore(root: folder, keepsMetadata: false).list(under: prefix) }
        guard let prefix else {
            var objects: [ObjectInfo] = []
            for test in roots.keys.sorted() {
                objects += try await store(for: test).list(under: try ObjectKey(test))
            }
            return objects
        }
        guard let root = roots[prefix.firstSegment] else { return [] }
        return try await FolderStore(root: root, keepsMetadata: false).list(under: prefix)
    }

    public func head(_ key: ObjectKey) async throws(StoreError) -> ObjectInfo? {
        guard let root = roots[key.firstSegment] ?? folder else { return nil }
        return try await FolderStore(root: root, keepsMetadata: false).head(key)
    }

    public func metadata(of key: ObjectKey) async throws(StoreError) -> [String: String] { [:] }

    public func download(_ key: ObjectKey, to file: URL) async throws(StoreError) {
        try await store(for: key.firstSegment).download(key, to: file)
    }

    public func upload(_ file: URL, to key: ObjectKey, metadata: [String: String]) async throws(StoreError) {
        try await store(for: key.firstSegment).upload(file, to: key, metadata: metadata)
    }

    public func copyStored(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey,
        metadata: [String: String]
    ) async throws(StoreError) {
        try await store(for: key.firstSegment).copyStored(sourceKey, from: source, to: key, metadata: metadata)
    }

    public func delete(_ key: ObjectKey) async throws(StoreError) {
        try await store(for: key.firstSegment).delete(key)
    }

    public func existingFile(_ key: ObjectKey) throws(StoreError) -> URL {
        try store(for: key.firstSegment).existingFile(key)
    }
}

extension Sequence where Element: Hashable & Comparable {
    /// The distinct elements, sorted.
    func uniqued() -> [Element] { Set(self).sorted() }
}
