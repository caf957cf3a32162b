import Foundation
import ImageDiff
import ObjectStorage
import TestSupport
import Testing
import Yams

/// The files a command writes, checked as files: each one valid UTF-8 with no NUL byte, parsing as
/// its format (YAML for workflows, specs and bitrise.yml; a patch `git apply --check` takes).
enum WrittenFiles {
    /// Every file below `folder` (git's own folder left out), path → bytes.
    static func read(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in FileManager.default.subpaths(atPath: folder.path) ?? []
        where !path.hasPrefix(".git/") && path != ".git" {
            let url = folder.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            files[path] = try Data(contentsOf: url)
        }
        return files
    }

    /// What is wrong with the text files among `files` (images are left out): one line per problem.
    static func problems(_ files: [String: Data], in folder: URL) throws -> [String] {
        var problems: [String] = []
        for (path, data) in files.sorted(by: { $0.key < $1.key }) where !path.hasSuffix(".png") {
            if let nul = data.firstIndex(of: 0) {
                problems.append("\(path): a NUL byte at offset \(nul - data.startIndex)")
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                problems.append("\(path): not valid UTF-8")
                continue
            }
            if path.hasSuffix(".yml") || path.hasSuffix(".yaml") {
                do { _ = try Yams.load(yaml: text) } catch { problems.append("\(path): not YAML (\(error))") }
            }
            if path.hasSuffix(".patch") {
                let check = try Shell.run("git", ["apply", "--check", path], in: folder)
                if check.status != 0 { problems.append("\(path): git apply --check: \(check.stderr)") }
            }
        }
        return problems
    }
}

/// A command run on a folder of inputs, for comparing what two builds of pipeline write.
struct WritingScenario: CustomStringConvertible, Sendable {
    let description: String
    /// Fills the (empty) folder with the inputs.
    let prepare: @Sendable (URL) throws -> Void
    /// The commands, run one after another in the folder; a command starting with `rm` removes the
    /// paths after it instead.
    let commands: [[String]]
    /// Whether the scenario's spec names an S3 store: each run gets a bucket of its own on the
    /// test server, named in place of `BUCKET` in the spec (and named `<bucket>` in the output).
    var s3 = false

    static let s3Endpoint = ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"]

    static let teamBitrise = InitCommandTests.teamBitrise

    /// The iOS team's own bitrise.yml: pushes to develop run `deploy`, every pull request `primary`,
    /// so init offers its join as bitrise.yml.pipeline.patch.
    static let clashingBitrise =
        teamBitrise
        .replacingOccurrences(of: "- push_branch: release/*", with: "- push_branch: develop")
        .replacingOccurrences(
            of: "- tag: \"*\"\n  workflow: deploy", with: "- pull_request_source_branch: \"*\"\n  workflow: primary"
        )
        .replacingOccurrences(of: "    build:\n", with: "    primary:\n")
        .replacingOccurrences(of: "        - build\n", with: "        - primary\n")

    static let iosJoin = [
        "init", "--ci", "bitrise", "--xcode", "--scheme", "App", "--store", "s3://team-snapshots",
        "--feature", "feature/__Snapshots__", "--develop", "develop/__Snapshots__", "--nodes", "4",
    ]

    /// The iOS team's join, offered as bitrise.yml.pipeline.patch.
    static let patchJoin = WritingScenario(
        description: "init --ci bitrise --xcode joining their bitrise.yml as a patch (their triggers clash)",
        prepare: repository(["bitrise.yml": clashingBitrise]), commands: [iosJoin])

    static func repository(_ files: [String: String]) -> @Sendable (URL) throws -> Void {
        { folder in
            for (path, text) in files { try Scratch.write(text, to: folder.appendingPathComponent(path)) }
            _ = try Scratch.git(folder, "init", "-q", "-b", "develop")
            _ = try Scratch.git(folder, "add", "-A")
            _ = try Scratch.git(folder, "commit", "-q", "-m", "theirs")
        }
    }

    static let package =
        "// swift-tools-version: 6.0\nimport PackageDescription\nlet package = Package(name: \"App\")\n"

