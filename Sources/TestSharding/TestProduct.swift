import ChildProcesses
import Foundation
import PipelineCore
import TestCore

/// How to build and find a package's test product.
public struct BuildSettings: Sendable {
    public var packagePath: URL
    public var configuration: String
    /// Extra arguments for `swift build`, such as `-Xswiftc -DCI`.
    public var extraArguments: [String]
    public var skipBuild: Bool
    /// Instrumented for coverage (`--enable-code-coverage`), as `swift test --enable-code-coverage` builds.
    public var coverage: Bool

    public init(
        packagePath: URL, configuration: String = "debug", extraArguments: [String] = [], skipBuild: Bool = false,
        coverage: Bool = false
    ) {
        self.packagePath = packagePath
        self.configuration = configuration
        self.extraArguments = extraArguments
        self.skipBuild = skipBuild
        self.coverage = coverage
    }

    /// Whether the extra arguments may put the bin folder elsewhere than `.build/<configuration>`
    /// (compiler flags such as `-Xswiftc …` do not).
    var movesBinFolder: Bool {
        let moving = [
            "--scratch-path", "--build-path", "--triple", "--arch", "--swift-sdk", "--experimental-swift-sdk", "--sdk",
            "--destination", "--build-system", "--cache-path",
        ]
        return extraArguments.contains { argument in moving.contains { argument.hasPrefix($0) } }
    }

    /// The build system that builds: the one the extra arguments name (`--build-system X`), else
    /// the toolchain's default (`Toolchain.defaultBuildSystem`; `native` when it cannot be asked).
    public var buildSystem: String {
        get async { await Self.buildSystem(arguments: extraArguments) }
    }

    /// `PIPELINE_BUILD_SYSTEM`, set in a CI's or a shell's variables: the build system of every
    /// command at once (`native`, `swiftbuild`) where neither an option nor a spec names one.
    public static let buildSystemVariable = "PIPELINE_BUILD_SYSTEM"

    /// `arguments` for `swift build`, with `--build-system` from `variables` when they name none.
    public static func naming(_ arguments: [String], variables: [String: String]) -> [String] {
        guard !arguments.contains(where: { $0.hasPrefix("--build-system") }),
            let system = variables[buildSystemVariable], !system.isEmpty
        else { return arguments }
        return ["--build-system", system] + arguments
    }

    /// The build system `arguments` for `swift build` build with.
    public static func buildSystem(arguments: [String]) async -> String {
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--build-system=") { return String(argument.dropFirst("--build-system=".count)) }
            if argument == "--build-system", arguments.indices.contains(index + 1) { return arguments[index + 1] }
        }
        return await Toolchain.defaultBuildSystem.value ?? "native"
    }

    var buildArguments: [String] {
        ["swift", "build", "--package-path", packagePath.path, "--configuration", configuration]
            + (coverage ? ["--enable-code-coverage"] : []) + extraArguments
    }
}

/// The built executables that run a package's tests, and the commands that list and run them
/// directly, as `swift test` does internally (parallel `swift test` processes would serialise on
/// SwiftPM's lock). SwiftPM's native build system makes one `<Package>PackageTests.xctest` for
/// every test target; Swift Build (`--build-system swiftbuild`, SwiftPM 6.4's default) makes a
/// `<Target>-test-runner` per test target, beside its `<Target>.so` and resource bundle. Each
/// runner lists and runs its own tests the way the `.xctest` product does.
public struct TestProduct: Sendable {
    /// The runners, by name: one `.xctest`, or one `-test-runner` per test target.
    public let runners: [URL]
    public let packagePath: URL
    let variables: [String: String]
    /// Test module → the runner that listed its tests (index into `runners`).
    private(set) var modules: [String: Int] = [:]
    /// Said when the build tool crashed and the tests were built once more.
    public internal(set) var buildNote: String?

    init(runners: [URL], packagePath: URL, variables: [String: String]) {
        self.runners = runners
        self.packagePath = packagePath
        self.variables = variables
    }

    /// The folder the runners are in (SwiftPM's bin folder).
    public var binFolder: URL { runners[0].deletingLastPathComponent() }

