import Foundation

/// Where an S3 store is and how to sign for it. Never printed whole: `name` leaves the keys out.
public struct S3Settings: Sendable {
    public var endpoint: URL
    public var bucket: String
    public var region: String
    public var credentials: AWSCredentials
    /// Plain HTTP is refused unless the endpoint is this machine or this is set.
    public var allowHTTP: Bool
    /// A request moving no byte for this many seconds is abandoned and retried.
    public var stallSeconds: Int
    /// Objects per listing page (S3's largest is 1,000); smaller only to test pagination.
    public var pageSize: Int

    public init(
        endpoint: URL, bucket: String, region: String = "us-east-1", credentials: AWSCredentials,
        allowHTTP: Bool = false, stallSeconds: Int = 30, pageSize: Int = 1000
    ) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.credentials = credentials
        self.allowHTTP = allowHTTP
        self.stallSeconds = stallSeconds
        self.pageSize = pageSize
    }
}

/// An S3 bucket (any S3-compatible endpoint, path-style URLs), spoken to over libcurl with AWS
/// Signature V4. Requests run in parallel over kept-alive connections; a 5xx, 429, SlowDown,
/// timeout or dropped connection is retried with exponential backoff and jitter, never another 4xx.
public struct S3Store: ObjectStore {
    public let settings: S3Settings
    private let client: CurlClient
    /// This bucket, as what it has learnt of its ETags is kept under (`DigestTrust`).
    var bucketID: String { "\(settings.endpoint.absoluteString) \(settings.bucket)" }
    /// Attempts per request, the first included.
    static let attempts = 5

    public init(_ settings: S3Settings, maxConnections: Int = 16) throws(StoreError) {
        let host = settings.endpoint.host ?? ""
        let local = host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
        guard settings.endpoint.scheme == "https" || local || settings.allowHTTP else {
            throw .insecureEndpoint(settings.endpoint.absoluteString)
        }
        self.settings = settings
        client = try CurlClient(maxConnections: maxConnections)
    }

    public var name: String { "s3://\(settings.bucket) at \(settings.endpoint.absoluteString)" }

    public func list(under prefix: ObjectKey?) async throws(StoreError) -> [ObjectInfo] {
        var objects: [ObjectInfo] = []
        var token: String?
        repeat {
            let page = try await listPage(under: prefix, after: token, size: settings.pageSize)
            objects += page.objects
            token = page.next
        } while token != nil
        return try await withDigests(objects.sorted { $0.key < $1.key })
    }

    /// One request: the whole listing when it fits in a page of `limit`, else nil.
    public func listIfSmall(under prefix: ObjectKey?, atMost limit: Int) async throws(StoreError) -> [ObjectInfo]? {
        var objects: [ObjectInfo] = []
        var token: String?
        repeat {
            let page = try await listPage(under: prefix, after: token, size: min(limit, settings.pageSize))
            objects += page.objects
            token = page.next
            if objects.count > limit || (token != nil && objects.count >= limit) { return nil }
        } while token != nil
        return try await withDigests(objects.sorted { $0.key < $1.key })
    }

    /// The folders right below `prefix`: ListObjectsV2 with a delimiter, paged.
    public func folders(under prefix: ObjectKey?) async throws(StoreError) -> [String] {
        var names: [String] = []
        var token: String?
        let start = prefix.map { $0.rawValue + "/" } ?? ""
        repeat {
            var query = [("list-type", "2"), ("max-keys", "1000"), ("delimiter", "/")]
            if prefix != nil { query.append(("prefix", start)) }
            if let token { query.append(("continuation-token", token)) }
            let page = ListingParser.parse(try await send("GET", key: nil, query: query).body)
            names += page.folders.compactMap { folder in
                guard folder.hasPrefix(start), folder.hasSuffix("/") else { return nil }
                let name = String(folder.dropFirst(start.count).dropLast())
                return name.isEmpty || name.contains("/") ? nil : name
            }
            token = page.isTruncated ? page.nextToken : nil
        } while token != nil
        return names.sorted()
    }

