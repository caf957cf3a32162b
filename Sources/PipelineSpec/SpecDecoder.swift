import Foundation

/// Where each value of a spec was written, by key path, so validation can point at it.
public struct SourceMap: Sendable {
    private var locations: [SpecKeyPath: SourceLocation] = [:]

    mutating func remember(_ path: SpecKeyPath, _ location: SourceLocation) {
        locations[path] = location
    }

    /// The location of the value at `path`, or of the nearest enclosing value that was written.
    public func location(of path: SpecKeyPath, fallback: SourceLocation = .start) -> SourceLocation {
        locations[path] ?? fallback
    }
}

/// Turns a `YAMLNode` tree into a `PipelineSpec`, collecting every type problem as it goes
/// (unknown keys, wrong kinds of value, unparseable durations) rather than stopping at the first.
/// A value it cannot read is left at its default and its path is remembered in `reported`,
/// so validation can still check everything else without repeating the complaint.
struct SpecDecoder {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []
    var sourceMap = SourceMap()
    /// Paths already reported on (and their enclosing paths for missing keys).
    private(set) var reported: Set<SpecKeyPath> = []
    /// For each decoded stage, its index in the spec's list (stages that could not be read are left out).
    private(set) var stageIndices: [Int] = []

    init(file: String) {
        self.file = file
    }

    /// The entries of one mapping, checked against the keys it may hold.
    struct Fields {
        let path: SpecKeyPath
        let location: SourceLocation
        let values: [String: YAMLNode]
    }

    mutating func decode(_ root: YAMLNode) -> PipelineSpec? {
        guard
            let fields = fields(
                root, at: .root, what: "a pipeline",
                allowed: ["name", "description", "changes", "references", "stages"])
        else { return nil }
        let name = value(fields, "name", required: true) { $0.string($1, $2) }
        let description = value(fields, "description", required: true) { $0.string($1, $2) }
        let changes = value(fields, "changes") { $0.changes($1, $2) } ?? ChangeSettings()
        let references = value(fields, "references") { $0.references($1, $2) }
        let stages = value(fields, "stages", required: true) { $0.stages($1, $2) }
        return PipelineSpec(
            name: name ?? "", description: description ?? "", changes: changes,
            references: references, stages: stages ?? [])
    }

    // MARK: Sections

    private mutating func changes(_ node: YAMLNode, _ path: SpecKeyPath) -> ChangeSettings? {
        guard
            let fields = fields(
                node, at: path, what: "the change settings",
                allowed: ["compare", "tests", "base", "head"])
        else { return nil }
        var settings = ChangeSettings()
        settings.compare = value(fields, "compare") { $0.choice($1, $2) } ?? settings.compare
        settings.tests = value(fields, "tests") { $0.string($1, $2) } ?? settings.tests
        settings.base = value(fields, "base") { $0.string($1, $2) }
        settings.head = value(fields, "head") { $0.string($1, $2) }
        return settings
    }

    private mutating func references(_ node: YAMLNode, _ path: SpecKeyPath) -> ReferenceSettings? {
        guard
            let fields = fields(
                node, at: path, what: "the reference settings",
                allowed: [
                    "local", "feature", "develop", "endpoint", "region", "profile", "allow-http", "environment",
                    "fallback", "review-url", "presigned-links",
                ])
        else { return nil }
        var settings = ReferenceSettings()
        settings.local = value(fields, "local") { $0.string($1, $2) }
        settings.feature = value(fields, "feature") { $0.storage($1, $2) }
        settings.develop = value(fields, "develop") { $0.storage($1, $2) }
        settings.endpoint = value(fields, "endpoint") { $0.string($1, $2) }
        settings.region = value(fields, "region") { $0.string($1, $2) }
        settings.profile = value(fields, "profile") { $0.string($1, $2) }
        settings.allowHTTP = value(fields, "allow-http") { $0.bool($1, $2) } ?? false
        settings.environment = value(fields, "environment") { $0.string($1, $2) }
        settings.fallback = value(fields, "fallback") { $0.strings($1, $2) } ?? []
        settings.reviewURL = value(fields, "review-url") { $0.string($1, $2) }
        settings.presignedLinks = value(fields, "presigned-links") { $0.bool($1, $2) }
        return settings
    }

