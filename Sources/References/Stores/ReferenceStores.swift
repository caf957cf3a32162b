import CISystem
import Foundation
import GitChanges
import ObjectStorage
import PipelineSpec

/// The reference stores a spec's `references` names, opened: the checkout's local references,
/// and `feature` and `develop` as folders or S3 prefixes.
public struct ReferenceStores: Sendable {
    public let settings: ReferenceSettings
    /// Folder paths in the spec are relative to this: the folder holding `pipelines/`.
    public let base: URL
    /// Where `settings` came from, for messages: `pipelines/post-merge.yml`, or why there is no spec.
    public let origin: String
    /// The process's variables (`PIPELINE_ENVIRONMENT`, the CI's), read for the run's environment.
    public let variables: [String: String]
    /// The run's render environment's set (`references: environment:`, `--environment`): each
    /// store's references for it live in the folder of that name, and the role's `folder` is it.
    /// Nil: the shared set alone, as before environments existed.
    public let environmentName: String?
    /// Whether the run's environment was named for it (`--environment`, `PIPELINE_ENVIRONMENT`)
    /// rather than worked out from the spec's template or left unset.
    public let environmentNamed: Bool
    /// Opened for their shared sets alone (`sharedSetsOf:`) while the spec names an environment:
    /// a role's own set is refused rather than silently taken to be the shared one.
    private let sharedSetsOnly: Bool

    /// The stores with the run's environment named: `named` (a command's `--environment`), else
    /// `PIPELINE_ENVIRONMENT`, else the spec's template over this machine's render environment.
    /// A name that cannot be a folder throws.
    public init(
        settings: ReferenceSettings, base: URL, origin: String,
        variables: [String: String] = ProcessInfo.processInfo.environment, named: String? = nil
    ) async throws {
        let base = base.standardizedFileURL
        guard let template = named ?? variables["PIPELINE_ENVIRONMENT"] ?? settings.environment else {
            self.init(settings, base: base, origin: origin, variables: variables, set: nil)
            return
        }
        let source =
            named != nil
            ? "--environment"
            : variables["PIPELINE_ENVIRONMENT"] != nil ? "PIPELINE_ENVIRONMENT" : "references.environment, \(origin)"
        let name =
            template.contains("{")
            ? EnvironmentName.expand(
                template,
                values: await RenderEnvironment.current(package: base, variables: variables).templateValues)
            : template
        if let problem = EnvironmentName.problem(name) {
            throw ReferenceError.notConfigured("the environment name \(problem) (\(source))")
        }
        self.init(
            settings, base: base, origin: origin, variables: variables, set: name,
            named: named != nil || variables["PIPELINE_ENVIRONMENT"] != nil)
    }

    /// The stores for what every environment shares (timings, queues, the impact map), without
    /// naming the run's environment, which needs no rendering to be asked about.
    public init(
        sharedSetsOf settings: ReferenceSettings, base: URL, origin: String,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(
            settings, base: base.standardizedFileURL, origin: origin, variables: variables, set: nil,
            sharedSetsOnly: settings.environment != nil || variables["PIPELINE_ENVIRONMENT"] != nil)
    }

    /// The stores with `set` as the run's own set (nil: the shared set), complete.
    private init(
        _ settings: ReferenceSettings, base: URL, origin: String, variables: [String: String], set: String?,
        named: Bool = false, sharedSetsOnly: Bool = false
    ) {
        (self.settings, self.base, self.origin, self.variables) = (settings, base, origin, variables)
        (environmentName, environmentNamed, self.sharedSetsOnly) = (set, named, sharedSetsOnly)
    }

    /// These stores with `name`'s set (nil: the shared set) as the run's own: what a command does
    /// to every set does to each through this.
    public func inSet(_ name: String?) -> ReferenceStores {
        ReferenceStores(settings, base: base, origin: origin, variables: variables, set: name, named: environmentNamed)
    }

    /// The render environments' sets `role`'s store holds, found in one listing of it, by name:
    /// those a spec names and those only the store knows (another team's, an older template's).
    public func environmentSets(_ role: StoreRole) async throws -> [String] {
        environmentSets(role, among: try await listing(role))
    }

    /// The sets among `objects`, `role`'s store listed whole (`listing(role)`).
    func environmentSets(_ role: StoreRole, among objects: [ObjectInfo]) -> [String] {
        let prefix = (try? sharedFolder(role, creating: true))?.prefix
        return ObjectKey.environmentSets(
            among: objects.map { object in prefix.flatMap { object.key.relative(to: $0) } ?? object.key })
    }