    /// One ListObjectsV2 request, and the token of the next page when there is one.
    private func listPage(
        under prefix: ObjectKey?, after token: String?,
        size: Int
    ) async throws(StoreError) -> (objects: [ObjectInfo], next: String?) {
        var query = [("list-type", "2"), ("max-keys", String(size))]
        if let prefix { query.append(("prefix", prefix.rawValue + "/")) }
        if let token { query.append(("continuation-token", token)) }
        let page = ListingParser.parse(try await send("GET", key: nil, query: query).body)
        var objects: [ObjectInfo] = []
        for entry in page.objects {
            objects.append(ObjectInfo(key: try ObjectKey(entry.key), size: entry.size, etag: entry.etag))
        }
        return (objects, page.isTruncated ? page.nextToken : nil)
    }

    public func head(_ key: ObjectKey) async throws(StoreError) -> ObjectInfo? {
        do {
            let response = try await send("HEAD", key: key)
            let etag = Self.etag(response.headers["etag"])
            return ObjectInfo(
                key: key, size: Int64(response.headers["content-length"] ?? "") ?? 0, etag: etag,
                md5: response.headers["x-amz-meta-\(Self.md5Metadata)"] ?? etag)
        } catch .notFound {
            return nil
        }
    }

    public func metadata(of key: ObjectKey) async throws(StoreError) -> [String: String] {
        let response = try await send("HEAD", key: key)
        var metadata: [String: String] = [:]
        for (name, value) in response.headers where name.hasPrefix("x-amz-meta-") {
            metadata[String(name.dropFirst("x-amz-meta-".count))] = value
        }
        metadata[Self.md5Metadata] = nil  // the store's own, not what the upload was given
        return metadata
    }

    public func download(_ key: ObjectKey, to file: URL) async throws(StoreError) {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".pipeline-tmp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let response = try await send("GET", key: key, downloadTo: temporary)
        if let expected = Self.contentMD5(response.headers) {
            let actual = try Digest.hex(ofFile: temporary, .md5)
            guard actual == expected else {
                throw .checksumMismatch(store: name, key: key.rawValue, expected: expected, actual: actual)
            }
        }
        guard rename(temporary.path, file.path) == 0 else {
            throw .io(path: file.path, reason: String(cString: strerror(errno)))
        }
    }

    public func upload(_ file: URL, to key: ObjectKey, metadata: [String: String]) async throws(StoreError) {
        try await upload(file, to: key, metadata: metadata, extraHeaders: [])
    }

    func upload(_ file: URL, to key: ObjectKey, metadata: [String: String], extraHeaders: [(String, String)])
        async throws(StoreError)
    {
        let md5 = try Digest.hex(ofFile: file, .md5)
        let headers =
            [
                ("x-amz-content-sha256", try Digest.hex(ofFile: file, .sha256)),
                ("content-md5", Self.base64(hex: md5)),
            ] + Self.metadataHeaders(metadata.merging([Self.md5Metadata: md5]) { $1 })
            + (Self.contentType(of: key).map { [("content-type", $0)] } ?? []) + extraHeaders
        let response = try await send("PUT", key: key, headers: headers, uploadFrom: file)
        await DigestTrust.shared.learn(
            bucketID, etag: Self.etag(response.headers["etag"]), md5: md5, headers: response.headers)
    }

    public func copyStored(
        _ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey,
        metadata: [String: String]
    ) async throws(StoreError) {
        guard let other = source as? S3Store, other.settings.endpoint == settings.endpoint else {
            // Another endpoint: through this machine.
            return try await copyThroughTemporaryFile(sourceKey, from: source, to: key, metadata: metadata)
        }
        let copySource = "/" + S3Encoding.path(other.settings.bucket) + "/" + S3Encoding.path(sourceKey.rawValue)
        // The copy keeps its content's MD5 beside it, for a bucket whose ETags are not MD5s: the
        // source's own, read from it there (its ETag elsewhere).
        var metadata = metadata
        if metadata[Self.md5Metadata] == nil, await DigestTrust.shared.trusted(bucketID) != true,
            let source = try await other.head(sourceKey)
        {
            metadata[Self.md5Metadata] = source.md5
        }
        let headers =
            [("x-amz-copy-source", copySource), ("x-amz-metadata-directive", "REPLACE")]
            + Self.metadataHeaders(metadata)
        let response = try await send("PUT", key: key, headers: headers, errorKey: sourceKey)
        // A copy can fail after its 200 has been sent: the body then holds an <Error>.
        if let error = ErrorParser.parse(response.body) {
            throw .service(
                store: name, key: key.rawValue, status: response.status, code: error.code, message: error.message)
        }
    }

