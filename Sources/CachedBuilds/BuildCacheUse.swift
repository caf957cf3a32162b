import BuildCache
import CISystem
import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec
import TestRun
import TestSharding

/// The build cache around a run's build (`--build-cache`, a test stage's `build-cache:`) in a
/// folder or an S3 prefix: before the build, a CI run's test products when a node may use them,
/// else the nearest ancestor's build tree; after it, the tree kept for this commit and, by the job
/// that builds for the nodes, the test products. Nothing here fails a test run: what the cache
/// could not do is said, and the build goes on without it. Only `--build-only`, whose job is to
/// keep the build, fails.
public struct BuildCacheUse: BuildPreparer {
    public let address: StoreAddress

    public init(_ address: StoreAddress) {
        self.address = address
    }

    public func prepare(for flow: TestFlow, coverage: Bool) async throws -> PreparedBuild {
        let cached = try await cachedBuild(flow.request, coverage: coverage)
        let request = flow.request
        return PreparedBuild(settings: cached.settings) { runners in
            try await cached.keep(runners: runners, request: request)
        }
    }
}

/// A build the cache readied: its settings, and where what it builds is kept.
struct CachedBuild: Sendable {
    let cache: BuildCache?
    let products: TestProducts?
    /// The build: the request's, with the cache's file hashing added to its arguments, or no build
    /// when the run's test products were fetched.
    let settings: BuildSettings
    let commit: String?
    /// The commit this build is kept under: HEAD, or on a pull request's synthetic merge commit the
    /// branch head, which the branch's next commit descends from (the merge commit is no one's
    /// ancestor).
    let savedUnder: String?
    let run: String?
    /// The cache's folder when it did not exist before this run: its first save creates it, and says so.
    var newFolder: String? = nil

    var skipBuild: Bool { settings.skipBuild }

    /// A run without the cache.
    static func none(_ request: TestRequest) -> CachedBuild {
        CachedBuild(cache: nil, products: nil, settings: request.build, commit: nil, savedUnder: nil, run: nil)
    }

    /// Keeps what this run built: the tree as its commit's entry, and the test products when this
    /// job builds for the nodes (`--build-only`, or node 1). The lines to log.
    func keep(runners: [URL], request: TestRequest) async throws(BuildCacheError) -> [String] {
        guard let commit, !skipBuild else { return [] }
        var lines: [String] = []
        let buildsForNodes = request.mode.isBuildOnly || request.limits.node.index == 1
        if let products, let run, buildsForNodes {
            do {
                lines.append(
                    try await products.keep(
                        runners: runners, configuration: request.configuration.rawValue, run: run, commit: commit))
            } catch {
                if request.mode.isBuildOnly { throw error }
                lines.append("could not keep the test products for the other nodes: \(error)")
            }
        }
        if let cache {
            do {
                lines.append(try await cache.save(commit: savedUnder ?? commit))
                if let newFolder { lines.append("created \(newFolder) for it (the build-cache folder did not exist)") }
            } catch {
                if request.mode.isBuildOnly { throw error }
                lines.append("could not keep this build in the cache: \(error)")
            }
        }
        return lines.map { "Build cache: \($0)\n" }
    }
}

extension BuildCacheUse {
    /// Opens the cache and readies the build: the CI run's products fetched, or an ancestor's tree
    /// restored; said on the request's log either way.
    func cachedBuild(_ request: TestRequest, coverage: Bool) async throws -> CachedBuild {
        guard !request.build.skipBuild else { return .none(request) }
        let write = request.write
        let variables = request.shared.variables
        var settings = request.build
        settings.extraArguments += BuildCache.hashingFlags
        let ci = CIContext(variables)
        let commits: [String]
        let savedUnder: String
        do {
            let history = try CommitHistory(repositoryPath: request.package.path)
            commits = try history.ancestors(of: "HEAD", limit: BuildCache.ancestorLimit)
            savedUnder =
                ci.branchHead(of: commits[0], parents: (try? history.parents(of: commits[0])) ?? [])?.commit
                ?? commits[0]
        } catch {
            write("Build cache: not used: it keeps builds by commit, and \(request.package.path) has none (\(error))\n")
            return .none(request)
        }
        let folder = try request.addressedStores().open(address)
        // A folder that does not exist yet: said when the first save creates it, not made silently.
        let newFolder = (folder.store as? FolderStore).map(\.root.path).flatMap { root in
            FileManager.default.fileExists(atPath: root) ? nil : root
        }
        let scratch = SuiteRun.workFolder(of: request.package)
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let key = try await BuildCacheKey.current(
            package: request.package, configuration: request.configuration.rawValue,
            flags: settings.extraArguments + (coverage ? ["--enable-code-coverage"] : []),
            buildSystem: await settings.buildSystem, variables: variables, scratch: scratch
        )
        let scope = ci.trustScope
        let cache = try BuildCache(
            folder: folder, key: key, package: request.package, variables: variables, scope: scope)
        let products = try TestProducts(
            folder: folder, key: key, package: request.package, variables: variables, scope: scope)
        cache.removeLeftovers()
        let run = ci.runID
        write("Build cache: \(scope)\n")
        // A node of a CI run first looks for the products the run's build job kept.
        if let run, request.limits.node.count > 1 || request.shared.queue != nil, !request.mode.isBuildOnly {
            switch await products.fetch(run: run, commit: commits[0]) {
            case .fetched(let line):
                write("Build cache: \(line)\n")
                var fetched = request.build
                fetched.skipBuild = true
                return CachedBuild(
                    cache: nil, products: nil, settings: fetched, commit: commits[0], savedUnder: savedUnder, run: run)
            case .unavailable(let why):
                write("Build cache: \(why); building here\n")
            }
        }
        switch await cache.restore(commits: commits) {
        case .restored(let tree, let scope, let seconds, let unchanged, let changed, let passedOver):
            let which = tree.commit == commits[0] ? "this commit" : "ancestor \(tree.commit.prefix(12))"
            let untrusted =
                passedOver.isEmpty
                ? "" : "; passed over nearer entries this job does not trust: " + passedOver.joined(separator: ", ")
            write(
                "Build cache: restored the build of \(which) from \(cache.storeName), \(scope) "
                    + "(\(String(format: "%.1f", Double(tree.bytes) / 1_000_000)) MB, \(String(format: "%.1f", seconds)) s; "
                    + "\(unchanged) files as the build saw them, \(changed) changed since)\(untrusted)\n")
        case .missed(let why):
            write("Build cache: nothing restored: \(why); building clean\n")
        case .builtHere(let why):
            write("Build cache: nothing restored: \(why)\n")
        }
        return CachedBuild(
            cache: cache, products: products, settings: settings, commit: commits[0],
            savedUnder: savedUnder, run: run, newFolder: newFolder)
    }
}
