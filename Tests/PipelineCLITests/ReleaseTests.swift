import Foundation
import TestSupport
import XCTest
import Yams

/// `scripts/release.sh` packages the built binary; `scripts/install.sh` and `action.yml` install it from
/// a release server on 127.0.0.1, checking its SHA-256.
final class ReleaseTests: XCTestCase {
    private var scratch: URL!
    private var version = ""
    private var tarball = ""

    override func setUpWithError() throws {
        scratch = try Scratch.folder("release")
        version = String(try PipelineBinary.run(["--version"], in: scratch).stdout.dropFirst("pipeline ".count))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let release = try Shell.run(
            "bash", ["scripts/release.sh", "--binary", PipelineBinary.url.path, "--out", path("releases/v\(version)")])
        XCTAssertEqual(release.status, 0, release.stderr)
        tarball = "pipeline-\(version)-\(Self.platform).tar.gz"
        XCTAssertTrue(release.stdout.contains("release: \(path("releases/v\(version)/\(tarball)"))"), release.stdout)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func path(_ relative: String) -> String { scratch.appendingPathComponent(relative).path }

    /// The tarball's platform, as release.sh names it.
    private static var platform: String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #if os(macOS)
            return "macos-" + machine
        #else
            return "linux-" + (machine == "aarch64" ? "arm64" : machine)
        #endif
    }

    private func install(_ arguments: [String], environment: [String: String] = [:]) throws -> Shell.Result {
        try Shell.run("bash", ["scripts/install.sh"] + arguments, environment: environment)
    }

