import PipelineCore

/// What reference storage can fail with. Each reads as one line naming the store, bucket, key or
/// path concerned, and never holds a secret.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsafeKey(String, reason: String)
    case notFound(store: String, key: String)
    case io(path: String, reason: String)
    case checksumMismatch(store: String, key: String, expected: String, actual: String)
    case crypto(call: String)
    /// No HTTP answer: refused, unreachable, timed out, dropped (after retries).
    case transport(endpoint: String, reason: String)
    /// An S3 error response: `code` is S3's (`NoSuchBucket`, `SignatureDoesNotMatch`, …).
    case service(store: String, key: String?, status: Int, code: String, message: String)
    case missingCredentials(String)
    case insecureEndpoint(String)
    /// An endpoint (given, or in `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`) that is no http(s) URL.
    case invalidEndpoint(String)
    /// A test's references have no place in the checkout.
    case unplaceable(test: String, reason: String)
    /// A conditional write found the object not as expected: created meanwhile, or changed since read.
    case preconditionFailed(store: String, key: String)
    /// The store cannot make a write conditional (OpenStack Swift's s3api answers 501).
    case conditionalWritesUnsupported(store: String, reason: String)
    /// The bucket lives in another region than the requests were signed for.
    case wrongRegion(store: String, signed: String, bucket: String)

    public var description: String {
        switch self {
        case .unsafeKey(let key, let reason):
            "refusing the object key '\(key)': \(reason)"
        case .notFound(let store, let key):
            "\(store): no object '\(key)'"
        case .io(let path, let reason):
            "\(path): \(reason)"
        case .checksumMismatch(let store, let key, let expected, let actual):
            "\(store): '\(key)' arrived damaged (MD5 \(actual), expected \(expected))"
        case .crypto(let call):
            "OpenSSL's \(call) failed"
        case .transport(let endpoint, let reason):
            "\(endpoint): \(reason)"
        case .service(let store, let key, let status, let code, let message):
            "\(store)\(key.map { ": '\($0)'" } ?? ""): \(code) (HTTP \(status))\(message.isEmpty ? "" : ": \(message)")"
        case .missingCredentials(let detail):
            "no S3 credentials: \(detail)"
        case .unplaceable(let test, let reason):
            "cannot place the references of '\(test)': \(reason)"
        case .preconditionFailed(let store, let key):
            "\(store): '\(key)' was written by someone else meanwhile"
        case .conditionalWritesUnsupported(let store, let reason):
            "\(store) cannot write conditionally (\(reason)), which a shared queue needs"
        case .wrongRegion(let store, let signed, let bucket):
            "\(store) is in the region \(bucket), not \(signed) (the spec's references.region, else AWS_REGION or "
                + "AWS_DEFAULT_REGION, else us-east-1): set region: \(bucket) in the spec's references, or AWS_REGION"
        case .insecureEndpoint(let endpoint):
            "\(endpoint) is plain HTTP and not on this machine; use https, or allow it with allow-http: true"
        case .invalidEndpoint(let endpoint):
            "the S3 endpoint '\(endpoint)' is not an http(s) URL"
        }
    }
}

extension StoreError: ExitCoded {
    /// A store that failed is storage's status; an endpoint that cannot be one is the settings'.
    public var exitStatus: ExitStatus {
        if case .invalidEndpoint = self { return .spec }
        return .storage
    }
}