    /// Every object of `role`'s store, every set's, as listed (keys with the store's prefix).
    func listing(_ role: StoreRole) async throws -> [ObjectInfo] {
        let shared = try sharedFolder(role)
        return try await shared.store.list(under: shared.prefix)
    }

    /// Every object of `role`'s store, every set's, keyed relative to the store's prefix.
    func everyObject(_ role: StoreRole) async throws -> [(key: ObjectKey, size: Int64)] {
        let prefix = try sharedFolder(role).prefix
        return try await listing(role).map { object in
            (prefix.flatMap { object.key.relative(to: $0) } ?? object.key, object.size)
        }
    }

    /// The store and prefix of `feature` or `develop`: the run's environment's set in it when
    /// there is one (`<prefix>/<environment>`).
    /// A folder store that does not exist is refused (a mistyped path reads as an empty store)
    /// unless the caller is a write that creates it (`creating`).
    public func folder(_ role: StoreRole, creating: Bool = false) throws -> StoreLocation {
        let shared = try sharedFolder(role, creating: creating)
        guard let environmentName else {
            guard !sharedSetsOnly else {
                throw ReferenceError.notConfigured(
                    "references.environment is set (\(origin)), but these stores were opened for their shared sets only"
                )
            }
            return shared
        }
        return try set(environmentName, of: shared)
    }

    /// The shared set of `role`: the store's prefix itself.
    public func sharedFolder(_ role: StoreRole, creating: Bool = false) throws -> StoreLocation {
        guard let location = settings.address(of: role) else {
            throw ReferenceError.notConfigured(
                "references.\(role.rawValue) is not set (\(origin)); "
                    + "give it a folder or s3://bucket/prefix, or pass --\(role.rawValue)")
        }
        if !creating, let path = missingFolder(role) {
            throw ReferenceError.noStore(role: role.rawValue, path: path, origin: origin)
        }
        return try open(location)
    }

    /// `folder` with the tool's records kept beside it by scope (`RecordLayout`): this job's trust
    /// scope for feature's, develop's own for develop's. `PIPELINE_RECORDS=earlier` keeps them
    /// below the reference prefix as earlier releases did, for a team whose own tools still read
    /// them there.
    private func withRecords(_ folder: StoreLocation, of role: StoreRole) throws -> StoreLocation {
        guard variables["PIPELINE_RECORDS"] != "earlier", let shared = folder.store as? any SharedStore else {
            return folder
        }
        let other = StoreRole.allCases.first { $0 != role }.flatMap { settings.address(of: $0) }
        let sibling: String? =
            switch (settings.address(of: role), other) {
            case (.s3(let bucket, _), .s3(let otherBucket, let prefix)) where bucket == otherBucket: prefix
            case (.folder, .folder(let path)): URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path
            default: nil
            }
        let layout = try RecordLayout(
            store: shared, prefix: folder.prefix, role: role.rawValue, scope: CIContext(variables).trustScope.folder,
            sibling: sibling)
        return StoreLocation(store: ScopedRecords(base: shared, layout: layout), prefix: folder.prefix)
    }

    /// The path of `role`'s store when it is a folder that does not exist; nil otherwise (an S3
    /// store's bucket is checked by the server: a missing one is its NoSuchBucket).
    public func missingFolder(_ role: StoreRole) -> String? {
        guard case .folder(let path)? = settings.address(of: role) else { return nil }
        let url = URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
            ? nil : url.path
    }

    /// The sets a pull of `role` takes files from, first first: the run's own environment's, then
    /// the spec's fallback chain (the run's own skipped), then the shared set; each with its name
    /// (nil for the shared set).
    public func chain(_ role: StoreRole) throws -> [(name: String?, folder: StoreLocation)] {
        let shared = try sharedFolder(role)
        guard !sharedSetsOnly else { return [(environmentName, try folder(role))] }
        var names: [String] = []
        for name in [environmentName].compactMap({ $0 }) + settings.fallback where !names.contains(name) {
            names.append(name)
        }
        return try names.map { ($0, try set($0, of: shared)) } + [(nil, shared)]
    }