    /// Same endpoint: S3's own copy keeping the source's metadata (`x-amz-metadata-directive`
    /// left at COPY), one request; elsewhere through this machine with the source's metadata.
    public func copyAsIs(_ sourceKey: ObjectKey, from source: any ObjectStore, to key: ObjectKey)
        async throws(StoreError)
    {
        // A bucket whose ETags are not MD5s gets the content's MD5 kept by `copyStored`, which reads the source.
        guard let other = source as? S3Store, other.settings.endpoint == settings.endpoint,
            await DigestTrust.shared.trusted(other.bucketID) == true
        else {
            return try await copy(sourceKey, from: source, to: key, metadata: try await source.metadata(of: sourceKey))
        }
        let copySource = "/" + S3Encoding.path(other.settings.bucket) + "/" + S3Encoding.path(sourceKey.rawValue)
        let response = try await send(
            "PUT", key: key, headers: [("x-amz-copy-source", copySource)], errorKey: sourceKey)
        if let error = ErrorParser.parse(response.body) {
            throw .service(
                store: name, key: key.rawValue, status: response.status, code: error.code, message: error.message)
        }
    }

    public func delete(_ key: ObjectKey) async throws(StoreError) {
        _ = try await send("DELETE", key: key)
    }

    /// Creates the bucket (for tests and first-time set-up); an existing bucket of ours is fine.
    public func createBucket() async throws(StoreError) {
        do {
            _ = try await send("PUT", key: nil)
        } catch .service(_, _, _, let code, _) where code == "BucketAlreadyOwnedByYou" {
        }
    }

    // MARK: Requests

    private func send(
        _ method: String, key: ObjectKey?, query: [(String, String)] = [], headers: [(String, String)] = [],
        uploadFrom: URL? = nil, downloadTo: URL? = nil, errorKey: ObjectKey? = nil
    ) async throws(StoreError) -> HTTPResponse {
        var path = settings.endpoint.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        path += "/" + S3Encoding.path(settings.bucket)
        if let key { path += "/" + S3Encoding.path(key.rawValue) }
        let url = path + (query.isEmpty ? "" : "?" + S3Encoding.query(query))
        var request = HTTPRequest(method: method, url: url)
        request.headers = headers
        if !headers.contains(where: { $0.0 == "x-amz-content-sha256" }) {
            request.headers.append(("x-amz-content-sha256", S3Encoding.emptyPayloadHash))
        }
        if let token = settings.credentials.sessionToken { request.headers.append(("x-amz-security-token", token)) }
        request.signing = ("aws:amz:\(settings.region):s3", settings.credentials.accessKey, settings.credentials.secret)
        request.stallSeconds = settings.stallSeconds
        request.uploadFile = uploadFrom
        request.downloadFile = downloadTo

        var attempt = 0
        while true {
            attempt += 1
            let outcome = try await client.perform(request)
            switch outcome {
            case .failure(let failure):
                if !failure.retryable || attempt >= Self.attempts {
                    throw .transport(
                        endpoint: settings.endpoint.absoluteString,
                        reason: failure.message + (attempt > 1 ? " (after \(attempt) attempts)" : ""))
                }
            case .success(let response) where (200..<300).contains(response.status):
                return response
            case .success(let response):
                let error = ErrorParser.parse(response.body)
                if let region = Self.bucketRegion(response), region != settings.region {
                    throw .wrongRegion(store: "s3://\(settings.bucket)", signed: settings.region, bucket: region)
                }
                let code = error?.code ?? (response.status == 404 ? "NotFound" : "HTTP\(response.status)")
                let retryable = response.status >= 500 || response.status == 429 || code == "SlowDown"
                if !retryable || attempt >= Self.attempts {
                    if response.status == 404 && code != "NoSuchBucket", let key = errorKey ?? key {
                        throw .notFound(store: name, key: key.rawValue)
                    }
                    throw .service(
                        store: name, key: (errorKey ?? key)?.rawValue, status: response.status, code: code,
                        message: error?.message ?? "")
                }
            }
            // Exponential backoff with full jitter: up to 0.1, 0.2, 0.4, 0.8 s.
            let ceiling = 0.1 * Double(1 << (attempt - 1))
            try? await Task.sleep(for: .milliseconds(Int(Double.random(in: 0...ceiling) * 1000)))
        }
    }