    /// init on every CI and kind of project, with a team's bitrise.yml to join (directly, and as a
    /// patch), init --update, and refs diff.
    static let all: [WritingScenario] =
        ["github", "gitlab", "bitrise"].map { ci in
            WritingScenario(
                description: "init --ci \(ci), then init --update", prepare: repository(["Package.swift": package]),
                commands: [
                    ["init", "--ci", ci, "--store", "s3://team-snapshots", "--nodes", "2"], ["init", "--update"],
                ])
        }
        // Apps tested with xcodebuild run on macOS runners: GitHub's and Bitrise's.
        + ["github", "bitrise"].map { ci in
            WritingScenario(
                description: "init --ci \(ci) --xcode, then init --update",
                prepare: repository(["App.xcodeproj/project.pbxproj": "// !$*UTF8*$!\n{}\n"]),
                commands: [
                    ["init", "--ci", ci, "--xcode", "--scheme", "App", "--store", "store"], ["init", "--update"],
                ])
        } + [
            WritingScenario(
                description: "init --ci bitrise --xcode joining their bitrise.yml directly",
                prepare: repository(["bitrise.yml": teamBitrise]), commands: [iosJoin]),
            patchJoin,
            // The S3 client (libcurl, OpenSSL's digests and signatures) writing and reading a store.
            WritingScenario(
                description: "refs push, promote and pull on S3",
                prepare: repository([
                    "pipelines/post-merge.yml":
                        "name: post-merge\ndescription: Promote.\nreferences:\n  feature: s3://BUCKET/feature\n"
                        + "  develop: s3://BUCKET/develop\n  endpoint: \(s3Endpoint ?? "http://127.0.0.1:1")\n"
                        + "stages:\n  - promote:\n      from: feature\n      to: develop\n",
                    ".gitignore": ".build/\n", "Tests/AppTests/LoginTests.swift": "// login\n",
                    "Tests/AppTests/__Snapshots__/LoginTests/test_login.1.png": "login v1 ✓\n",
                    "Tests/AppTests/__Snapshots__/LoginTests/test_ログイン.2.png": String(repeating: "x", count: 70_000),
                ]),
                commands: [
                    ["refs", "push", "--all", "--json"], ["refs", "promote", "--all", "--force", "--yes", "--json"],
                    ["rm", "Tests/AppTests/__Snapshots__"], ["refs", "pull", "--json"],
                ], s3: true),
            WritingScenario(
                description: "refs diff with an overlay and a mask",
                prepare: { folder in
                    var image = RGBAImage(width: 40, height: 30, fill: (30, 120, 200, 255))
                    try PNG.write(image, to: folder.appendingPathComponent("reference.png"))
                    for index in 0..<25 { image.pixels[index * 28] = 250 }
                    try PNG.write(image, to: folder.appendingPathComponent("new.png"))
                },
                commands: [["refs", "diff", "reference.png", "new.png", "-o", "overlay.png", "--mask", "mask.png"]]),
        ]

    /// The scenarios this run can try: those on S3 only where scripts/test.sh started the server.
    static var available: [WritingScenario] { all.filter { !$0.s3 || s3Endpoint != nil } }

    /// A folder holding the inputs; the caller removes it.
    func inputs() throws -> URL {
        let folder = try Scratch.folder("inputs")
        try prepare(folder)
        return folder
    }

    /// Runs the commands with `binary` in a copy of `inputs` (fresh ones when nil): the files there
    /// after, the folder (the caller removes it) and what the commands printed, the folder's path
    /// and the bucket's name left out.
    func run(_ binary: URL = PipelineBinary.url, inputs given: URL? = nil) async throws
        -> (files: [String: Data], folder: URL, output: String)
    {
        let inputs = try given ?? self.inputs()
        defer { if given == nil { try? FileManager.default.removeItem(at: inputs) } }
        let folder = try Scratch.folder("written")
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.copyItem(at: inputs, to: folder)
        var environment: [String: String] = [:]
        var bucket = "BUCKET"
        if s3, let endpoint = Self.s3Endpoint.flatMap(URL.init(string:)) {
            bucket = "w-\(UUID().uuidString.prefix(18).lowercased())"
            let credentials = AWSCredentials(accessKey: "test:tester", secret: "testing")
            try await S3Store(S3Settings(endpoint: endpoint, bucket: bucket, credentials: credentials)).createBucket()
            let spec = folder.appendingPathComponent("pipelines/post-merge.yml")
            try Scratch.write(
                try String(contentsOf: spec, encoding: .utf8).replacingOccurrences(of: "BUCKET", with: bucket), to: spec
            )
            environment = RefsBackend.environment
        }
        var output = ""
        for command in commands {
            if command.first == "rm" {
                for path in command.dropFirst() {
                    try FileManager.default.removeItem(at: folder.appendingPathComponent(path))
                }
                continue
            }
            let result = try PipelineBinary.run(command, in: folder, environment: environment, binary: binary)
            output +=
                "$ pipeline \(command.joined(separator: " ")) → \(result.status)\n" + result.stdout + result.stderr
            if result.status > 1 { throw BareRootError("\(command) exited \(result.status): \(result.stderr)") }
        }
        var files = try WrittenFiles.read(folder)
        if s3 {
            // The spec names the run's bucket: compared as written, before the name went in.
            files["pipelines/post-merge.yml"] = try Data(
                contentsOf: inputs.appendingPathComponent("pipelines/post-merge.yml"))
        }
        let shown = output.replacingOccurrences(of: folder.resolvingSymlinksInPath().path, with: "<folder>")
            .replacingOccurrences(of: folder.path, with: "<folder>").replacingOccurrences(of: bucket, with: "<bucket>")
        return (files, folder, shown)
    }
}