    /// What coverage is exported from: each runner; for Swift Build, the library beside it that
    /// holds its target's code (`<Target>.so`); and the package's executables, which tests may run
    /// as child processes (whose profiles name functions the runners may not hold: the native build
    /// links an executable's code into the `.xctest` only when a test target depends on it).
    public var coverageObjects: [URL] {
        let manager = FileManager.default
        let swiftBuild = runners.allSatisfy { $0.lastPathComponent.hasSuffix(Self.runnerSuffix) }
        let libraries = (swiftBuild ? runners : []).map { runner in
            binFolder.appendingPathComponent(String(runner.lastPathComponent.dropLast(Self.runnerSuffix.count)) + ".so")
        }.filter { manager.fileExists(atPath: $0.path) }
        let names = ((try? manager.contentsOfDirectory(atPath: binFolder.path)) ?? []).sorted()
        let executables = names.filter { name in
            var folder: ObjCBool = false
            let path = binFolder.appendingPathComponent(name).path
            return !name.hasSuffix(Self.runnerSuffix) && !name.contains(".")
                && manager.fileExists(atPath: path, isDirectory: &folder) && !folder.boolValue
                && manager.isExecutableFile(atPath: path) && Self.instrumented(path)
        }.map { binFolder.appendingPathComponent($0) }
        return runners + libraries + executables
    }

    /// Whether the binary at `path` carries coverage mappings (`__llvm_covmap`): an executable built
    /// before coverage was asked for, or a plugin's tool, has none, and would fail the export.
    static func instrumented(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        let name = Data("__llvm_covmap".utf8)
        var carried = Data()
        // In chunks, each searched with the end of the one before (a name may straddle two).
        while let chunk = try? file.read(upToCount: 1 << 20), !chunk.isEmpty {
            let searched = carried + chunk
            if searched.range(of: name) != nil { return true }
            carried = searched.suffix(name.count - 1)
        }
        return false
    }

    /// Whether a failed build is the build tool's own crash: killed by a signal, or the Swift
    /// runtime's crash report (`Program crashed:`, `Backtrace took`) in its output.
    static func buildToolCrashed(_ termination: Termination, output: String) -> Bool {
        if case .signalled = termination { return true }
        guard termination != .exited(0) else { return false }
        return output.contains("Program crashed: ") || output.contains("\nBacktrace took ")
    }

    /// Swift Build's test runners end so: `<Target>-test-runner`.
    static let runnerSuffix = "-test-runner"

