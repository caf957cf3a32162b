import Testing

@testable import ObjectStorage

@Suite("The certificate authorities HTTPS trusts: the host's variables, else libcurl's, else the distribution's")
struct CertificateAuthoritiesTests {
    let debian = "/etc/ssl/certs/ca-certificates.crt"
    let fedora = "/etc/pki/tls/certs/ca-bundle.crt"

    @Test("CURL_CA_BUNDLE, then SSL_CERT_FILE, and SSL_CERT_DIR, whatever libcurl was built with")
    func variablesFirst() {
        let everywhere: (String) -> Bool = { _ in true }
        #expect(
            CertificateAuthorities.resolve(
                variables: ["CURL_CA_BUNDLE": "/a.pem", "SSL_CERT_FILE": "/b.pem"], builtInFile: debian,
                exists: everywhere) == CertificateAuthorities(file: "/a.pem", directory: nil))
        #expect(
            CertificateAuthorities.resolve(
                variables: ["SSL_CERT_FILE": "/b.pem", "SSL_CERT_DIR": "/certs"], builtInFile: debian,
                exists: everywhere) == CertificateAuthorities(file: "/b.pem", directory: "/certs"))
        #expect(
            CertificateAuthorities.resolve(variables: ["SSL_CERT_DIR": "/certs"], builtInFile: nil, exists: everywhere)
                == CertificateAuthorities(file: nil, directory: "/certs"))
        // An empty variable names nothing.
        #expect(
            CertificateAuthorities.resolve(variables: ["SSL_CERT_FILE": ""], builtInFile: debian, exists: everywhere)
                == nil)
    }

    @Test("libcurl's own bundle where it exists; on another distribution, the first bundle found there")
    func builtInElseWellKnown() {
        #expect(CertificateAuthorities.resolve(variables: [:], builtInFile: debian, exists: { $0 == debian }) == nil)
        #expect(
            CertificateAuthorities.resolve(variables: [:], builtInFile: debian, exists: { $0 == fedora })
                == CertificateAuthorities(file: fedora, directory: nil))
        #expect(
            CertificateAuthorities.resolve(variables: [:], builtInFile: nil, exists: { $0 == "/etc/ssl/cert.pem" })
                == CertificateAuthorities(file: "/etc/ssl/cert.pem", directory: nil))
        // Nothing anywhere: libcurl's settings stay, and its failure says how to name a file (the hint).
        #expect(CertificateAuthorities.resolve(variables: [:], builtInFile: debian, exists: { _ in false }) == nil)
    }
}
