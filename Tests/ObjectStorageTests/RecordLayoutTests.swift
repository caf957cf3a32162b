import Foundation
import Testing

@testable import ObjectStorage

/// The tool's records beside the reference prefixes, by scope (`RecordLayout`, `ScopedRecords`),
/// on a folder store and on moto (conditional writes); S3's listing of folders on the strict
/// SigV4 server.
@Suite("Records laid out by trust: .pipeline/<scope>/<store>/ beside the references")
struct RecordLayoutTests {
    /// A reference store `feature` (or `develop`) in `kind`'s store, and a view of it as a job of
    /// `scope` sees it.
    struct Place {
        let base: any SharedStore
        let prefix: ObjectKey?

        func view(_ scope: String, role: String = "feature") throws -> ScopedRecords {
            ScopedRecords(
                base: base, layout: try RecordLayout(store: base, prefix: prefix, role: role, scope: scope))
        }

        func key(_ path: String) throws -> ObjectKey { try ObjectKey(path).under(prefix) }
    }

    /// Moto, which has the conditional writes develop's records need.
    static let moto = ProcessInfo.processInfo.environment["PIPELINE_TEST_MOTO_ENDPOINT"].flatMap(URL.init(string:))
    static var kinds: [StoreKind] { moto == nil ? [.folder] : [.folder, .s3] }

    /// `team/<role>` in a new bucket on moto, or the folder `<scratch>/bucket/<role>`.
    static func place(_ kind: StoreKind, _ scratch: Scratch, role: String = "feature") async throws -> (
        Place, root: any SharedStore
    ) {
        let store: any SharedStore
        if kind == .s3, let moto {
            let s3 = try S3Store(
                S3Settings(
                    endpoint: moto, bucket: "m-\(UUID().uuidString.prefix(18).lowercased())",
                    credentials: AWSCredentials(accessKey: "test", secret: "test")))
            try await s3.createBucket()
            store = s3
        } else {
            store = try #require(try await kind.make(scratch) as? any SharedStore)
        }
        if let folder = store as? FolderStore {
            let base = FolderStore(root: folder.root.appendingPathComponent(role))
            return (Place(base: base, prefix: nil), folder)
        }
        return (Place(base: store, prefix: try ObjectKey("team/\(role)")), store)
    }

    /// Every key of the store from the top, the folder store's metadata and locks left out.
    static func everything(_ root: any SharedStore) async throws -> [String] {
        if let folder = root as? FolderStore {
            let files = FileManager.default.enumerator(atPath: folder.root.path)?.allObjects as? [String] ?? []
            return files.filter { path in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(
                    atPath: folder.root.appendingPathComponent(path).path, isDirectory: &isFolder)
                    && !isFolder.boolValue && !path.contains(".pipeline-metadata") && !path.contains(".pipeline-locks")
            }.sorted()
        }
        return try await root.list(under: nil).map(\.key.rawValue)
    }

    @Test(
        "a record goes below the writer's scope beside the store; references stay where they are", arguments: Self.kinds
    )
    func writes(kind: StoreKind) async throws {
        let scratch = try Scratch()
        let (place, root) = try await Self.place(kind, scratch)
        let pr = try place.view("pr/12")
        try await pr.upload(try scratch.file("a", "ref"), to: try place.key("LoginTests/a.png"), metadata: [:])
        try await pr.upload(
            try scratch.file("p", "pushed"), to: try place.key(".pushes/c1/LoginTests/a.png"), metadata: [:])
        try await pr.put(
            Data("{}".utf8), to: try place.key("ios17/.candidates/c1/r1/record.json"), condition: .ifAbsent)
        let top = kind == .s3 ? "team/" : ""
        #expect(
            try await Self.everything(root) == [
                "\(top).pipeline/pr/12/feature/.pushes/c1/LoginTests/a.png",
                "\(top).pipeline/pr/12/feature/ios17/.candidates/c1/r1/record.json",
                "\(top)feature/LoginTests/a.png",
            ])