    /// Builds the tests (unless told to skip) and finds the product in `swift build --show-bin-path`.
    public static func build(_ settings: BuildSettings, scratch: URL) async throws(TestRunError) -> TestProduct {
        // The build (its plugins, its scripts) and the tests run without the store's credentials.
        let variables = CredentialVariables.withheld(from: ProcessInfo.processInfo.environment)
        let package = settings.packagePath.path
        // The SwiftPM plugin builds the debug tests of its package itself (a nested build would wait on its lock).
        let prebuilt =
            variables["PIPELINE_PREBUILT_PACKAGE"] == settings.packagePath.standardizedFileURL.path
            && settings.configuration == "debug" && settings.extraArguments.isEmpty && !settings.coverage
        var crashNote: String?
        if !settings.skipBuild && !prebuilt {
            let log = scratch.appendingPathComponent("build.log")
            var result = try await runTool(
                settings.buildArguments + ["--build-tests"], variables: variables, log: log)
            // The build tool itself crashed (a signal, the Swift runtime's backtrace), not the
            // package: built once more, its first log kept beside the second.
            if Self.buildToolCrashed(result.termination, output: result.output) {
                let crashed = scratch.appendingPathComponent("build-crashed.log")
                try? FileManager.default.removeItem(at: crashed)
                try? FileManager.default.copyItem(at: log, to: crashed)
                crashNote = "swift build crashed (\(result.termination); its log: \(crashed.path)) and built again"
                result = try await runTool(
                    settings.buildArguments + ["--build-tests"], variables: variables, log: log)
            }
            guard result.termination == .exited(0) else {
                throw .buildFailed(package: package, errors: Self.buildErrors(in: result.output), log: log.path)
            }
        }
        var childEnvironment = variables
        childEnvironment["NO_COLOR"] = "1"
        // An instrumented product (built for coverage now or before) writes a profile wherever it
        // runs: unless the user sets where, the listings' and a plain run's go to the scratch folder
        // (a coverage run gives its test processes their own place).
        if variables["LLVM_PROFILE_FILE"] == nil {
            childEnvironment["LLVM_PROFILE_FILE"] = scratch.appendingPathComponent("unused-%p.profraw").path
        }
        // SwiftPM keeps `.build/<configuration>` pointing at the bin folder; asking `swift build
        // --show-bin-path` costs ≈0.3 s, so it is asked only when build arguments may move the folder.
        // Swift Build (the toolchain's default from SwiftPM 6.4) keeps no such link: where it has
        // built too (`.build/out`), a native build's products there may be stale, so the toolchain
        // is asked which one builds; a package only the native build has built is not.
        let build = settings.packagePath.appendingPathComponent(".build")
        if !settings.movesBinFolder, let runners = runners(in: build.appendingPathComponent(settings.configuration)) {
            let swiftBuildToo = FileManager.default.fileExists(atPath: build.appendingPathComponent("out").path)
            let native = swiftBuildToo ? await settings.buildSystem == "native" : true
            if native {
                var product = TestProduct(
                    runners: runners, packagePath: settings.packagePath, variables: childEnvironment)
                product.buildNote = crashNote
                return product
            }
        }
        let log = scratch.appendingPathComponent("bin-path.log")
        let result = try await runTool(
            settings.buildArguments + ["--show-bin-path"], variables: variables, log: log)
        guard result.termination == .exited(0), let binPath = result.output.split(separator: "\n").last.map(String.init)
        else {
            throw .listingFailed(command: "swift build --show-bin-path", output: result.output)
        }
        guard let runners = runners(in: URL(fileURLWithPath: binPath)) else { throw .noTestProduct(binPath: binPath) }
        var product = TestProduct(runners: runners, packagePath: settings.packagePath, variables: childEnvironment)
        product.buildNote = crashNote
        return product
    }

    /// The compiler's error lines, each once, without the source excerpts drawn under them; the
    /// log's last lines when it has none.
    static func buildErrors(in output: String) -> [String] {
        var seen: Set<Substring> = []
        let lines = output.split(separator: "\n")
        let errors = lines.filter { line in
            (line.hasPrefix("error:") || line.contains(": error:")) && !line.hasPrefix(" ")
                && seen.insert(line).inserted
        }
        return (errors.isEmpty ? Array(lines.suffix(10)) : errors).map(String.init)
    }

