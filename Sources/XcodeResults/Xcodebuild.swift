import ChildProcesses
import Foundation
import PipelineCore
import TestCore

/// The xcodebuild invocations `refs record --xcode` makes in a checkout: build the tests once
/// (`build-for-testing`, unless an `.xctestrun` is given), list them (`-enumerate-tests`), and run
/// the chosen ones (`test-without-building -only-testing:`) with variables for the test process,
/// reading the run back from its result bundle through `xcrun xcresulttool`.
public struct Xcodebuild: Sendable {
    /// What `xcodebuild -version` prints (`Xcode 16.2` and its build version), read once per
    /// process; nil without Xcode.
    public static let versionDescription = Task<String?, Never> {
        await Toolchain.output(of: ["xcodebuild", "-version"])?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What to test.
    public var products: XcodeProducts
    /// xcodebuild's `-destination`: `platform=iOS Simulator,name=iPhone 16,OS=18.2`.
    public var destination: String
    /// Where xcodebuild runs (the checkout) and the work folder it writes below.
    public var folder: URL
    public var work: URL
    public var write: @Sendable (String) -> Void

    public init(
        products: XcodeProducts, destination: String, folder: URL, work: URL,
        write: @escaping @Sendable (String) -> Void
    ) {
        (self.products, self.destination, self.folder, self.work, self.write) =
            (products, destination, folder, work, write)
    }

    /// The `.xctestrun` to run: the one given, or the one `build-for-testing` writes.
    public func xctestrun() async throws(XcodeResultsError) -> URL {
        switch products {
        case .xctestrun(let url): return url
        case .scheme(let scheme, let container):
            let derived = work.appendingPathComponent("DerivedData")
            write("Building the tests of scheme \(scheme) for \(destination) (xcodebuild build-for-testing)…\n")
            try await xcodebuild(
                ["build-for-testing"] + container + [
                    "-scheme", scheme, "-destination", destination, "-derivedDataPath", derived.path,
                ], log: "build")
            let products = derived.appendingPathComponent("Build/Products")
            let runs = ((try? FileManager.default.contentsOfDirectory(atPath: products.path)) ?? [])
                .filter { $0.hasSuffix(".xctestrun") && !$0.contains("-node-") }.sorted()
            guard let first = runs.first else {
                throw .notReadable(file: products.path, reason: "build-for-testing wrote no .xctestrun")
            }
            return products.appendingPathComponent(first)
        }
    }

    /// The tests the `.xctestrun` holds, as `-enumerate-tests` lists them.
    public func tests(in xctestrun: URL) async throws(XcodeResultsError) -> [XcodeTestName] {
        let listing = work.appendingPathComponent("tests.json")
        try? FileManager.default.removeItem(at: listing)
        try await xcodebuild(
            [
                "test-without-building", "-xctestrun", xctestrun.path, "-destination", destination,
                "-enumerate-tests", "-test-enumeration-style", "flat", "-test-enumeration-format", "json",
                "-test-enumeration-output-path", listing.path,
            ], log: "enumerate")
        return try await XcodeInput.tests(at: listing.path)
    }

    /// Runs `tests` of the `.xctestrun` with `variables` for the test process (xcodebuild passes
    /// `TEST_RUNNER_X` as `X`), and reads the run back. A run whose tests failed (exit 65) is read
    /// as any other; another exit is xcodebuild's own failure.
    public func run(_ tests: [XcodeTestName], of xctestrun: URL, variables: [String: String])
        async throws(XcodeResultsError) -> XcodeRun
    {
        let bundle = work.appendingPathComponent("record.xcresult")
        try? FileManager.default.removeItem(at: bundle)
        let only = tests.map { "-only-testing:" + ($0.identifier ?? $0.key) }
        write("Running \(tests.count) test\(tests.count == 1 ? "" : "s") with xcodebuild test-without-building…\n")
        try await xcodebuild(
            ["test-without-building", "-xctestrun", xctestrun.path, "-destination", destination]
                + ["-resultBundlePath", bundle.path] + only,
            log: "test", variables: variables, accepting: [0, 65])
        return try await XcodeInput.run(.xcresult, at: bundle.path)
    }

    /// Runs xcodebuild in `folder`, its output in `<work>/xcodebuild-<log>.log`; an exit status
    /// outside `accepting` throws, naming the log and its last lines.
    private func xcodebuild(
        _ arguments: [String], log name: String, variables: [String: String] = [:], accepting: Set<Int32> = [0]
    ) async throws(XcodeResultsError) {
        let log = work.appendingPathComponent("xcodebuild-\(name).log")
        let result: ProcessResult
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            result = try await Self.tool(["xcodebuild"] + arguments, in: folder, log: log, variables: variables)
        } catch {
            throw .notReadable(file: "xcodebuild", reason: "cannot run: \(error)")
        }
        guard case .exited(let status) = result.termination, accepting.contains(status) else {
            let tail = result.output.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw .failed(
                command: "xcodebuild \(arguments.first ?? "")", log: log.path,
                reason: "ended with \(result.termination): \(tail)")
        }
    }

    /// Runs one of Xcode's tools from the PATH (`xcodebuild`, `xcrun …`) in `folder`, with the
    /// process's variables and `variables` over them.
    static func tool(
        _ arguments: [String], in folder: URL? = nil, log: URL? = nil, variables: [String: String] = [:]
    ) async throws -> ProcessResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-xcode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: scratch.path + ".err") }
        let command = folder.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0.path] + arguments } ?? arguments
        let output = log ?? URL(fileURLWithPath: scratch.path + ".out")
        defer { if log == nil { try? FileManager.default.removeItem(at: output) } }
        return try await ChildProcess.run(
            command,
            variables: CredentialVariables.withheld(from: ProcessInfo.processInfo.environment).merging(variables) {
                $1
            },
            log: output,
            errors: log == nil ? URL(fileURLWithPath: scratch.path + ".err") : nil)
    }
}

/// Where a CI node runs its new snapshot tests once more to render them (`pipeline import
/// --render-new`): the `.xctestrun` it ran and xcodebuild's destination.
public struct XcodeRender: Sendable, Equatable {
    public var xctestrun: URL
    public var destination: String

    public init(xctestrun: URL, destination: String) {
        (self.xctestrun, self.destination) = (xctestrun, destination)
    }
}
