import CCurl
import CCurlShims
import Foundation

/// The certificate authorities HTTPS requests trust. libcurl is built with one distribution's path
/// (Debian's `/etc/ssl/certs/ca-certificates.crt` for the release's bundled libcurl), which another
/// distribution, a container image or a host with its own authority does not have; and libcurl
/// itself reads no variable naming another. So, as the curl tool and OpenSSL do: `CURL_CA_BUNDLE`,
/// else `SSL_CERT_FILE`, and `SSL_CERT_DIR`; where none is set and libcurl's own file is missing,
/// the first bundle found where distributions keep theirs.
struct CertificateAuthorities: Equatable, Sendable {
    /// A PEM file of authorities (CURLOPT_CAINFO).
    var file: String?
    /// A folder of hashed certificates (CURLOPT_CAPATH).
    var directory: String?

    /// Where distributions keep their bundle: Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine
    /// and macOS.
    static let wellKnownFiles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem",
    ]

    /// What requests set, or nil to leave libcurl's own settings: `builtInFile` is libcurl's
    /// compiled-in bundle, `exists` tells whether a path is there.
    static func resolve(
        variables: [String: String], builtInFile: String?, exists: (String) -> Bool
    ) -> CertificateAuthorities? {
        func named(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        let file = named("CURL_CA_BUNDLE") ?? named("SSL_CERT_FILE")
        let directory = named("SSL_CERT_DIR")
        if file != nil || directory != nil { return CertificateAuthorities(file: file, directory: directory) }
        if let builtInFile, exists(builtInFile) { return nil }
        return wellKnownFiles.first(where: exists).map { CertificateAuthorities(file: $0, directory: nil) }
    }

    /// This process's, read once (after libcurl loaded).
    static let current: CertificateAuthorities? = resolve(
        variables: ProcessInfo.processInfo.environment,
        builtInFile: pipeline_curl_version_info()?.pointee.cainfo.map { String(cString: $0) },
        exists: { FileManager.default.fileExists(atPath: $0) })

    /// What a failed TLS handshake's message adds: where the authorities came from, and how to name others.
    static var hint: String {
        let source =
            current.map { "trusting \([$0.file, $0.directory].compactMap { $0 }.joined(separator: " and "))" }
            ?? "trusting libcurl's own bundle"
        return "\(source); name the certificate authorities' file with SSL_CERT_FILE or CURL_CA_BUNDLE"
    }
}