    /// The test runners in a bin folder: the `*PackageTests.xctest`, else every `*-test-runner`
    /// executable; nil when there is none.
    static func runners(in bin: URL) -> [URL]? {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: bin.path)) ?? []).sorted()
        if let xctest = names.first(where: { $0.hasSuffix("PackageTests.xctest") }) {
            return [bin.appendingPathComponent(xctest)]
        }
        let runners = names.filter { $0.hasSuffix(runnerSuffix) }.map { bin.appendingPathComponent($0) }.filter {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
        return runners.isEmpty ? nil : runners
    }

    /// The same product, its tests run with `extra` set over its variables.
    func adding(variables extra: [String: String]) -> TestProduct {
        var product = TestProduct(
            runners: runners, packagePath: packagePath, variables: variables.merging(extra) { $1 })
        product.modules = modules
        return product
    }

    /// The runner of a test: the one that listed its module (the only one, with the native build).
    func runner(for test: TestID) -> URL {
        runners[modules[test.module] ?? 0]
    }

    /// Every test of every runner, from the runners' own listings (≈10 ms each, run at once), and
    /// which runner runs each module's tests. A listing that takes longer than `timeout` (the limit
    /// for one test) is stuck and stopped.
    public mutating func discover(scratch: URL, timeout: Duration = .seconds(600)) async throws(TestRunError)
        -> [TestID]
    {
        #if os(macOS)
            // Xcode's xctest has no listing flag; SwiftPM's listing covers both libraries.
            return try await list(
                ["swift", "test", "list", "--skip-build", "--package-path", packagePath.path],
                framework: nil, log: scratch.appendingPathComponent("list.log"), timeout: timeout)
        #else
            var found: [TestID] = []
            for (index, runner) in runners.enumerated() {
                let name = runners.count == 1 ? "" : "-\(runner.lastPathComponent)"
                async let xctest = list(
                    [runner.path, "--testing-library", "xctest", "--list-tests"], framework: .xctest,
                    log: scratch.appendingPathComponent("list-xctest\(name).log"), timeout: timeout)
                async let swiftTesting = list(
                    [runner.path, "--testing-library", "swift-testing", "--list-tests"],
                    framework: .swiftTesting, log: scratch.appendingPathComponent("list-swift-testing\(name).log"),
                    timeout: timeout)
                let tests: [TestID]
                do {
                    tests = try await xctest + swiftTesting
                } catch {
                    // `async let` forgets the typed error; the listings throw nothing else.
                    throw (error as? TestRunError) ?? .listingFailed(command: runner.path, output: "\(error)")
                }
                for test in tests { modules[test.module] = index }
                found += tests
            }
            return found
        #endif
    }

    private func list(_ arguments: [String], framework: TestFramework?, log: URL, timeout: Duration)
        async throws(TestRunError) -> [TestID]
    {
        // Listing runs no test: one that takes longer than a test may is stuck (code run at load time).
        let result = try await runTool(arguments, variables: variables, log: log, timeout: timeout)
        if result.timedOut {
            throw .listingFailed(
                command: arguments.joined(separator: " "),
                output: "it listed nothing within \(timeout) (the limit for one test) and was stopped")
        }
        // Swift Testing exits 69 (EX_UNAVAILABLE) when the product has none of its tests.
        if framework == .swiftTesting && result.termination == .exited(69) { return [] }
        guard result.termination == .exited(0) else {
            throw .listingFailed(command: arguments.joined(separator: " "), output: result.output)
        }
        return TestListing.parse(result.output, framework: framework)
    }

    /// The command running the given tests of one framework, all of one runner, in one process.
    func command(for tests: [TestID], framework: TestFramework, eventStream: URL) -> [String] {
        let path = tests.first.map(runner(for:)) ?? runners[0]
        switch framework {
        case .xctest:
            let selectors = tests.map(\.name).joined(separator: ",")
            #if os(macOS)
                return ["/usr/bin/xcrun", "xctest", "-XCTest", selectors, path.path]
            #else
                return [path.path, "--testing-library", "xctest", selectors]
            #endif
        case .swiftTesting:
            #if os(macOS)
                let launcher = ["/usr/bin/xcrun", "swiftpm-testing-helper", "--test-bundle-path", path.path]
            #else
                let launcher = [path.path]
            #endif
            return launcher + [
                "--testing-library", "swift-testing", "--no-parallel",
                "--event-stream-output-path", eventStream.path, "--event-stream-version", "0",
            ]
                + tests.flatMap { ["--filter", SwiftTestingFilter.pattern(for: $0)] }
        }
    }
}

/// Parses the listings of `<product> --list-tests`.
enum TestListing {
    /// Parses one listing; with no framework given (SwiftPM's listing of both), a name ending in
    /// `)` is a Swift Testing function and any other an XCTest method.
    static func parse(_ output: String, framework: TestFramework?) -> [TestID] {
        output.split(whereSeparator: \.isNewline).compactMap { line in
            let name = line.trimmingCharacters(in: .whitespaces)
            // XCTest opens with "Listing N tests in X.xctest:"; every test name holds a dot and no space
            // outside its parentheses.
            guard !name.isEmpty, !name.hasPrefix("Listing "), name.contains(".") else { return nil }
            return TestID(name, framework: framework ?? (name.hasSuffix(")") ? .swiftTesting : .xctest))
        }
    }
}

/// Swift Testing's `--filter` is a regular expression matched against the test's ID, which
/// continues with `/File.swift:line:column`; the name is escaped and anchored at both ends.
enum SwiftTestingFilter {
    static func pattern(for test: TestID) -> String {
        "^" + escaped(test.name) + "(/|$)"
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
