import ChildProcesses
import Foundation
import TestSupport
import Testing

@testable import TestCore
@testable import TestSharding

/// Which build system builds, found from the arguments, `PIPELINE_BUILD_SYSTEM` and the
/// toolchain; and which runners a bin folder holds under each.
@Suite("build systems: found, never assumed")
struct BuildSystemTests {
    @Test func namedByTheArgumentsElseTheToolchain() async {
        #expect(await BuildSettings.buildSystem(arguments: ["--build-system", "swiftbuild"]) == "swiftbuild")
        #expect(await BuildSettings.buildSystem(arguments: ["-Xswiftc", "-DCI", "--build-system=native"]) == "native")
        // Swift 6.3's `swift build --help` says `(default: native)`; 6.4's says swiftbuild.
        let toolchain = await BuildSettings.buildSystem(arguments: [])
        #expect(["native", "swiftbuild"].contains(toolchain), "\(toolchain)")
    }

    @Test func theEnvironmentNamesItWhereTheArgumentsDoNot() {
        let environment = ["PIPELINE_BUILD_SYSTEM": "swiftbuild"]
        #expect(
            BuildSettings.naming(["-Xswiftc", "-DCI"], variables: environment) == [
                "--build-system", "swiftbuild", "-Xswiftc", "-DCI",
            ])
        #expect(
            BuildSettings.naming(["--build-system", "native"], variables: environment) == [
                "--build-system", "native",
            ])
        #expect(BuildSettings.naming([], variables: [:]) == [])
    }

    @Test func runnersOfEitherBuildSystem() throws {
        let bin = try Scratch.folder("runners")
        defer { try? FileManager.default.removeItem(at: bin) }
        #expect(TestProduct.runners(in: bin) == nil)
        for name in ["Beta-Tests-test-runner", "AlphaTests-test-runner"] {
            try Scratch.write("#!/bin/sh\n", to: bin.appendingPathComponent(name))
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent(name).path)
        }
        try Scratch.write("", to: bin.appendingPathComponent("AlphaTests.so"))
        try Scratch.write("not executable", to: bin.appendingPathComponent("Stray-test-runner"))
        let runners = try #require(TestProduct.runners(in: bin))
        #expect(runners.map(\.lastPathComponent) == ["AlphaTests-test-runner", "Beta-Tests-test-runner"])
        let product = TestProduct(runners: runners, packagePath: bin, variables: [:])
        #expect(
            product.coverageObjects.map(\.lastPathComponent) == [
                "AlphaTests-test-runner", "Beta-Tests-test-runner", "AlphaTests.so",
            ])
        // The package's instrumented executables, which tests may run, count too; one built without
        // coverage (no coverage mapping) would fail the export, and does not.
        try Scratch.write("#!/bin/sh\n# __llvm_covmap\n", to: bin.appendingPathComponent("tool"))
        try Scratch.write("#!/bin/sh\n", to: bin.appendingPathComponent("plain"))
        for name in ["tool", "plain"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent(name).path)
        }
        #expect(product.coverageObjects.last?.lastPathComponent == "tool")
        #expect(!product.coverageObjects.contains { $0.lastPathComponent == "plain" })
        // The native build's `.xctest` holds an executable's code only when a test target depends on it.
        let native = TestProduct(
            runners: [bin.appendingPathComponent("AppPackageTests.xctest")], packagePath: bin, variables: [:])
        #expect(native.coverageObjects.map(\.lastPathComponent) == ["AppPackageTests.xctest", "tool"])
        // The native build's one product wins where both are.
        try FileManager.default.createDirectory(
            at: bin.appendingPathComponent("AppPackageTests.xctest"), withIntermediateDirectories: true)
        #expect(TestProduct.runners(in: bin)?.map(\.lastPathComponent) == ["AppPackageTests.xctest"])
    }

    @Test("a build tool's own crash is told from a package that does not compile: only the crash is built again")
    func buildToolCrash() {
        #expect(TestProduct.buildToolCrashed(.signalled(11), output: ""))
        let report =
            "*** Program crashed: Bad pointer dereference at 0x0 ***\nThread 3 crashed:\n…\nBacktrace took 20.60s\n"
        #expect(TestProduct.buildToolCrashed(.exited(1), output: report))
        #expect(TestProduct.buildToolCrashed(.exited(1), output: "…\nBacktrace took 20.60s\n"))
        let compileError = "Sources/App/App.swift:3:5: error: cannot find 'x' in scope\nerror: fatalError\n"
        #expect(!TestProduct.buildToolCrashed(.exited(1), output: compileError))
        #expect(!TestProduct.buildToolCrashed(.exited(0), output: report), "a build that succeeded is not rebuilt")
    }
}
