import Foundation
import ImageDiff
import ObjectStorage

/// A CI run's review page and its images, kept in feature beside the run's candidates
/// (`.reviews/<commit>/<run>/`), with addresses a reviewer opens from the pull request: for S3, links
/// that open in a browser for `lifetime` (presigned); for a folder, paths.
public struct ReviewArchive: Sendable {
    public static let folder = ".reviews"
    public let feature: StoreLocation
    public var lifetime: Duration = S3Presigner.longest
    /// The address serving what feature holds (the spec's `review-url`): links are plain, never expire.
    public var publicAddress: String?
    /// Whether links on S3 may be presigned (opened by anyone holding them, for `lifetime`);
    /// otherwise they are the objects' addresses, for those with the store's credentials.
    public var presigns: Bool

    public init(feature: StoreLocation, publicAddress: String? = nil, presigns: Bool = true) {
        self.feature = feature
        self.publicAddress = publicAddress
        self.presigns = presigns
    }

    /// Where a reviewer finds what a run kept: the page, and each failed snapshot's images.
    public struct Published: Sendable, Encodable, Equatable {
        /// The page's address.
        public var page: String
        /// Each entry's (`<Test>/<file>`) images' addresses.
        public var images: [String: Images] = [:]
        /// How long the links stay valid ("7 days"); nil for paths, which do not expire.
        public var expires: String?

        public init(page: String, images: [String: Images] = [:], expires: String? = nil) {
            (self.page, self.images, self.expires) = (page, images, expires)
        }
    }

    public struct Images: Sendable, Encodable, Equatable {
        public var reference: String?
        public var new: String?
        public var overlay: String?

        public init(reference: String? = nil, new: String? = nil, overlay: String? = nil) {
            (self.reference, self.new, self.overlay) = (reference, new, overlay)
        }
    }

    /// Uploads `page` and the images of `entries` under `<commit>/<run>/`; their addresses.
    public func publish(page: URL, entries: [ReviewEntry], commit: String, run: String) async throws -> Published {
        let base = try ObjectKey("\(Self.folder)/\(commit)/\(run)")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let pageKey = try ObjectKey("\(base.rawValue)/snapshot-review.html").under(feature.prefix)
        try await feature.store.upload(page, to: pageKey, metadata: [:])
        var published = Published(page: try address(pageKey))
        published.expires = expires
        for (index, entry) in entries.enumerated() {
            var images = Images()
            let kinds: [(String, Data?, WritableKeyPath<Images, String?>)] = [
                ("reference", entry.reference, \.reference), ("new", entry.new, \.new),
                ("overlay", entry.overlay, \.overlay),
            ]
            for (kind, data, link) in kinds {
                guard let data, entry.key.hasSuffix(".png") else { continue }
                let file = scratch.appendingPathComponent("\(index)-\(kind).png")
                try data.write(to: file)
                let key = try ObjectKey("\(base.rawValue)/\(entry.key).\(kind).png").under(feature.prefix)
                try await feature.store.upload(file, to: key, metadata: [:])
                images[keyPath: link] = try address(key)
            }
            if images != Images() { published.images[entry.key] = images }
        }
        return published
    }

    /// Uploads a self-contained page (one needing no other object: the test history's) to `name`
    /// below feature, replacing what was there; its address.
    public func publish(page html: String, at name: ObjectKey) async throws -> Published {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data(html.utf8).write(to: scratch)
        let key = name.under(feature.prefix)
        try await feature.store.upload(scratch, to: key, metadata: [:])
        var published = Published(page: try address(key))
        published.expires = expires
        return published
    }

    /// How long a link stays valid: presigned S3 links expire, addresses and paths do not.
    var expires: String? {
        ((feature.store as? ScopedRecords)?.base ?? feature.store) is S3Store && publicAddress == nil && presigns
            ? "\(lifetime.components.seconds / 86400) days" : nil
    }

    /// A browser's address for `key`: below `review-url` (feature's address; a record kept beside
    /// feature, below its parent's), a presigned link on S3 (else the object's address), the
    /// file's path on a folder.
    func address(_ key: ObjectKey) throws -> String {
        let scoped = feature.store as? ScopedRecords
        if let base = publicAddress?.trimmingCharacters(in: CharacterSet(charactersIn: "/")) {
            guard let scoped else {
                let relative =
                    feature.prefix.map { String(key.rawValue.dropFirst($0.rawValue.count + 1)) } ?? key.rawValue
                return base + "/" + (try ObjectKey(relative)).percentEncodedPath
            }
            let parent = base.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            return parent + "/" + (try ObjectKey(try scoped.besideReferences(key))).percentEncodedPath
        }
        let (store, place): (any ObjectStore, ObjectKey) =
            try scoped.map { try $0.written(key) } ?? (feature.store, key)
        if let s3 = store as? S3Store {
            guard presigns else { return "s3://\(s3.settings.bucket)/\(place.rawValue)" }
            return try S3Presigner(s3.settings).url(for: place, lifetime: lifetime)
        }
        if let folder = store as? FolderStore { return folder.root.appendingPathComponent(place.rawValue).path }
        return "\(store.name)/\(place.rawValue)"
    }
}
