import BuildCache
import CISystem
import Foundation
import GitChanges
import ObjectStorage
import TestCore

/// Everything that decides a test run's outcome, so a passing run's verdict can stand for another
/// run with the same key: the git tree the tests ran on, the build (a SwiftPM build's toolchain,
/// target, configuration, flags, pins, package path and build system: `BuildCacheKey`; an Xcode
/// run's Xcode, scheme and destination), what the run selected and how (filters, the quarantine's
/// content), the render environment, and the references the tests compared against, by content.
/// A difference anywhere is another key.
public struct VerdictKey: Sendable, Codable, Equatable {
    /// The id of the git tree of the commit the tests ran on.
    public var tree: String
    /// A SwiftPM build's key; nil for a run Xcode made.
    public var build: BuildCacheKey?
    /// A run Xcode made: `xcodebuild -version`, the scheme and the destination, a line each.
    public var xcode: [String]?
    /// The run's selection and settings that change what runs or how it is judged, one line each.
    public var selection: [String]
    /// The render environment whose references the snapshot tests compared against ("" for none).
    public var environment: String
    /// The checkout's reference files, `path md5` each, sorted: what the tests compared against.
    public var references: [String]

    public init(
        tree: String, build: BuildCacheKey? = nil, xcode: [String]? = nil, selection: [String], environment: String,
        references: [String]
    ) {
        (self.tree, self.build, self.xcode, self.selection) = (tree, build, xcode, selection)
        (self.environment, self.references) = (environment, references)
    }

    /// Adds the key of building `package` (in the git work tree `repository`) here: its pins
    /// resolved first, as the build would, when none are committed (the file so written is removed
    /// again, so the build and its cache's key find the checkout as they would without verdicts),
    /// and the package's path in its repository rather than on this machine (each CI job may check
    /// out elsewhere).
    public mutating func addBuild(
        package: URL, configuration: String, flags: [String], buildSystem: String, variables: [String: String],
        scratch: URL, repository: URL
    ) async throws(BuildCacheError) {
        let resolved = package.appendingPathComponent("Package.resolved")
        let written = !FileManager.default.fileExists(atPath: resolved.path)
        await BuildCacheKey.resolvePins(package: package, variables: variables, scratch: scratch)
        defer { if written { try? FileManager.default.removeItem(at: resolved) } }
        var build = try await BuildCacheKey.current(
            package: package, configuration: configuration, flags: flags, buildSystem: buildSystem,
            variables: variables, scratch: scratch)
        let path = package.resolvingSymlinksInPath().path
        let root = repository.resolvingSymlinksInPath().path
        build.path = path == root ? "." : String(path.dropFirst(root.count + 1))
        self.build = build
    }

    /// The selection's line for a quarantine file: its content's SHA-256; nil when it cannot be read.
    public static func quarantineLine(of file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path),
            let digest = try? Digest.hex(of: data, .sha256)
        else { return nil }
        return "quarantine \(digest)"
    }

    /// The key's name in a store: the SHA-256 of its parts, in hex.
    public func hash() throws(StoreError) -> String {
        try Digest.hex(of: encoded(), .sha256)
    }

    /// The key as JSON, its parts in a fixed order (a node of a shared run files it so).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// This key with its references left out: the key a run looking for a verified ancestor
    /// (`treeKey` with the ancestor's tree) finds this tree's records under, whatever references
    /// it pulled since (those that differ run again). Its one reference line is `*`, which no file's
    /// line is, so no run of a checkout without references takes it for its own.
    public var treeKey: VerdictKey {
        var key = self
        key.references = ["*"]
        return key
    }

    /// This key with the tree replaced by a commit's change (`CommitHistory.contentChange`: path
    /// and the content it left, each): the key under which a run on a merge ref is found again from
    /// a squash or merge commit of the same branch onto a base that moved since.
    public func change(_ files: [String: String]) throws(StoreError) -> VerdictKey {
        var key = self
        let lines = files.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        key.tree = "change " + (try Digest.hex(of: Data(lines.utf8), .sha256))
        return key
    }
}

/// A passing run's verdict, kept in the store under its key: which run it was, on which commit,
/// when, by whom it can be trusted (the trust scope of the job that wrote it), and its report.
public struct Verdict: Sendable, Codable {
    public var version = 1
    public var key: VerdictKey
    /// The CI run (or `local`) and the commit its tests ran on.
    public var run: String
    public var commit: String
    /// When the run ended, ISO 8601.
    public var date: String
    /// Where the job that wrote it stood (`pr/12`, `branch/develop`; docs/ci.md, "Trust").
    public var scope: String
    public var report: TestReport
    /// The first parent of `commit` (the base a merge ref was made on) and the tree part of the
    /// key of `commit`'s change from it (`VerdictKey.change`); nil for a root commit, or a clone
    /// that could not read them.
    public var base: String?
    public var change: String?
    /// Set on a composed verdict: the record whose results stand for the tests this run did not
    /// reach (`run R on commit C`); its report names them (`verifiedBy`).
    public var composedOn: String?
    /// How many composed verdicts this one stands on since the last whole-suite run (nil: 0, a
    /// whole run's): a run's `full-every` bounds it.
    public var depth: Int?

