import Foundation

/// Links to S3 objects that open in a browser with no credentials: AWS Signature V4 in the query
/// string (a presigned GET), valid for a stated time. The link carries the access key's id and a
/// signature, never the secret. Temporary credentials (a session token) are refused: the token
/// would be in the link, and so in the CI's log and summary.
public struct S3Presigner: Sendable {
    public let settings: S3Settings
    /// When the links are signed; a test's fixed clock.
    public var now: @Sendable () -> Date = { Date() }

    /// SigV4's longest lifetime.
    public static let longest: Duration = .seconds(7 * 24 * 3600)

    public init(_ settings: S3Settings) {
        self.settings = settings
    }

    /// A GET link to `key`, valid for `lifetime` (at most seven days).
    public func url(for key: ObjectKey, lifetime: Duration) throws(StoreError) -> String {
        guard settings.credentials.sessionToken == nil else {
            throw .service(
                store: "s3://\(settings.bucket)", key: key.rawValue, status: 0, code: "PresignRefused",
                message: "temporary credentials (AWS_SESSION_TOKEN) would be written into the link; "
                    + "set the store's public address (review-url) or use a long-lived key")
        }
        let seconds = min(max(1, Int(lifetime.components.seconds)), Int(Self.longest.components.seconds))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now())
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(settings.region)/s3/aws4_request"
        let base = settings.endpoint.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let path = "/" + S3Encoding.path(settings.bucket) + "/" + S3Encoding.path(key.rawValue)
        let prefixPath = settings.endpoint.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let canonicalPath = (prefixPath.isEmpty ? "" : "/" + S3Encoding.path(prefixPath)) + path
        let parameters = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(settings.credentials.accessKey)/\(scope)"),
            ("X-Amz-Date", stamp), ("X-Amz-Expires", "\(seconds)"), ("X-Amz-SignedHeaders", "host"),
        ]
        let query = S3Encoding.query(parameters)
        let canonical = [
            "GET", canonicalPath, query, "host:\(Self.host(settings.endpoint))", "", "host", "UNSIGNED-PAYLOAD",
        ].joined(separator: "\n")
        let toSign = ["AWS4-HMAC-SHA256", stamp, scope, try Digest.hex(of: Data(canonical.utf8), .sha256)]
            .joined(separator: "\n")
        var key = Data("AWS4\(settings.credentials.secret)".utf8)
        for part in [day, settings.region, "s3", "aws4_request"] { key = try Self.hmac(key, Data(part.utf8)) }
        let signature = try Self.hmac(key, Data(toSign.utf8)).map { String(format: "%02x", $0) }.joined()
        return base + path + "?" + query + "&X-Amz-Signature=" + signature
    }

    /// The Host header a client sends: the port only when it is not the scheme's default.
    static func host(_ endpoint: URL) -> String {
        let host = endpoint.host ?? ""
        guard let port = endpoint.port else { return host }
        let usual = (endpoint.scheme == "https" && port == 443) || (endpoint.scheme == "http" && port == 80)
        return usual ? host : "\(host):\(port)"
    }

    /// HMAC-SHA256 (RFC 2104) over OpenSSL's SHA-256.
    static func hmac(_ key: Data, _ message: Data) throws(StoreError) -> Data {
        var block = key.count > 64 ? try sha256(key) : key
        block.append(Data(repeating: 0, count: 64 - block.count))
        let inner = Data(block.map { $0 ^ 0x36 }) + message
        return try sha256(Data(block.map { $0 ^ 0x5c }) + sha256(inner))
    }

    private static func sha256(_ data: Data) throws(StoreError) -> Data {
        let hex = try Digest.hex(of: data, .sha256)
        var bytes = Data(capacity: 32)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
