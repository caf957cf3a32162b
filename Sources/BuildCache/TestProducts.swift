import CISystem
import Foundation
import ObjectStorage

/// One build for N machines: the job that builds keeps the test products (the test bundle, its
/// resource bundles and libraries) in the store under the CI run; the nodes fetch them and run
/// them without building, when they were built by this toolchain at this path from this commit.
///
/// Products are kept in the job's trust scope and fetched from it only: a pull request's run's
/// nodes run what its build job built, never what another scope's job kept under the same run id.
///
/// In the store, below the scope's folder (`TrustScope.folder`): `products/<run>/record.json`
/// (written last) and `products/<run>/<save>/part-*`.
public struct TestProducts: Sendable {
    public let key: BuildCacheKey
    public let package: URL
    let trees: KeptTrees
    /// The store and scope, for the log: `s3://team/build-cache, pr/12`.
    let place: String
    /// Other runs' products are removed once this old.
    static let runAge: Double = 24 * 3600

    public init(
        folder: StoreLocation, key: BuildCacheKey, package: URL, variables: [String: String], scope: TrustScope
    ) throws(BuildCacheError) {
        self.key = key
        self.package = package
        place = "\(folder.name), \(scope.folder)"
        do {
            trees = KeptTrees(folder: try folder.below(scope.folder), variables: variables)
        } catch {
            throw .store(error)
        }
    }

    /// What a fetch did.
    public enum Fetch: Sendable, Equatable {
        case fetched(String)
        /// Nothing fetched, and why (the node builds).
        case unavailable(String)
    }

    /// Keeps the test runners (in the package's bin folder) and what runs with them for the CI run `run`.
    public func keep(runners: [URL], configuration: String, run: String, commit: String)
        async throws(BuildCacheError) -> String
    {
        let members = try members(runners: runners, configuration: configuration)
        let save = KeptTrees.newSave()
        let tree = try await trees.put(
            members, of: package, excluding: [], parts: "products/\(run)", save: save,
            record: "products/\(run)/record.json", commit: commit, branch: run, key: key)
        try await removeOldRuns(besides: run)
        return "kept the test products of \(commit.prefix(12)) for CI run \(run) in \(place) "
            + "(\(megabytes(tree.bytes)))"
    }

    /// Fetches the run's products into the package's bin folder when they match this checkout.
    /// Never throws: what went wrong is why the node builds.
    public func fetch(run: String, commit: String) async -> Fetch {
        let started = ContinuousClock.now
        do {
            guard let tree = try await trees.record("products/\(run)/record.json") else {
                return .unavailable("no test products are kept for CI run \(run) in \(place)")
            }
            guard tree.commit == commit else {
                return .unavailable(
                    "CI run \(run)'s test products were built from \(tree.commit.prefix(12)), this checkout is "
                        + "\(commit.prefix(12))")
            }
            let differences = key.differences(from: tree.key)
            guard differences.isEmpty else {
                return .unavailable(
                    "CI run \(run)'s test products were built otherwise: " + differences.joined(separator: "; "))
            }
            try await install(tree, run: run)
            return .fetched(
                "fetched CI run \(run)'s test products (\(megabytes(tree.bytes)), "
                    + "\(String(format: "%.1f", (ContinuousClock.now - started).seconds)) s): not building")
        } catch {
            return .unavailable("CI run \(run)'s test products could not be fetched: \(error)")
        }
    }

    /// The runners (the native build's `.xctest`, Swift Build's `-test-runner`s), the bin
    /// folder's resource bundles and libraries (Swift Build's `PackageFrameworks` too), and
    /// `.build/<configuration>` when it is the link to the bin folder; relative to the package.
    func members(runners: [URL], configuration: String) throws(BuildCacheError) -> [String] {
        let root = package.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        guard let first = runners.first else { throw .unusable("there is no test product to keep") }
        let bin = first.deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath()
        guard bin.path.hasPrefix(root) else {
            throw .unusable("the test product \(first.path) is not inside the package \(package.path)")
        }
        let relative = String(bin.path.dropFirst(root.count))
        let runnerNames = Set(runners.map(\.lastPathComponent))
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: bin.path)) ?? []).filter { name in
            runnerNames.contains(name) || name == "PackageFrameworks"
                || [".resources", ".bundle", ".so", ".dylib"].contains { name.hasSuffix($0) }
        }
        var members = names.sorted().map { relative + "/" + $0 }
        let link = package.appendingPathComponent(".build/\(configuration)")
        if link.resolvingSymlinksInPath().path == bin.path, link.path != bin.path {
            members.append(".build/\(configuration)")
        }
        return members
    }

    /// Unpacks the products beside the package, then moves each into place.
    private func install(_ tree: KeptTree, run: String) async throws(BuildCacheError) {
        let staging = package.appendingPathComponent(".build-restoring-\(UUID().uuidString.prefix(8))")
        try KeptTrees.create(staging)
        defer { try? FileManager.default.removeItem(at: staging) }
        try await trees.fetch(tree, parts: "products/\(run)", into: staging)
        let manager = FileManager.default
        for member in tree.members {
            // A record's paths are not trusted: each stays below the package's build folder.
            guard member.hasPrefix(".build/"), (try? ObjectKey(member)) != nil else {
                throw .unusable("CI run \(run)'s test products name '\(member)', outside the build folder")
            }
            let target = package.appendingPathComponent(member)
            do {
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                if (try? manager.destinationOfSymbolicLink(atPath: target.path)) != nil
                    || manager.fileExists(atPath: target.path)
                {
                    try manager.removeItem(at: target)
                }
                try manager.moveItem(at: staging.appendingPathComponent(member), to: target)
            } catch {
                throw .io(path: target.path, reason: "could not be put in place: \(error)")
            }
        }
    }

    /// Removes other runs' products older than `runAge`.
    private func removeOldRuns(besides run: String) async throws(BuildCacheError) {
        let folder = trees.folder
        let prefix = try trees.key("products")
        let listed: [ObjectInfo]
        do { listed = try await folder.store.list(under: prefix) } catch { throw .store(error) }
        var newest: [String: Double] = [:]
        for info in listed {
            let relative = folder.prefix.flatMap { info.key.relative(to: $0) }?.rawValue ?? info.key.rawValue
            let parts = relative.split(separator: "/")
            guard parts.count == 4, parts[1] != Substring(run), let saved = KeptTrees.savedAt(String(parts[2]))
            else { continue }
            newest[String(parts[1]), default: 0] = max(newest[String(parts[1]), default: 0], saved)
        }
        let now = Date().timeIntervalSince1970
        for (other, saved) in newest where now - saved > Self.runAge {
            try await trees.delete(under: "products/\(other)")
        }
    }
}
