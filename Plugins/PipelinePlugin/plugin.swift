import Foundation
import PackagePlugin

/// `swift package pipeline ARGUMENTS…`: runs the `pipeline` tool in the package's folder, so a
/// package that depends on this one can run its pipelines without installing anything:
/// `swift package --allow-writing-to-package-directory --allow-network-connections all pipeline run post-merge`.
@main
struct PipelinePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var environment = ProcessInfo.processInfo.environment
        // SwiftPM holds the package's build folder while a plugin runs, so a `swift build` started
        // by pipeline would wait for ever: the tests are built here first, and pipeline is told so.
        if ["test", "run"].contains(arguments.first), !arguments.contains("--skip-build"), !arguments.contains("--dry-run") {
            Diagnostics.remark("Building the tests of \(context.package.displayName)…")
            let build = try packageManager.build(.all(includingTests: true), parameters: .init(configuration: .debug))
            guard build.succeeded else {
                print(build.logText)
                throw PipelineFailed(message: "the tests of \(context.package.displayName) did not build")
            }
            environment["PIPELINE_PREBUILT_PACKAGE"] = context.package.directoryURL.standardizedFileURL.path
        }
        let process = Process()
        process.executableURL = try context.tool(named: "pipeline").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PipelineFailed(message: "pipeline \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
    }

    struct PipelineFailed: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
