import Coverage
import Foundation
import PipelineCore
import TestSharding

extension CoverageRequest {
    /// `pipeline coverage merge FILE… -o DIR`: several nodes' profiles (`coverage.profdata`, or raw
    /// ones) merged into one set of reports for `package`, whose tests are built instrumented
    /// first (a no-op when they are).
    public func merge(_ files: [URL], package: URL, skipBuild: Bool) async throws -> CoverageReport {
        let settings = try settings(package: package)
        for file in files where !FileManager.default.isReadableFile(atPath: file.path) {
            throw CoverageError.unreadable(path: file.path, reason: "no such file")
        }
        let product = try await Self.product(package: package, skipBuild: skipBuild, scratch: settings.profiles)
        return try await settings.report(from: files, objects: product.coverageObjects)
    }

    /// The package's test product, built with coverage unless `skipBuild`.
    static func product(package: URL, skipBuild: Bool, scratch: URL) async throws -> TestProduct {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return try await TestProduct.build(
            BuildSettings(
                packagePath: package,
                extraArguments: BuildSettings.naming([], variables: ProcessInfo.processInfo.environment),
                skipBuild: skipBuild, coverage: true), scratch: scratch)
    }
}

extension RunSharing {
    /// `pipeline report --queue RUN --coverage`: the profiles every node of the run kept in its
    /// folder, merged into one set of reports. A node whose profile is not there fails it, naming
    /// the node, unless `allowPartial`.
    public func mergedCoverage(package: URL, request: CoverageRequest, allowPartial: Bool, skipBuild: Bool)
        async throws -> CoverageReport
    {
        let settings = try request.settings(package: package)
        let place = try folder(package: package)
        guard let run = try runID() else {
            throw RequestError("name the shared run: --queue RUN (or --queue alone in CI)")
        }
        let downloads = settings.profiles.appendingPathComponent("nodes")
        try? FileManager.default.removeItem(at: downloads)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        // A queue run's nodes are those that ran its batches; a static split's, all N of them.
        let queue = try place.queue(run: run, node: .whole)
        let expected = (try? await queue.storedPlan()) == nil ? nil : try await queue.nodesThatRan()
        let (files, missing) = try await place.coverageProfiles(run: run, expected: expected, into: downloads)
        let location = "\(place.store.name) (pipeline-runs/\(run)/coverage/)"
        guard !files.isEmpty else { throw CoverageError.nodesMissing(["of every node"], store: location) }
        if !missing.isEmpty, !allowPartial { throw CoverageError.nodesMissing(missing, store: location) }
        let product = try await CoverageRequest.product(
            package: package, skipBuild: skipBuild, scratch: settings.profiles)
        return try await settings.report(from: files, objects: product.coverageObjects, missingNodes: missing)
    }
}