    public init(
        key: VerdictKey, run: String, commit: String, date: Date, scope: String, report: TestReport,
        base: String? = nil, change: String? = nil, composedOn: Verdict? = nil
    ) {
        (self.key, self.run, self.commit, self.scope, self.report) = (key, run, commit, scope, report)
        (self.base, self.change, self.composedOn) = (base, change, composedOn?.name)
        self.depth = composedOn.map { ($0.depth ?? 0) + 1 }
        self.date = ISO8601DateFormatter().string(from: date)
    }

    /// The key of its commit's change: its own with the tree replaced by `change`; nil without one.
    var changeKey: VerdictKey? {
        change.map { change in
            var key = self.key
            key.tree = change
            return key
        }
    }

    /// Whether this record stands under `key`: its own, its change's, or its tree's.
    func matches(_ key: VerdictKey) -> Bool {
        key == self.key || key == changeKey || key == self.key.treeKey
    }

    /// Whether a test was flaky, retried or quarantined: a verdict that is reused only when asked.
    public var isShaky: Bool {
        report.tests.contains { $0.status == .flaky || $0.attempts > 1 || $0.quarantine != nil }
    }

    /// The one line a reuse says: which run verified this tree, on which commit, when.
    public var line: String {
        "verified already: \(report.tests.count) test\(report.tests.count == 1 ? "" : "s") passed in run \(run) "
            + "on commit \(commit.prefix(12)) (\(date), \(scope)\(composedOn.map { "; composed on \($0)" } ?? "")); "
            + "nothing run"
    }

    /// How a composed verdict names this one: `run R on commit C`.
    public var name: String { "run \(run) on commit \(commit.prefix(12))" }
}

/// Verdict records in a store folder: `.verdicts/<key hash>/<scope>.json`, one per trust scope
/// that verified the key, and the same record under its change's key (a listing no reference
/// command sees: folders starting with `.` are bookkeeping).
public struct VerdictStore: Sendable {
    public static let folder = ".verdicts"
    public let place: StoreLocation

    public init(_ place: StoreLocation) {
        self.place = place
    }

    /// Keeps the record of a passing `report` run under `key`, on the commit checked out at
    /// `package`, with the CI run and trust scope of `variables`; `composedOn` is the record
    /// whose results stand for the tests it did not run. Without `asChange`, not under its
    /// change's key, where it would replace the record of the change itself (over its own base).
    public func keep(
        _ key: VerdictKey, report: TestReport, package: URL, variables: [String: String], composedOn: Verdict? = nil,
        asChange: Bool = true
    ) async throws {
        let ci = CIContext(variables)
        let history = try? CommitHistory(repositoryPath: package.path)
        let commit = (try? history?.sha("HEAD")) ?? ""
        let change =
            asChange ? try? history.flatMap { history in try key.change(history.contentChange(of: "HEAD")).tree } : nil
        try await keep(
            Verdict(
                key: key, run: ci.runID ?? "local", commit: commit, date: Date(), scope: ci.trustScope.folder,
                report: report, base: (try? history?.parents(of: "HEAD"))??.first, change: change,
                composedOn: composedOn))
    }

    /// Keeps `record` under its key, its change's and its tree's (the same key and scope replaced
    /// whole).
    public func keep(_ record: Verdict) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(record)
        let scope = record.scope.replacingOccurrences(of: "/", with: "-")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-verdict-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try data.write(to: file)
        for key in [record.key, record.key.treeKey] + (record.changeKey.map { [$0] } ?? []) {
            let object = try ObjectKey("\(Self.folder)/\(try key.hash())/\(scope).json").under(place.prefix)
            try await place.store.upload(file, to: object, metadata: [:])
        }
    }

    /// The passing records of `key` (a tree's, or a change's) here that `accept` takes, newest
    /// first; a record that does not read, or whose key is not `key` part for part, is passed over.
    public func find(_ key: VerdictKey, accept: (Verdict) -> Bool = { _ in true }) async throws -> [Verdict] {
        let prefix = try ObjectKey("\(Self.folder)/\(try key.hash())").under(place.prefix)
        var found: [Verdict] = []
        for object in try await place.store.list(under: prefix) where object.key.rawValue.hasSuffix(".json") {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-verdict-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try await place.store.download(object.key, to: file)
            guard let data = FileManager.default.contents(atPath: file.path),
                let record = try? JSONDecoder().decode(Verdict.self, from: data), record.matches(key),
                record.report.passed, accept(record)
            else { continue }
            found.append(record)
        }
        return found.sorted { $0.date > $1.date }
    }
}
