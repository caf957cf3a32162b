import Foundation
import Testing

@testable import ObjectStorage

/// A scratch folder, removed when the value goes.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent("input-\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: file)
        return file
    }
}

/// The kinds of store every store test runs against: always the folder store, and the S3 store
/// when a server is given (`scripts/test.sh` starts OpenStack Swift with s3api and sets
/// PIPELINE_TEST_S3_ENDPOINT; CI always has it).
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case folder
    case s3

    static var available: [StoreKind] { S3TestServer.endpoint == nil ? [.folder] : [.folder, .s3] }

    var description: String { rawValue }

    /// A new, empty store.
    func make(_ scratch: Scratch) async throws -> any ObjectStore {
        switch self {
        case .folder:
            return FolderStore(root: scratch.url.appendingPathComponent("bucket"))
        case .s3:
            let store = try S3TestServer.store(bucket: "t-\(UUID().uuidString.prefix(18).lowercased())")
            try await store.createBucket()
            return store
        }
    }
}

enum S3TestServer {
    static let endpoint = ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"].flatMap(URL.init(string:))
    static let credentials = AWSCredentials(accessKey: "test:tester", secret: "testing")

    static func store(bucket: String, endpoint: URL? = nil, credentials: AWSCredentials = credentials) throws -> S3Store
    {
        try S3Store(S3Settings(endpoint: endpoint ?? self.endpoint!, bucket: bucket, credentials: credentials))
    }
}

/// Keys that break naive signing and naive paths: Japanese, spaces, `+`, `=`.
let awkwardKeys = ["SnapshotTests/test_初期起動時_画像.1.png", "Snap Tests/a+b=c.png", "T/%41 percent.png"]

@Suite("Object keys from storage are never trusted for writing")
struct ObjectKeyTests {
    @Test(
        "unsafe keys are refused with the reason",
        arguments: [
            ("../../etc/passwd", "'..' segment"), ("/etc/passwd", "absolute path"), ("a//b", "empty path segment"),
            ("a/./b", "'.' segment"), ("", "empty"), ("a\\b", "backslash"), ("a\u{0}b", "control character"),
        ])
    func unsafe(key: String, reason: String) {
        #expect(throws: StoreError.self) { try ObjectKey(key) }
        do {
            _ = try ObjectKey(key)
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
    }

    @Test("keys nest and un-nest under prefixes")
    func nesting() throws {
        let key = try ObjectKey("SnapshotTests/a.png")
        let prefixed = key.under(try ObjectKey("develop"))
        #expect(prefixed.rawValue == "develop/SnapshotTests/a.png")
        #expect(prefixed.relative(to: try ObjectKey("develop")) == key)
        #expect(prefixed.relative(to: try ObjectKey("dev")) == nil)
        #expect(key.firstSegment == "SnapshotTests")
    }
}

@Suite("Digests")
struct DigestTests {
    @Test("MD5 and SHA-256 match the standard test vectors, from memory and from a file")
    func vectors() throws {
        #expect(try Digest.hex(of: Data("abc".utf8), .md5) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(
            try Digest.hex(of: Data(), .sha256) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let scratch = try Scratch()
        let big = String(repeating: "abcdefghij", count: 20_000)  // several read chunks
        let file = try scratch.file("big", big)
        #expect(try Digest.hex(ofFile: file, .sha256) == (try Digest.hex(of: Data(big.utf8), .sha256)))
    }
}

@Suite("Object stores")
struct FolderStoreTests {
    @Test(
        "upload, list, head, download, metadata and delete round-trip with awkward keys", arguments: StoreKind.available
    )
    func roundTrip(kind: StoreKind) async throws {
        let scratch = try Scratch()
        let store = try await kind.make(scratch)
        for (index, name) in awkwardKeys.enumerated() {
            try await store.upload(
                try scratch.file("\(index)", "content \(index)"), to: try ObjectKey(name),
                metadata: ["pipeline-commit": "abc\(index)"])
        }
        let listed = try await store.list(under: nil)
        #expect(listed.map(\.key.rawValue) == awkwardKeys.sorted())
        let key = try ObjectKey(awkwardKeys[0])
        let head = try #require(try await store.head(key))
        #expect(head.size == 9)
        #expect(head.etag == (try Digest.hex(of: Data("content 0".utf8), .md5)))
        #expect(try await store.metadata(of: key) == ["pipeline-commit": "abc0"])
        let target = scratch.url.appendingPathComponent("out.png")
        try await store.download(key, to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "content 0")
        try await store.delete(key)
        #expect(try await store.head(key) == nil)
        if let folder = store as? FolderStore {
            #expect(
                !FileManager.default.fileExists(atPath: folder.root.appendingPathComponent("SnapshotTests").path),
                "empty folders go with their last object")
        }
        #expect(try await store.list(under: try ObjectKey("Snap Tests")).count == 1)
        await #expect(throws: StoreError.notFound(store: store.name, key: key.rawValue)) {
            try await store.download(key, to: target)
        }
    }

    @Test("a symbolic link inside the store cannot lead a write outside it")
    func symlinkEscape() async throws {
        let scratch = try Scratch()
        let root = scratch.url.appendingPathComponent("store")
        let outside = scratch.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("Test"), withDestinationURL: outside)
        let store = FolderStore(root: root)
        do {
            try await store.upload(try scratch.file("x", "x"), to: try ObjectKey("Test/escape.png"), metadata: [:])
            Issue.record("the write through the link was allowed")
        } catch {
            #expect("\(error)".contains("leads outside"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }
}