    /// The bucket's own region when an answer says the request went to the wrong one: AWS's
    /// `x-amz-bucket-region` on a 301 PermanentRedirect or a 400, else the region a 400
    /// AuthorizationHeaderMalformed expects (`<Region>…</Region>`).
    static func bucketRegion(_ response: HTTPResponse) -> String? {
        guard response.status == 301 || response.status == 400 else { return nil }
        if let region = response.headers["x-amz-bucket-region"], !region.isEmpty { return region }
        let body = String(decoding: response.body, as: UTF8.self)
        guard body.contains("AuthorizationHeaderMalformed") || body.contains("PermanentRedirect"),
            let match = body.firstMatch(of: /<Region>([a-z0-9-]+)<\/Region>/)
        else { return nil }
        return String(match.1)
    }

    /// What a browser opening the object's link needs to show it: a review page, its images.
    static func contentType(of key: ObjectKey) -> String? {
        switch key.rawValue.split(separator: ".").last?.lowercased() {
        case "png": "image/png"
        case "html": "text/html; charset=utf-8"
        default: nil
        }
    }

    private static func metadataHeaders(_ metadata: [String: String]) -> [(String, String)] {
        metadata.sorted { $0.key < $1.key }.map { ("x-amz-meta-\($0.key)", $0.value) }
    }

    /// The user metadata every upload and copy of pipeline's keeps the content's MD5 in.
    static let md5Metadata = "pipeline-md5"

    /// The content's MD5 a GET or HEAD answer vouches for: the one kept in metadata, else an ETag
    /// that is one (one part, not SSE-KMS or SSE-C); nil when nothing says.
    static func contentMD5(_ headers: [String: String]) -> String? {
        if let kept = headers["x-amz-meta-\(md5Metadata)"] { return kept }
        let etag = etag(headers["etag"])
        guard !etag.isEmpty, !etag.contains("-"), !DigestTrust.encryptedOtherwise(headers) else { return nil }
        return etag
    }

    /// `objects` with their content's MD5: the ETag where the bucket's ETags are MD5s, else (and
    /// for an object uploaded in parts) what the object's metadata keeps, else its content hashed.
    func withDigests(_ objects: [ObjectInfo]) async throws(StoreError) -> [ObjectInfo] {
        var trusted = await DigestTrust.shared.trusted(bucketID)
        if trusted == nil, let probe = objects.first(where: { !$0.etag.contains("-") }) {
            let response = try await send("HEAD", key: probe.key)
            trusted = await DigestTrust.shared.learn(
                bucketID, etag: probe.etag, md5: response.headers["x-amz-meta-\(Self.md5Metadata)"],
                headers: response.headers)
        }
        let unsure = objects.indices.filter { trusted == false || objects[$0].etag.contains("-") }
        guard !unsure.isEmpty else { return objects }
        let found = try await StoreSync.concurrently(unsure, limit: 8) { index async throws(StoreError) in
            try await self.contentMD5(of: objects[index].key)
        }
        var resolved = objects
        for (index, md5) in zip(unsure, found) {
            resolved[index] = ObjectInfo(
                key: objects[index].key, size: objects[index].size, etag: objects[index].etag, md5: md5)
        }
        return resolved
    }

    /// An object's content MD5 when its ETag is not one: from its metadata, else by reading it.
    private func contentMD5(of key: ObjectKey) async throws(StoreError) -> String {
        let response = try await send("HEAD", key: key)
        if let kept = response.headers["x-amz-meta-\(Self.md5Metadata)"] { return kept }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-md5-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try await send("GET", key: key, downloadTo: scratch)
        return try Digest.hex(ofFile: scratch, .md5)
    }

    static func etag(_ header: String?) -> String {
        (header ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
    }

    static func base64(hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }
}