    private mutating func stages(_ node: YAMLNode, _ path: SpecKeyPath) -> [Stage]? {
        guard case .sequence(let items) = node.value else {
            report(
                node.location, path,
                "expected a list of stages (lines starting with '- '), found \(node.kindDescription)")
            return nil
        }
        var stages: [Stage] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.appending(index: index)
            sourceMap.remember(itemPath, item.location)
            if let stage = stage(item, itemPath) {
                stages.append(stage)
                stageIndices.append(index)
            }
        }
        if items.isEmpty || !stages.isEmpty { return stages }
        reported.insert(path)
        return nil
    }

    /// A stage is written `- test` or `- test:` followed by its settings.
    private mutating func stage(_ node: YAMLNode, _ path: SpecKeyPath) -> Stage? {
        let kindText: String
        let kindLocation: SourceLocation
        let settings: YAMLNode?
        switch node.value {
        case .scalar(let text):
            (kindText, kindLocation, settings) = (text, node.location, nil)
        case .mapping(let entries) where entries.count == 1:
            (kindText, kindLocation, settings) = (entries[0].key, entries[0].keyLocation, entries[0].value)
        case .mapping(let entries):
            let kinds = entries.map { "'\($0.key)'" }.joined(separator: ", ")
            report(
                node.location, path,
                "a stage has exactly one kind, found \(entries.count): \(kinds); "
                    + "indent the settings under the kind")
            return nil
        case .null, .sequence:
            report(node.location, path, "expected a stage such as '- test:', found \(node.kindDescription)")
            return nil
        }
        guard let kind = Stage.Kind(rawValue: kindText) else {
            let names = Stage.Kind.allCases.map(\.rawValue)
            report(kindLocation, path, "unknown stage '\(kindText)'; " + Suggestion.phrase(for: kindText, in: names))
            return nil
        }
        let stagePath = path.appending(kind.rawValue)
        let node = settings ?? YAMLNode(value: .null, location: kindLocation)
        sourceMap.remember(stagePath, node.location)
        switch kind {
        case .pull: return pullStage(node, stagePath).map(Stage.pull)
        case .test: return testStage(node, stagePath).map(Stage.test)
        case .promote: return promoteStage(node, stagePath).map(Stage.promote)
        case .push: return pushStage(node, stagePath).map(Stage.push)
        case .orphans: return orphansStage(node, stagePath).map(Stage.orphans)
        case .review: return reviewStage(node, stagePath).map(Stage.review)
        }
    }

    private mutating func testStage(_ node: YAMLNode, _ path: SpecKeyPath) -> TestStage? {
        guard
            let fields = fields(
                node, at: path, what: "the test settings", nullIsEmpty: true,
                allowed: [
                    "shards", "timeout", "history-timeout", "retries", "max-retried", "select", "flaky", "timings",
                    "junit", "package",
                    "configuration", "output-limit", "coverage", "impact", "candidates", "build-cache",
                    "build-system", "verdicts", "full-every",
                ])
        else { return nil }
        var stage = TestStage()
        stage.shards =
            value(fields, "shards") {
                $0.scalar($1, $2, expected: "a shard count: auto or a whole number", parse: ShardCount.init(parsing:))
            } ?? stage.shards
        stage.timeout = value(fields, "timeout") { $0.duration($1, $2) } ?? stage.timeout
        stage.retries = value(fields, "retries") { $0.integer($1, $2) } ?? stage.retries
        stage.maxRetried = value(fields, "max-retried") { $0.integer($1, $2) }
        stage.historyTimeout = value(fields, "history-timeout") { $0.bool($1, $2) } ?? stage.historyTimeout
        stage.select = value(fields, "select") { $0.choice($1, $2) } ?? stage.select
        stage.flaky = value(fields, "flaky") { $0.choice($1, $2) } ?? stage.flaky
        stage.timings = value(fields, "timings") {
            $0.scalar(
                $1, $2, expected: "a timings file, feature, develop or s3://bucket/prefix",
                parse: TimingsAddress.init(parsing:))
        }
        stage.junit = value(fields, "junit") { $0.string($1, $2) }
        stage.package = value(fields, "package") { $0.string($1, $2) } ?? stage.package
        stage.configuration = value(fields, "configuration") { $0.choice($1, $2) } ?? stage.configuration
        stage.outputLimit =
            value(fields, "output-limit") {
                $0.scalar($1, $2, expected: "a size, written like 512KB, 1MB or 2GiB", parse: ByteCount.init(parsing:))
            } ?? stage.outputLimit
        stage.coverage = value(fields, "coverage") { $0.coverage($1, $2) }
        stage.recordsImpact =
            value(fields, "impact") {
                $0.scalar($1, $2, expected: "record (what each suite executes, for select: impacted)") {
                    $0 == "record" ? true : nil
                }
            } ?? false
        stage.keepsCandidates = value(fields, "candidates") { $0.bool($1, $2) } ?? stage.keepsCandidates
        stage.buildCache = value(fields, "build-cache") {
            $0.scalar($1, $2, expected: "a folder or s3://bucket/prefix", parse: StoreAddress.init(parsing:))
        }
        stage.buildSystem = value(fields, "build-system") { $0.choice($1, $2) }
        stage.verdicts = value(fields, "verdicts") { $0.choice($1, $2) }
        stage.fullEvery = value(fields, "full-every") {
            $0.scalar($1, $2, expected: "a whole number above 0") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        }
        return stage
    }

    /// `coverage: true` (or `false`), or its settings.
    private mutating func coverage(_ node: YAMLNode, _ path: SpecKeyPath) -> CoverageSpec? {
        if case .scalar = node.value { return bool(node, path) == true ? CoverageSpec() : nil }
        guard
            let fields = fields(
                node, at: path, what: "the coverage settings (or true)",
                allowed: ["min-lines", "dir", "include", "exclude"])
        else { return nil }
        var spec = CoverageSpec()
        spec.minLines = value(fields, "min-lines") {
            $0.scalar(
                $1, $2, expected: "a share of lines above 0 and up to 100, written like 80 or 80%",
                parse: Percentage.init(parsing:))
        }
        spec.dir = value(fields, "dir") { $0.string($1, $2) }
        func regex(_ decoder: inout SpecDecoder, _ node: YAMLNode, _ path: SpecKeyPath) -> String? {
            decoder.scalar(node, path, expected: "a regular expression over source paths") {
                (try? NSRegularExpression(pattern: $0)) == nil ? nil : $0
            }
        }
        spec.include = value(fields, "include", regex)
        spec.exclude = value(fields, "exclude", regex)
        return spec
    }

    private mutating func pullStage(_ node: YAMLNode, _ path: SpecKeyPath) -> PullStage? {
        guard
            let fields = fields(
                node, at: path, what: "the pull settings", nullIsEmpty: true,
                allowed: ["from", "changed-from"])
        else { return nil }
        var stage = PullStage()
        stage.from = value(fields, "from") { $0.choice($1, $2) } ?? stage.from
        if let changed: OptionalStore = value(fields, "changed-from", { $0.choice($1, $2) }) {
            stage.changedFrom = changed.role
        }
        return stage
    }

    private mutating func promoteStage(_ node: YAMLNode, _ path: SpecKeyPath) -> PromoteStage? {
        guard
            let fields = fields(
                node, at: path, what: "the promote settings", nullIsEmpty: true,
                allowed: ["from", "to", "prune", "even-if-tests-fail"])
        else { return nil }
        var stage = PromoteStage()
        stage.from = value(fields, "from") { $0.choice($1, $2) } ?? stage.from
        stage.to = value(fields, "to") { $0.choice($1, $2) } ?? stage.to
        stage.prune = value(fields, "prune") { $0.bool($1, $2) } ?? stage.prune
        stage.evenIfTestsFail = value(fields, "even-if-tests-fail") { $0.bool($1, $2) } ?? stage.evenIfTestsFail
        return stage
    }

    private mutating func pushStage(_ node: YAMLNode, _ path: SpecKeyPath) -> PushStage? {
        guard
            let fields = fields(
                node, at: path, what: "the push settings", nullIsEmpty: true,
                allowed: ["to", "prune"])
        else { return nil }
        var stage = PushStage()
        stage.to = value(fields, "to") { $0.choice($1, $2) } ?? stage.to
        stage.prune = value(fields, "prune") { $0.bool($1, $2) } ?? stage.prune
        return stage
    }

    private mutating func orphansStage(_ node: YAMLNode, _ path: SpecKeyPath) -> OrphansStage? {
        guard
            let fields = fields(
                node, at: path, what: "the orphans settings", nullIsEmpty: true,
                allowed: ["in", "fail"])
        else { return nil }
        var stage = OrphansStage()
        stage.store = value(fields, "in") { $0.choice($1, $2) } ?? stage.store
        stage.fail = value(fields, "fail") { $0.bool($1, $2) } ?? stage.fail
        return stage
    }

    private mutating func reviewStage(_ node: YAMLNode, _ path: SpecKeyPath) -> ReviewStage? {
        guard
            let fields = fields(
                node, at: path, what: "the review settings", nullIsEmpty: true,
                allowed: ["output", "new", "reference", "tolerance"])
        else { return nil }
        var stage = ReviewStage()
        stage.output = value(fields, "output") { $0.string($1, $2) } ?? stage.output
        stage.new = value(fields, "new") { $0.choice($1, $2) } ?? stage.new
        stage.reference = value(fields, "reference") { $0.choice($1, $2) } ?? stage.reference
        stage.tolerance = value(fields, "tolerance") { $0.integer($1, $2) } ?? stage.tolerance
        return stage
    }

    // MARK: Mappings and fields

    mutating func fields(
        _ node: YAMLNode, at path: SpecKeyPath, what: String, nullIsEmpty: Bool = false,
        allowed: [String]
    ) -> Fields? {
        let entries: [YAMLNode.Entry]
        switch node.value {
        case .mapping(let mapping): entries = mapping
        case .null where nullIsEmpty: entries = []
        default:
            report(
                node.location, path, "expected a mapping of \(what) (key: value lines), found \(node.kindDescription)")
            return nil
        }
        var values: [String: YAMLNode] = [:]
        for entry in entries {
            guard allowed.contains(entry.key) else {
                report(
                    entry.keyLocation, path,
                    "unknown key '\(entry.key)'; " + Suggestion.phrase(for: entry.key, in: allowed))
                continue
            }
            values[entry.key] = entry.value
            sourceMap.remember(path.appending(entry.key), entry.value.location)
        }
        return Fields(path: path, location: node.location, values: values)
    }

    /// Reads one field with `read`, or reports it missing when `required`.
    mutating func value<T>(
        _ fields: Fields, _ key: String, required: Bool = false,
        _ read: (inout SpecDecoder, YAMLNode, SpecKeyPath) -> T?
    ) -> T? {
        guard let node = fields.values[key] else {
            if required {
                report(fields.location, fields.path, "missing required key '\(key)'")
                reported.insert(fields.path.appending(key))
            }
            return nil
        }
        if case .null = node.value {
            report(node.location, fields.path.appending(key), "has no value")
            return nil
        }
        return read(&self, node, fields.path.appending(key))
    }

    mutating func report(_ location: SourceLocation, _ path: SpecKeyPath, _ message: String) {
        reported.insert(path)
        diagnostics.append(Diagnostic(file: file, location: location, keyPath: path, message: message))
    }
}
