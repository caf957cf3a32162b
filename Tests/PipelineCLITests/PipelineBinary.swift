import Foundation

/// Runs the built `pipeline` executable as a user would, capturing its output and exit status.
enum PipelineBinary {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The folder holding the built products (the test bundle's folder).
    static let productsDirectory: URL = {
        #if os(macOS)
            if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
                return bundle.bundleURL.deletingLastPathComponent()
            }
        #endif
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }()

    static let url = productsDirectory.appendingPathComponent("pipeline")

    /// Runs `pipeline ARGUMENTS` in `directory` with no input; output goes through files, so no pipe can fill up.
    /// `binary` is another build of pipeline (the release's, `ReleaseOutputTests`).
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], binary: URL = url
    ) throws -> Result {
        try Running(arguments, in: directory, environment: environment, binary: binary).wait()
    }

    /// Starts `pipeline ARGUMENTS`; `wait()` gives its result.
    static func start(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> Running {
        try Running(arguments, in: directory, environment: environment)
    }

    /// A `pipeline` process under way, its output going to files.
    final class Running {
        let process = Process()
        private let scratch: URL

        init(_ arguments: [String], in directory: URL, environment: [String: String], binary: URL = url) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = binary
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            try process.run()
        }

        private var out: URL { scratch.appendingPathComponent("out") }
        private var err: URL { scratch.appendingPathComponent("err") }

        /// What the process wrote to standard error so far.
        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

        /// Waits up to `seconds` for standard error to contain `text`; whether it did.
        func waitFor(_ text: String, seconds: Double = 60) -> Bool {
            poll(seconds: seconds) { stderr.contains(text) || !process.isRunning } && stderr.contains(text)
        }

        func wait() throws -> Result {
            process.waitUntilExit()
            return Result(
                status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                stderr: try String(contentsOf: err, encoding: .utf8))
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: scratch)
        }
    }
}

/// A throwaway git repository with a `pipelines/` folder, committed, removed when the test ends.
struct Workspace: ~Copyable {
    let root: URL

    init(pipelines: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("pipelines"), withIntermediateDirectories: true)
        for (name, text) in pipelines {
            try write(text, to: "pipelines/\(name)")
        }
        try git("init", "-q", "-b", "develop")
        try git("add", "-A")
        try git("commit", "-q", "--allow-empty", "-m", "pipelines")
    }

    /// Runs git in the workspace with a fixed identity.
    func git(_ arguments: String...) throws {
        _ = try Git.run(arguments, in: root)
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: root.appendingPathComponent(path))
    }

    func run(_ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(arguments, in: root)
    }

    /// Every path below the root, to prove a command wrote nothing.
    func listing() -> [String] {
        (FileManager.default.subpaths(atPath: root.path) ?? []).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }
}

enum Specs {
    static let postMerge = """
        name: post-merge
        description: After a merge into develop, test in shards and promote the changed tests' references.
        changes:
          compare: merge
          tests: "*Tests"
        references:
          local: Tests/__Snapshots__
          feature: .pipeline/storage/feature
          develop: .pipeline/storage/develop
        stages:
          - test:
              shards: 3
              timeout: 120s
              retries: 1
          - promote:
              from: feature
              to: develop

        """

    static let nightly = """
        name: nightly
        description: The full suite every night.
        stages:
          - test:
              shards: auto
              timeout: 10m

        """
}

/// A throwaway git repository the end-to-end tests write files into and commit.
protocol ScratchRepository: AnyObject {
    var root: URL { get }
}

extension ScratchRepository {
    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func git(_ arguments: String...) throws {
        try Git.run(arguments, in: root)
    }

    func commitAll(_ message: String) throws {
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
    }

    /// Copies the example package, without its build folder, into the root.
    func copyExamplePackage() throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for item in try FileManager.default.contentsOfDirectory(atPath: ExamplePackage.root.path) where item != ".build"
        {
            try FileManager.default.copyItem(
                at: ExamplePackage.root.appendingPathComponent(item), to: root.appendingPathComponent(item))
        }
    }
}

/// The example package at one fixed path for a whole test run, so SwiftPM's build of it (and of
/// swift-snapshot-testing) is made once and reused: at a new path SwiftPM builds everything again.
/// Each user gets the package's sources and no history; `.build` is kept without pipeline's
/// outputs. Only one serialized suite may use it (`SnapshotLoopTests`), since it is one folder. The
/// path names this checkout of the project (an FNV-1a hash of its path), so two clones' test runs
/// on one machine do not reset each other's folder.
enum ExampleCheckout {
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "pipeline-tests-example-\(ProcessInfo.processInfo.environment["PIPELINE_BUILD_SYSTEM"] ?? "native")-"
            + String(
                ExamplePackage.root.path.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) {
                    ($0 ^ UInt64($1)) &* 0x100_0000_01b3
                }, radix: 16))
    /// The first use in a run starts from nothing: a build left by an earlier run is not this one's.
    private static let cleared: Void = { try? FileManager.default.removeItem(at: root) }()

    /// Empties the folder but for `.build` (pipeline's outputs removed from it too), then copies
    /// the example package's sources in.
    static func reset() throws {
        _ = cleared
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for item in try FileManager.default.contentsOfDirectory(atPath: root.path) where item != ".build" {
            try FileManager.default.removeItem(at: root.appendingPathComponent(item))
        }
        let outputs = root.appendingPathComponent(".build/pipeline")
        if FileManager.default.fileExists(atPath: outputs.path) { try FileManager.default.removeItem(at: outputs) }
        for item in try FileManager.default.contentsOfDirectory(atPath: ExamplePackage.root.path) where item != ".build"
        {
            try FileManager.default.copyItem(
                at: ExamplePackage.root.appendingPathComponent(item), to: root.appendingPathComponent(item))
        }
    }
}

enum Git {
    /// Runs git in `folder` with a fixed identity; its standard output, trimmed. Fails when git does.
    @discardableResult
    static func run(_ arguments: [String], in folder: URL) throws -> String {
        let process = Process()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "git \(arguments) failed"])
        }
        return try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Checks `condition` every 50 ms until it holds or `seconds` pass; whether it held.
func poll(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return condition() }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return true
}
