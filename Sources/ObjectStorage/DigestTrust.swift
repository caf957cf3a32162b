import Foundation

/// What each bucket's ETags are, as learnt: its objects' MD5s (most buckets), or not (SSE-KMS or
/// SSE-C default encryption, some S3-compatible servers), in which case contents are compared by
/// the MD5 pipeline keeps in each object's metadata. One per process, shared by every `S3Store`
/// of a bucket, so a bucket is looked at once however often a command opens it.
actor DigestTrust {
    static let shared = DigestTrust()
    var known: [String: Bool] = [:]

    func trusted(_ bucket: String) -> Bool? { known[bucket] }

    /// Learns from an object whose ETag and (when known) MD5 an answer gave; returns what it knows.
    @discardableResult
    func learn(_ bucket: String, etag: String, md5: String?, headers: [String: String]) -> Bool? {
        guard known[bucket] != false, !etag.contains("-") else { return known[bucket] }
        if Self.encryptedOtherwise(headers) {
            known[bucket] = false
        } else if let md5 {
            known[bucket] = md5 == etag
        } else if known[bucket] == nil {
            known[bucket] = true  // nothing says otherwise: the common case
        }
        return known[bucket]
    }

    /// Whether the answer says the object is encrypted in a way that makes its ETag no MD5.
    static func encryptedOtherwise(_ headers: [String: String]) -> Bool {
        (headers["x-amz-server-side-encryption"] ?? "").hasPrefix("aws:kms")
            || headers["x-amz-server-side-encryption-customer-algorithm"] != nil
    }
}