    /// `--from-source`: a clone of this repository built into a release by its release.sh and
    /// installed (the build itself is the one the tests made, passed as release.sh's --binary:
    /// scripts/test.sh builds a real release in its release lane).
    func testInstallsFromSourceAClonesRelease() throws {
        let clone = path("source")
        XCTAssertEqual(try Shell.run("git", ["clone", "-q", "--depth", "1", Shell.repository.path, clone]).status, 0)
        let built = try install(
            ["--from-source", clone, "--prefix", path("from-source")],
            environment: ["PIPELINE_RELEASE_ARGS": "--binary \(PipelineBinary.url.path)"])
        XCTAssertEqual(built.status, 0, built.stderr)
        XCTAssertTrue(built.stderr.contains("install: building a release in \(clone)"), built.stderr)
        XCTAssertEqual(built.stdout, "install: pipeline \(version) in \(path("from-source/bin/pipeline"))\n")
        XCTAssertEqual(try Shell.run(path("from-source/bin/pipeline"), ["--version"]).stdout, "pipeline \(version)\n")
        // A folder that is no checkout: one line, nothing installed.
        let empty = path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let refused = try install(["--from-source", empty, "--prefix", path("refused")])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("no scripts/release.sh (not a pipeline checkout)"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("refused/bin/pipeline")))
        let both = try install(["--from-source", clone, version])
        XCTAssertEqual(both.status, 2, both.stderr)
    }

    func testInstallsAVersionAURLOrAFileCheckingTheChecksum() throws {
        let server = try FileServer(folder: scratch.appendingPathComponent("releases"))
        let url = "\(server.address.absoluteString)/v\(version)/\(tarball)"

        let byURL = try install([url, "--prefix", path("by-url")])
        XCTAssertEqual(byURL.status, 0, byURL.stderr)
        XCTAssertEqual(byURL.stdout, "install: pipeline \(version) in \(path("by-url/bin/pipeline"))\n")
        let installed = try Shell.run(path("by-url/bin/pipeline"), ["--version"])
        XCTAssertEqual(installed.stdout, "pipeline \(version)\n")

        let byVersion = try install(
            [version, "--prefix", path("by-version")], environment: ["PIPELINE_RELEASES": server.address.absoluteString]
        )
        XCTAssertEqual(byVersion.status, 0, byVersion.stderr)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path("by-version/bin/pipeline")))

        let byFile = try install([path("releases/v\(version)/\(tarball)"), "--prefix", path("by-file")])
        XCTAssertEqual(byFile.status, 0, byFile.stderr)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path("by-file/bin/pipeline")))
    }

    func testRefusesAWrongChecksumAndInstallsNothing() throws {
        let server = try FileServer(folder: scratch.appendingPathComponent("releases"))
        let url = "\(server.address.absoluteString)/v\(version)/\(tarball)"
        let wrong = String(repeating: "0", count: 64)

        let pinned = try install([url, "--prefix", path("pinned"), "--sha256", wrong])
        XCTAssertEqual(pinned.status, 1)
        XCTAssertTrue(pinned.stderr.contains("SHA-256 is "), pinned.stderr)
        XCTAssertTrue(pinned.stderr.contains("expected \(wrong); nothing installed"), pinned.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("pinned/bin/pipeline")))

        // A tarball changed after its checksum was published.
        let published = scratch.appendingPathComponent("releases/v\(version)/\(tarball)")
        let handle = try FileHandle(forWritingTo: published)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("tampered".utf8))
        try handle.close()
        let tampered = try install([url, "--prefix", path("tampered")])
        XCTAssertEqual(tampered.status, 1)
        XCTAssertTrue(tampered.stderr.contains("nothing installed"), tampered.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("tampered/bin/pipeline")))

        let missing = try install(["\(server.address.absoluteString)/v9.9.9/\(tarball)", "--prefix", path("missing")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("install: could not download"), missing.stderr)
    }

    /// action.yml's step run as GitHub's runner runs it: inputs and contexts substituted, the installed
    /// folder added to GITHUB_PATH, and a second run served from the tool cache.
    /// A release whose libcurl cannot be loaded (as on a runner without the release's lib/pipeline,
    /// or the system's libcurl) starts, so `--version` passes; `pipeline version` does not.
    func testRefusesABinaryThatCannotLoadItsLibrariesNamingThem() throws {
        let name = "pipeline-\(version)-\(Self.platform)"
        let binary = scratch.appendingPathComponent("broken/\(name)/bin/pipeline")
        try Scratch.write(
            """
            #!/bin/sh
            [ "$1" = --version ] && { echo "pipeline \(version)"; exit 0; }
            [ "$1" = version ] || exit 2
            printf 'pipeline \(version)\\nlibgit2 1.5.1\\nlibcurl not available (libcurl.so.4: cannot open shared object file)\\n'
            echo "error: libcurl could not be loaded" >&2
            exit 5

            """, to: binary)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
        let packed = try Shell.run("tar", ["-C", path("broken"), "-czf", path("broken/\(name).tar.gz"), name])
        XCTAssertEqual(packed.status, 0, packed.stderr)

        let refused = try install([
            path("broken/\(name).tar.gz"), "--prefix", path("refused"), "--sha256",
            try sha256(path("broken/\(name).tar.gz")),
        ])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains(
                "libcurl not available (libcurl.so.4: cannot open shared object file); nothing installed"),
            refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("refused/bin/pipeline")))
    }

    private func sha256(_ file: String) throws -> String {
        let result = try Shell.run("sh", ["-c", "sha256sum \"$1\" 2>/dev/null || shasum -a 256 \"$1\"", "sh", file])
        return String(result.stdout.prefix(64))
    }

    func testTheGitHubActionInstallsIntoTheToolCache() throws {
        let server = try FileServer(folder: scratch.appendingPathComponent("releases"))
        let action = try XCTUnwrap(
            try Yams.load(
                yaml: String(contentsOf: Shell.repository.appendingPathComponent("action.yml"), encoding: .utf8))
                as? [String: Any])
        let steps = try XCTUnwrap((action["runs"] as? [String: Any])?["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 1)
        let step = steps[0]
        let contexts = [
            "inputs.version": version, "inputs.releases": server.address.absoluteString, "inputs.sha256": "",
            "github.action_repository": "your-org/pipeline",
        ]
        var environment = try XCTUnwrap(step["env"] as? [String: String]).mapValues {
            try Self.substitute($0, contexts)
        }
        let githubPath = path("github-path")
        let githubOutput = path("github-output")
        environment.merge([
            "GITHUB_ACTION_PATH": Shell.repository.path, "RUNNER_TOOL_CACHE": path("tool-cache"),
            "RUNNER_TEMP": path("runner-temp"), "GITHUB_PATH": githubPath, "GITHUB_OUTPUT": githubOutput,
            "GITHUB_SERVER_URL": "https://github.com",
        ]) { $1 }
        let script = try Self.substitute(try XCTUnwrap(step["run"] as? String), contexts)

        let first = try Shell.run("bash", ["-e", "-c", script], environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("install: pipeline \(version)"), first.stdout)
        let folder = try String(contentsOfFile: githubPath, encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertTrue(folder.hasPrefix(path("tool-cache/pipeline/\(version)/")), folder)
        XCTAssertEqual(
            try String(contentsOfFile: githubOutput, encoding: .utf8), "path=\(folder)/pipeline\n")

        let second = try Shell.run("bash", ["-e", "-c", script], environment: environment)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertFalse(second.stdout.contains("install:"), "the tool cache's copy is used: \(second.stdout)")
    }

    /// Replaces every `${{ expression }}` by its value; an expression the test does not know fails it.
    private static func substitute(_ text: String, _ contexts: [String: String]) throws -> String {
        var result = text
        while let range = result.range(of: #"\$\{\{\s*([^}]*?)\s*\}\}"#, options: .regularExpression) {
            let expression = result[range].dropFirst(3).dropLast(2).trimmingCharacters(in: .whitespaces)
            guard let value = contexts[expression] else {
                throw CocoaError(.coderInvalidValue, userInfo: [NSLocalizedDescriptionKey: "unknown \(expression)"])
            }
            result.replaceSubrange(range, with: value)
        }
        return result
    }
}