@Suite("What init and refs write, checked as files: UTF-8, no NUL, parses as its format, the same every run")
struct WrittenFileTests {
    @Test("each file a scenario writes is whole", arguments: WritingScenario.available)
    func whole(scenario: WritingScenario) async throws {
        let inputs = try scenario.inputs()
        defer { try? FileManager.default.removeItem(at: inputs) }
        let (files, folder, output) = try await scenario.run(inputs: inputs)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(files.count > 1, "\(output)")
        // References are there after, as they were (on S3: removed, then pulled back from develop).
        for (path, data) in try WrittenFiles.read(inputs) where path.contains("__Snapshots__") {
            #expect(files[path] == data, "\(path)\n\(output)")
        }
        #expect(try WrittenFiles.problems(files, in: folder) == [], "\(output)")
    }

    @Test("their clashing bitrise.yml: the patch applies, keeps their deploy, and is the same on every run")
    func patch() async throws {
        let scenario = WritingScenario.patchJoin
        let inputs = try scenario.inputs()
        defer { try? FileManager.default.removeItem(at: inputs) }
        let (first, again) = (try await scenario.run(inputs: inputs), try await scenario.run(inputs: inputs))
        defer { [first.folder, again.folder].forEach { try? FileManager.default.removeItem(at: $0) } }
        let patch = try #require(first.files["bitrise.yml.pipeline.patch"], "\(first.output)")
        #expect(again.files["bitrise.yml.pipeline.patch"] == patch, "the same inputs write the same patch")
        #expect(try Shell.run("git", ["apply", "bitrise.yml.pipeline.patch"], in: first.folder).status == 0)
        let joined = try String(contentsOf: first.folder.appendingPathComponent("bitrise.yml"), encoding: .utf8)
        let yaml = try #require(try Yams.load(yaml: joined) as? [String: Any], "\(joined)")
        let workflows = try #require(yaml["workflows"] as? [String: Any])
        #expect(workflows["deploy"] != nil && workflows["primary"] != nil && workflows["pipeline-build"] != nil)
    }
}

/// The release (`scripts/release.sh`'s tarball, which users install) writes what the debug build
/// every other test runs writes, byte for byte: an optimised build lays memory out otherwise, and a
/// pointer read after its memory was freed shows there (init's bitrise patch once held NUL bytes).
@Suite(
    "The release binary writes what the debug build writes",
    .enabled(
        if: ReleaseBinary.tarball != nil,
        "needs PIPELINE_TEST_RELEASE, a tarball of scripts/release.sh (scripts/test.sh builds it)"))
struct ReleaseOutputTests {
    @Test("byte for byte, each scenario", arguments: WritingScenario.available)
    func sameBytes(scenario: WritingScenario) async throws {
        let release = try ReleaseBinary.shared()
        // One set of inputs (one repository, one commit) for both builds.
        let inputs = try scenario.inputs()
        defer { try? FileManager.default.removeItem(at: inputs) }
        let debug = try await scenario.run(inputs: inputs)
        defer { try? FileManager.default.removeItem(at: debug.folder) }
        let optimised = try await scenario.run(release, inputs: inputs)
        defer { try? FileManager.default.removeItem(at: optimised.folder) }
        #expect(optimised.output == debug.output, "what the two builds print")
        #expect(optimised.files.keys.sorted() == debug.files.keys.sorted())
        for (path, data) in debug.files.sorted(by: { $0.key < $1.key }) where optimised.files[path] != data {
            Issue.record("\(path) differs between the release and the debug build:\n\(optimised.output)")
        }
        #expect(try WrittenFiles.problems(optimised.files, in: optimised.folder) == [], "\(optimised.output)")
    }

    @Test("the iOS team's join: the release writes the same patch on 5 runs of 5, and git apply takes it")
    func patchFiveTimes() async throws {
        let release = try ReleaseBinary.shared()
        let scenario = WritingScenario.patchJoin
        let inputs = try scenario.inputs()
        defer { try? FileManager.default.removeItem(at: inputs) }
        var patches: Set<Data> = []
        for _ in 1...5 {
            let run = try await scenario.run(release, inputs: inputs)
            defer { try? FileManager.default.removeItem(at: run.folder) }
            let patch = try #require(run.files["bitrise.yml.pipeline.patch"], "\(run.output)")
            #expect(!patch.contains(0), "no NUL byte")
            #expect(
                try Shell.run("git", ["apply", "--check", "bitrise.yml.pipeline.patch"], in: run.folder).status == 0)
            patches.insert(patch)
        }
        #expect(patches.count == 1, "\(patches.count) different patches from 5 runs")
    }
}

/// The release tarball's binary, unpacked once per test process.
enum ReleaseBinary {
    static let tarball = ProcessInfo.processInfo.environment["PIPELINE_TEST_RELEASE"]
    private static let unpacked = Result { () throws -> URL in
        guard let tarball else { throw BareRootError("PIPELINE_TEST_RELEASE is not set") }
        let folder = try Scratch.folder("release")
        let result = try Shell.run("tar", ["-xzf", tarball, "-C", folder.path, "--strip-components=1"])
        guard result.status == 0 else { throw BareRootError("unpacking \(tarball): \(result.stderr)") }
        return folder.appendingPathComponent("bin/pipeline")
    }

    static func shared() throws -> URL { try unpacked.get() }
}