    /// The set of environment `name` in `role`'s store, whatever the run's own is.
    public func folder(_ role: StoreRole, environment name: String) throws -> StoreLocation {
        try set(name, of: try sharedFolder(role))
    }

    private func set(_ name: String, of shared: StoreLocation) throws -> StoreLocation {
        let segment = try ObjectKey(name)
        return StoreLocation(store: shared.store, prefix: segment.under(shared.prefix))
    }

    /// A folder or S3 location, with the spec's endpoint, region and credentials. Feature's or
    /// develop's location (named by a command or a spec's `verdicts:` too) keeps its records
    /// beside it (`withRecords`).
    public func open(_ location: StoreAddress) throws -> StoreLocation {
        let folder = try openPlain(location)
        func place(_ address: StoreAddress?) -> StoreAddress? {
            guard case .folder(let path)? = address else { return address }
            return .folder(path: URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path)
        }
        guard let role = StoreRole.allCases.first(where: { place(settings.address(of: $0)) == place(location) }) else {
            return folder
        }
        return try withRecords(folder, of: role)
    }

    private func openPlain(_ location: StoreAddress) throws -> StoreLocation {
        switch location {
        case .folder(let path): connection.folder(path)
        case .s3(let bucket, let prefix): try connection.s3(bucket: bucket, prefix: prefix)
        }
    }

    /// How the spec's stores are reached: its endpoint, region, profile and `allow-http`.
    public var connection: StoreConnection {
        StoreConnection(
            base: base, endpoint: settings.endpoint, region: settings.region, profile: settings.profile,
            allowHTTP: settings.allowHTTP, variables: variables)
    }

    /// The checkout's references: beside each test file, or in `references.local`.
    public func local(testPattern: String) -> LocalReferences {
        let pattern = NamePattern(testPattern)
        return LocalReferences.scan(
            base, folder: settings.local.map { URL(fileURLWithPath: $0, relativeTo: base) },
            isTest: pattern.matches)
    }

    /// Where the reference `key` (`<Test>/<file>`) was rendered, as develop (else feature) says;
    /// nil when no store is set, has it, or says.
    public func renderedOn(_ key: String) async -> RenderEnvironment? {
        await origin(of: key)?.renderedOn
    }

    /// The set of develop (else feature) a pull takes the reference `key` from, along the chain,
    /// with where it was rendered; nil when no store is set or holds it.
    public func origin(of key: String) async -> ReferenceOrigin? {
        guard let key = try? ObjectKey(key) else { return nil }
        for role in [StoreRole.develop, .feature] where settings.address(of: role) != nil {
            for (name, folder) in (try? chain(role)) ?? [] {
                let stored = key.under(folder.prefix)
                guard let info = try? await folder.store.head(stored) else { continue }
                let metadata = (try? await folder.store.metadata(of: stored)) ?? [:]
                return ReferenceOrigin(
                    set: name, own: environmentName,
                    renderedOn: metadata[StoreSync.renderedOnMetadata].flatMap(RenderEnvironment.init(metadata:)),
                    store: role, md5: info.md5)
            }
        }
        return nil
    }
}

/// Where a reference comes from: the set that holds it (nil: the shared set), the run's own set,
/// and where it was rendered.
public struct ReferenceOrigin: Sendable, Equatable {
    public var set: String?
    public var own: String?
    public var renderedOn: RenderEnvironment?
    /// The store holding it (develop, else feature), and the MD5 of what it holds.
    public var store: StoreRole?
    public var md5: String?

    public init(
        set: String?, own: String?, renderedOn: RenderEnvironment?, store: StoreRole? = nil, md5: String? = nil
    ) {
        (self.set, self.own, self.renderedOn, self.store, self.md5) = (set, own, renderedOn, store, md5)
    }

    /// Whether develop holds another version than the file at `path` (its copy moved since that
    /// file was pulled); false when the store or digest is unknown or the file cannot be read.
    public func developHoldsAnother(than path: URL) -> Bool {
        guard store == .develop, let md5, let here = try? Digest.hex(ofFile: path, .md5) else { return false }
        return here != md5
    }

    /// For a run with a render environment: the set named, and whether it is a fallback.
    public var note: String? {
        guard let own else { return nil }
        guard set != own else { return "reference from this run's set, \(own)" }
        return "reference from " + (set.map { "the set \($0)" } ?? "the shared set")
            + ", a fallback: this run's set, \(own), has none"
    }
}
