import CCrypto
import Foundation

/// Hashes of object contents: MD5 (what S3 reports as the ETag of an object uploaded in one part,
/// so identical objects are recognised without downloading them) and SHA-256 (the payload hash
/// S3 Signature V4 requires). Computed by OpenSSL, streaming, so memory does not grow with size.
public enum DigestAlgorithm: Sendable {
    case md5
    case sha256
}

public struct Digest: Sendable {
    /// The digest of a file's contents, read in 64 KiB pieces, as lowercase hex.
    public static func hex(ofFile url: URL, _ algorithm: DigestAlgorithm) throws(StoreError) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw .io(path: url.path, reason: "cannot be read")
        }
        defer { try? handle.close() }
        let context = try Context(algorithm)
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 16) ?? Data()
            } catch {
                throw .io(path: url.path, reason: error.localizedDescription)
            }
            if chunk.isEmpty { break }
            try context.update(chunk)
        }
        return try context.finish()
    }

    /// The digest of bytes in memory, as lowercase hex.
    public static func hex(of data: some DataProtocol, _ algorithm: DigestAlgorithm) throws(StoreError) -> String {
        let context = try Context(algorithm)
        try context.update(Data(data))
        return try context.finish()
    }

    /// Every OpenSSL call goes through here: OpenSSL's EVP functions return 1 on success.
    static func check(_ result: Int32, _ call: String) throws(StoreError) {
        guard result == 1 else { throw .crypto(call: call) }
    }

    /// One owner of an EVP_MD_CTX, freed in deinit.
    private final class Context {
        let handle: OpaquePointer

        init(_ algorithm: DigestAlgorithm) throws(StoreError) {
            guard let handle = EVP_MD_CTX_new() else { throw .crypto(call: "EVP_MD_CTX_new") }
            self.handle = handle
            try Digest.check(
                EVP_DigestInit_ex(handle, algorithm == .md5 ? EVP_md5() : EVP_sha256(), nil), "EVP_DigestInit_ex")
        }

        deinit { EVP_MD_CTX_free(handle) }

        func update(_ data: Data) throws(StoreError) {
            let result = data.withUnsafeBytes { buffer in EVP_DigestUpdate(handle, buffer.baseAddress, buffer.count) }
            try Digest.check(result, "EVP_DigestUpdate")
        }

        func finish() throws(StoreError) -> String {
            var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            try Digest.check(EVP_DigestFinal_ex(handle, &bytes, &length), "EVP_DigestFinal_ex")
            return bytes.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
        }
    }
}
