import Foundation
import ObjectStorage
import TestSupport
import Testing

/// A root holding only what a release may need from the system (the dynamic loader, glibc,
/// libstdc++, libgcc_s and zlib, copied from this machine's Debian packages), the release tarball
/// unpacked in it, and commands run there by chroot in a mount namespace of their own with /proc
/// mounted (Swift reads its arguments there). Ubuntu 26.04's terms and stricter: no libxml2, no
/// libgit2, no libcurl, no certificate authorities.
final class BareRoot {
    /// The tarball to try: scripts/test.sh builds it with scripts/release.sh and names it here.
    static let tarball = ProcessInfo.processInfo.environment["PIPELINE_TEST_RELEASE"]
    /// The packages whose shared libraries the root holds.
    static let packages = ["libc6", "libstdc++6", "libgcc-s1", "zlib1g"]
    /// Making the root takes root and Debian's package database.
    static var available: Bool {
        tarball != nil && getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-query")
    }

    let root: URL
    /// The release's binary, as seen inside the root.
    let binary = "/opt/pipeline/bin/pipeline"

    init(tarball: String) throws {
        root = try Scratch.folder("bare-root")
        for folder in ["proc", "tmp", "work", "opt/pipeline", "certs"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // Every shared object the packages install (and the symbolic links naming them), nothing else.
        let files = try Shell.run("dpkg-query", ["-L"] + Self.packages).stdout.split(separator: "\n").map(String.init)
            .filter { $0.wholeMatch(of: #//(usr/)?lib[^/]*/.+\.so(\.[0-9.]+)?/#) != nil }
        let copy =
            #"root="$1"; shift; for file; do mkdir -p "$root${file%/*}" && cp -a "$file" "$root$file" || exit; done"#
        let copied = try Shell.run("sh", ["-c", copy, "sh", root.path] + files)
        guard copied.status == 0 else { throw BareRootError("copying the libraries failed: \(copied.stderr)") }
        let unpacked = try Shell.run(
            "tar", ["-xzf", tarball, "-C", root.appendingPathComponent("opt/pipeline").path, "--strip-components=1"])
        guard unpacked.status == 0 else { throw BareRootError("unpacking \(tarball) failed: \(unpacked.stderr)") }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// A path inside the root, as the host sees it.
    func host(_ path: String) -> URL { root.appendingPathComponent(String(path.drop { $0 == "/" })) }

    /// `pipeline ARGUMENTS` run inside the root, in `directory` (a path inside it, passed as `-C`) if
    /// given, with only `variables`.
    func pipeline(_ arguments: [String], in directory: String? = nil, variables: [String: String] = [:]) throws
        -> Shell.Result
    {
        let assignments = variables.merging(["HOME": "/tmp", "PATH": "/opt/pipeline/bin"]) { given, _ in given }
            .map { "\($0.key)=\($0.value)" }.sorted()
        let script = #"mount -t proc proc "$1/proc" && shift && exec "$@""#
        let chroot = FileManager.default.isExecutableFile(atPath: "/usr/sbin/chroot") ? "/usr/sbin/chroot" : "chroot"
        return try Shell.run(
            "unshare",
            ["--mount", "--", "sh", "-c", script, "sh", root.path, "env", "-i"] + assignments
                + [chroot, root.path, binary] + arguments + (directory.map { ["-C", $0] } ?? []))
    }
}

struct BareRootError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite(
    "The release tarball in a bare root: only the loader, glibc, libstdc++, libgcc_s and zlib",
    .serialized,
    .enabled(
        if: BareRoot.available,
        "needs root and PIPELINE_TEST_RELEASE, a tarball of scripts/release.sh (scripts/test.sh builds it)"))
struct BareRootReleaseTests {
    static var allowed: Regex<(Substring, Substring, Substring?)> {
        #/^(ld-linux[-a-z0-9_]*\.so\.\d+|lib(c|m|dl|pthread|rt|resolv)\.so\.[\d.]+|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libz\.so\.1)$/#
    }

    @Test("the binary needs nothing beyond glibc, libstdc++, libgcc_s and zlib; version names libgit2 and libcurl")
    func startsAndNamesItsLibraries() throws {
        let bare = try BareRoot(tarball: try #require(BareRoot.tarball))
        let dynamic = try Shell.run("readelf", ["-d", bare.host(bare.binary).path]).stdout
        let needed = dynamic.split(separator: "\n").compactMap { line in
            line.contains("(NEEDED)") ? line.split(separator: "[").last?.dropLast().description : nil
        }
        #expect(!needed.isEmpty)
        #expect(needed.filter { $0.wholeMatch(of: Self.allowed) == nil } == [], "NEEDED: \(needed)")
        #expect(!needed.contains("libxml2.so.2"))

        let version = try bare.pipeline(["version"])
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout.contains(#/libgit2 \d+\.\d+\.\d+\n/#), "\(version.stdout)")
        #expect(version.stdout.contains(#/libcurl \d+\.\d+\.\d+\n/#), "\(version.stdout)")
        #expect(version.stdout.hasPrefix("pipeline "))

        // Without the release's lib/pipeline there is no libcurl in the root: said, with the storage status.
        try FileManager.default.removeItem(at: bare.host("/opt/pipeline/lib/pipeline"))
        let withoutCurl = try bare.pipeline(["version"])
        #expect(withoutCurl.status == 5, "\(withoutCurl.stderr)")
        #expect(withoutCurl.stdout.contains(#/libgit2 \d+\.\d+\.\d+\n/#), "libgit2 is linked in: \(withoutCurl.stdout)")
        #expect(withoutCurl.stdout.contains("libcurl not available ("), "\(withoutCurl.stdout)")
        #expect(withoutCurl.stdout.contains("libcurl.so.4"), "\(withoutCurl.stdout)")
    }

    @Test("changes, and refs push and promote on a folder store, read git and write as on this machine")
    func gitAndFolderStore() throws {
        let bare = try BareRoot(tarball: try #require(BareRoot.tarball))
        let repo = try bare.mergedRepository(references: "  feature: store/feature\n  develop: store/develop\n")
        try FileManager.default.createDirectory(
            at: repo.appendingPathComponent("store/develop"), withIntermediateDirectories: true)

        let inRoot = try bare.pipeline(["changes", "--json"], in: "/work/repo")
        #expect(inRoot.status == 0, "\(inRoot.stderr)")
        let onHost = try PipelineBinary.run(["changes", "--json"], in: repo)
        #expect(onHost.status == 0, "\(onHost.stderr)")
        #expect(inRoot.stdout == onHost.stdout.replacingOccurrences(of: bare.root.path, with: ""))
        #expect(inRoot.stdout.contains("LoginTests"))

        try bare.git("checkout", "-q", "feature")
        let push = try bare.pipeline(["refs", "push", "LoginTests"], in: "/work/repo", variables: ["CI": "true"])
        #expect(push.status == 0, "\(push.stderr)")
        try bare.git("checkout", "-q", "develop")
        let promote = try bare.pipeline(["refs", "promote"], in: "/work/repo", variables: ["CI": "true"])
        #expect(promote.status == 0, "\(promote.stderr)")
        let promoted = repo.appendingPathComponent("store/develop/LoginTests/test_login.1.png")
        #expect((try? String(contentsOf: promoted, encoding: .utf8)) == "login v2\n")
    }

    @Test(
        "refs push and promote on the strict-SigV4 S3 server over HTTPS, trusting the authority SSL_CERT_FILE names",
        .enabled(if: RefsBackend.s3Endpoint != nil, "needs PIPELINE_TEST_S3_ENDPOINT (scripts/test.sh starts it)"))
    func s3OverTLS() async throws {
        let bare = try BareRoot(tarball: try #require(BareRoot.tarball))
        // An authority of the test's own, and the server's certificate for 127.0.0.1, in front of the S3 server.
        let certificate = bare.host("/certs/test-ca.pem")
        let key = bare.root.appendingPathComponent("tls.key")
        let made = try Shell.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let upstream = try #require(RefsBackend.s3Endpoint.flatMap(URL.init(string:)))
        let proxy = try FaultProxy(upstream: upstream, faults: [], tls: (certificate, key))
        let bucket = "bare-\(UUID().uuidString.prefix(18).lowercased())"
        let credentials = AWSCredentials(accessKey: "test:tester", secret: "testing")
        try await S3Store(S3Settings(endpoint: upstream, bucket: bucket, credentials: credentials)).createBucket()
        _ = try bare.mergedRepository(
            references: "  feature: s3://\(bucket)/feature\n  develop: s3://\(bucket)/develop\n"
                + "  endpoint: \(proxy.endpoint.absoluteString)\n")
        var variables = RefsBackend.environment
        variables["AWS_PROFILE"] = nil

        // The root has no certificate authorities at all: refused at once, saying how to name them.
        try bare.git("checkout", "-q", "feature")
        let untrusted = try bare.pipeline(["refs", "push", "LoginTests"], in: "/work/repo", variables: variables)
        #expect(untrusted.status == 5, "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("SSL_CERT_FILE"), "\(untrusted.stderr)")
        #expect(!untrusted.stderr.contains("testing"), "the secret is never printed")

        variables["SSL_CERT_FILE"] = "/certs/test-ca.pem"
        let push = try bare.pipeline(["refs", "push", "LoginTests"], in: "/work/repo", variables: variables)
        #expect(push.status == 0, "\(push.stderr)")
        try bare.git("checkout", "-q", "develop")
        let promote = try bare.pipeline(
            ["refs", "promote", "--all", "--force", "--yes"], in: "/work/repo", variables: variables)
        #expect(promote.status == 0, "\(promote.stderr)")
        let store = try S3Store(S3Settings(endpoint: upstream, bucket: bucket, credentials: credentials))
        let promoted = bare.root.appendingPathComponent("promoted.png")
        try await store.download(try ObjectKey("develop/LoginTests/test_login.1.png"), to: promoted)
        #expect((try? String(contentsOf: promoted, encoding: .utf8)) == "login v2\n")
        #expect(
            proxy.requests.contains { $0.hasPrefix("PUT /\(bucket)/feature/LoginTests/test_login.1.png ") },
            "the push went through the HTTPS endpoint: \(proxy.requests)")
    }
}

extension BareRoot {
    /// /work/repo in the root: a snapshot test whose reference a branch `feature` changes, merged into
    /// `develop` (checked out), and a spec `post-merge` with these `references:` lines.
    @discardableResult
    func mergedRepository(references: String) throws -> URL {
        let repo = host("/work/repo")
        try Scratch.write(
            "name: post-merge\ndescription: Promote the merged references.\nreferences:\n\(references)"
                + "stages:\n  - promote:\n      from: feature\n      to: develop\n",
            to: repo.appendingPathComponent("pipelines/post-merge.yml"))
        try Scratch.write("store/\n", to: repo.appendingPathComponent(".gitignore"))
        try Scratch.write("// login\n", to: repo.appendingPathComponent("Tests/AppTests/LoginTests.swift"))
        let reference = repo.appendingPathComponent("Tests/AppTests/__Snapshots__/LoginTests/test_login.1.png")
        try Scratch.write("login v1\n", to: reference)
        try git("init", "-q", "-b", "develop")
        try git("add", "-A")
        try git("commit", "-q", "-m", "initial")
        try git("checkout", "-q", "-b", "feature")
        try Scratch.write("login v2\n", to: reference)
        try git("commit", "-q", "-am", "login v2")
        try git("checkout", "-q", "develop")
        try git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
        return repo
    }

    func git(_ arguments: String...) throws {
        _ = try Scratch.git(host("/work/repo"), arguments: arguments)
    }
}