        // Another scope's job reads it through the same keys, and a listing names it so.
        let develop = try place.view("branch/develop")
        let listed = try await develop.list(under: try place.key(".pushes/c1"))
        #expect(listed.map(\.key) == [try place.key(".pushes/c1/LoginTests/a.png")])
        let file = scratch.url.appendingPathComponent("read.png")
        try await develop.download(try place.key(".pushes/c1/LoginTests/a.png"), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "pushed")
        #expect(try await develop.get(try place.key("ios17/.candidates/c1/r1/record.json"))?.data == Data("{}".utf8))
        #expect(try await develop.head(try place.key(".pushes/c2/LoginTests/a.png")) == nil)

        // Deleting through a listing removes it from the scope it was found in.
        try await develop.delete(try place.key(".pushes/c1/LoginTests/a.png"))
        #expect(try await develop.list(under: try place.key(".pushes")).isEmpty)
    }

    @Test("develop's records have one scope, whoever writes them", arguments: Self.kinds)
    func developScope(kind: StoreKind) async throws {
        let scratch = try Scratch()
        let (place, root) = try await Self.place(kind, scratch, role: "develop")
        let machine = try place.view("local", role: "develop")
        let job = try place.view("branch/develop", role: "develop")
        let etag = try await machine.put(Data("1".utf8), to: try place.key(".promoted.json"), condition: .ifAbsent)
        #expect(try await job.get(try place.key(".promoted.json"))?.data == Data("1".utf8))
        try await job.put(Data("2".utf8), to: try place.key(".promoted.json"), condition: .ifMatch(etag: etag))
        let top = kind == .s3 ? "team/" : ""
        #expect(try await Self.everything(root) == ["\(top).pipeline/develop/develop/.promoted.json"])
    }

    @Test(
        "an earlier release's records are read where it kept them, and a conditional write moves them",
        arguments: Self.kinds)
    func earlierLayout(kind: StoreKind) async throws {
        let scratch = try Scratch()
        let (place, root) = try await Self.place(kind, scratch, role: "develop")
        let etag = try await place.base.put(
            Data("old".utf8), to: try place.key(".promotions/LoginTests.json"), condition: .always)
        let view = try place.view("branch/develop", role: "develop")
        let read = try #require(try await view.get(try place.key(".promotions/LoginTests.json")))
        #expect(read.data == Data("old".utf8) && read.etag == etag)
        #expect(try await view.list(under: try place.key(".promotions")).map(\.key.lastSegment) == ["LoginTests.json"])
        try await view.put(
            Data("new".utf8), to: try place.key(".promotions/LoginTests.json"), condition: .ifMatch(etag: etag))
        #expect(try await view.get(try place.key(".promotions/LoginTests.json"))?.data == Data("new".utf8))
        let top = kind == .s3 ? "team/" : ""
        #expect(
            try await Self.everything(root) == [
                "\(top).pipeline/develop/develop/.promotions/LoginTests.json",
                "\(top)develop/.promotions/LoginTests.json",
            ])
    }

    @Test(
        "refs migrate moves every earlier record, checked, and a migration stopped midway is finished by the next",
        arguments: Self.kinds)
    func migrate(kind: StoreKind) async throws {
        let scratch = try Scratch()
        let (place, root) = try await Self.place(kind, scratch)
        let records = [
            ".pushes/c1/LoginTests/a.png", ".push-records/LoginTests/c1.json", ".changes/c1.json",
            "ios17/.candidates/c1/r1/LoginTests/a.png", ".verdicts/k/pr-3.json", "pipeline-timings.json",
            "pipeline-runs/7/plan.json",
        ]
        for (index, record) in records.enumerated() {
            try await place.base.upload(
                try scratch.file("r\(index)", "content \(index)"), to: try place.key(record), metadata: [:])
        }
        try await place.base.upload(
            try scratch.file("ref", "ref"), to: try place.key("LoginTests/a.png"), metadata: [:])
        let view = try place.view("pr/3")
        let top = kind == .s3 ? "team/" : ""
        // Stopped after copying one record, before deleting it; another copy left damaged.
        try await root.upload(
            try scratch.file("half", "content 0"),
            to: try ObjectKey("\(top).pipeline/migrated/feature/.pushes/c1/LoginTests/a.png"), metadata: [:])
        try await root.upload(
            try scratch.file("bad", "damaged"), to: try ObjectKey("\(top).pipeline/migrated/feature/.changes/c1.json"),
            metadata: [:])

        let preview = try await view.migrate(dryRun: true)
        #expect(preview.moved == records.count)
        #expect(try await place.base.head(try place.key(".changes/c1.json")) != nil, "a dry run moves nothing")

        let moved = try await view.migrate(dryRun: false)
        #expect(moved.moved == records.count)
        #expect(
            try await Self.everything(root)
                == (["\(top)feature/LoginTests/a.png"]
                + records.map {
                    "\(top).pipeline/migrated/feature/\($0)"
                }).sorted())
        for (index, record) in records.enumerated() {
            #expect(try await view.get(try place.key(record))?.data == Data("content \(index)".utf8), "\(record)")
        }
        #expect(try await view.migrate(dryRun: false).moved == 0, "nothing left to move")
    }

    @Test(
        "records go in the folder feature and develop share: beside the prefix when it is one below it, above both when one layout nests deeper"
    )
    func placement() throws {
        func placed(_ own: String, _ sibling: String?) -> String {
            let result = RecordLayout.placement(
                of: own.split(separator: "/").map(String.init),
                beside: sibling.map { $0.split(separator: "/").map(String.init) })
            return result.parent.joined(separator: "/") + " | " + result.side
        }
        #expect(placed("team/feature", "team/develop") == "team | feature")
        #expect(placed("feature", "develop") == " | feature")
        #expect(placed("team/feature", nil) == "team | feature")
        // Their layout: the references one folder deeper than the roles' folders.
        #expect(placed("ios/feature/__Snapshots__", "ios/develop/__Snapshots__") == "ios | feature~__Snapshots__")
        #expect(placed("ios/develop/__Snapshots__", "ios/feature/__Snapshots__") == "ios | develop~__Snapshots__")
        #expect(placed("feature/__Snapshots__", "develop/__Snapshots__") == " | feature~__Snapshots__")
        // Unrelated folders keep their own parents: other depths, or apart in more than one segment.
        #expect(placed("a/feature", "a/b/develop") == "a | feature")
        #expect(placed("a/b/develop", "a/feature") == "a/b | develop")
        #expect(placed("tmp/x/feature", "tmp/y/develop") == "tmp/x | feature")
        #expect(placed("ios/feature/shots", "ios/develop/refs") == "ios/feature | shots")
        // A layout nested in the other's folder keeps its own parent.
        #expect(placed("refs/develop", "refs") == "refs | develop")

        // In a bucket: develop's records of that layout live at ios/.pipeline/develop/develop~__Snapshots__/.
        let layout = try RecordLayout(
            store: FolderStore(root: FileManager.default.temporaryDirectory),
            prefix: try ObjectKey("ios/develop/__Snapshots__"), role: "develop", scope: "pr/3",
            sibling: "ios/feature/__Snapshots__")
        #expect(
            try layout.key("pipeline-timings.json", in: layout.scope).rawValue
                == "ios/.pipeline/develop/develop~__Snapshots__/pipeline-timings.json")
    }

    @Test("a branch's or tag's slashes never make two scopes share a folder")
    func flatten() {
        #expect(RecordLayout.flatten("branch/release/1.2") == "branch/release~1.2")
        #expect(RecordLayout.flatten("pr/12") == "pr/12")
        #expect(RecordLayout.flatten("local") == "local")
    }

    @Test(
        "S3 lists the folders below a prefix in one request (a delimiter), hidden ones too",
        .enabled(if: S3TestServer.endpoint != nil))
    func folders() async throws {
        let scratch = try Scratch()
        let store = try #require(try await StoreKind.s3.make(scratch) as? S3Store)
        for key in ["a/.x/1", "a/b/2", "a/b/c/3", "a/4", "z/5"] {
            try await store.upload(try scratch.file("f", key), to: try ObjectKey(key), metadata: [:])
        }
        #expect(try await store.folders(under: try ObjectKey("a")) == [".x", "b"])
        #expect(try await store.folders(under: nil) == ["a", "z"])
    }
}
