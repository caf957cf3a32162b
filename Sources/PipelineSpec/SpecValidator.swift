import Foundation

/// The checks that need a whole, well-typed spec: ranges, names, and how fields fit together.
/// Every problem is reported; none stops the others.
struct SpecValidator {
    let file: String
    /// The file name without `.yml`: `pipeline run NAME` finds a pipeline by it.
    let fileStem: String
    let sourceMap: SourceMap
    /// Paths the decoder already reported on: their values are defaults, not the user's, so not checked.
    let alreadyReported: Set<SpecKeyPath>
    /// For each stage of the spec, its index in the file's list.
    let stageIndices: [Int]
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String, fileStem: String, decoder: SpecDecoder) {
        self.file = file
        self.fileStem = fileStem
        self.sourceMap = decoder.sourceMap
        self.alreadyReported = decoder.reported
        self.stageIndices = decoder.stageIndices
    }

    static let maximumShards = 256
    static let maximumRetries = 10
    static let maximumOutputLimit = ByteCount(1 << 30)

    mutating func validate(_ spec: PipelineSpec) {
        let root = SpecKeyPath.root
        if !Self.isValidName(spec.name) {
            report(
                root.appending("name"),
                "'\(spec.name)' is not a valid pipeline name; "
                    + "use lowercase letters, digits, '-' and '_', starting with a letter or digit")
        } else if spec.name != fileStem {
            report(
                root.appending("name"),
                "'\(spec.name)' differs from the file name '\(fileStem).yml'; "
                    + "rename one so they match (pipeline run finds pipelines by file name)")
        }
        if spec.description.trimmingCharacters(in: .whitespaces).isEmpty {
            report(root.appending("description"), "is empty; write one line saying what the pipeline is for")
        } else if spec.description.contains("\n") {
            report(root.appending("description"), "must be one line (pipeline list shows it beside the name)")
        }
        validate(spec.changes, at: root.appending("changes"))
        if let references = spec.references {
            validate(references, at: root.appending("references"))
        }
        validateStages(spec)
    }

    private mutating func validate(_ changes: ChangeSettings, at path: SpecKeyPath) {
        let pattern = changes.tests
        if pattern.isEmpty || pattern.contains("/") || pattern.allSatisfy({ $0 == "*" || $0 == "?" }) {
            report(
                path.appending("tests"),
                "'\(pattern)' is not a test directory name pattern; "
                    + "write a name with * or ? wildcards, such as *Tests")
        }
    }

    private mutating func validate(_ references: ReferenceSettings, at path: SpecKeyPath) {
        for role in StoreRole.allCases {
            guard case .s3(let bucket, _) = references.address(of: role) else { continue }
            validate(bucket: bucket, at: path.appending(role.rawValue))
        }
        if let feature = references.feature, feature == references.develop {
            report(path.appending("develop"), "is the same store as feature (\(feature)); they must differ")
        }
        if let endpoint = references.endpoint {
            validate(endpoint: endpoint, allowHTTP: references.allowHTTP, at: path.appending("endpoint"))
        }
        if let review = references.reviewURL {
            let url = URL(string: review)
            if url?.host == nil || !["http", "https"].contains(url?.scheme?.lowercased() ?? "") {
                report(
                    path.appending("review-url"),
                    "'\(review)' is not an http(s) URL such as https://team-snapshots.s3.eu-west-1.amazonaws.com/feature"
                )
            } else if (url?.path ?? "").split(separator: "/").isEmpty {
                report(
                    path.appending("review-url"),
                    "'\(review)' names no folder: review pages are kept beside feature (below .pipeline/), so give "
                        + "feature's address on a server of the folder holding it, such as https://host/feature")
            }
        }
        if let template = references.environment, let problem = EnvironmentName.templateProblem(template) {
            report(path.appending("environment"), problem)
        }
        var seen: [String: Int] = [:]
        for (index, name) in references.fallback.enumerated() {
            let itemPath = path.appending("fallback").appending(index: index)
            if let problem = EnvironmentName.problem(name) {
                report(itemPath, problem)
            } else if let first = seen[name] {
                report(itemPath, "names '\(name)' again (it is item \(first + 1) too); a chain tries each set once")
            }
            seen[name] = seen[name] ?? index
        }
    }

    private mutating func validate(endpoint: String, allowHTTP: Bool, at path: SpecKeyPath) {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty
        else {
            report(path, "'\(endpoint)' is not an http(s) URL such as https://s3.example.com")
            return
        }
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        if scheme == "http", !loopback, !allowHTTP {
            report(
                path,
                "plain http to '\(host)' would send credentials unencrypted; "
                    + "use https, or set allow-http: true")
        }
    }

    private mutating func validateStages(_ spec: PipelineSpec) {
        let path = SpecKeyPath.root.appending("stages")
        if spec.stages.isEmpty {
            report(
                path,
                "has no stages; add at least one ("
                    + Stage.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        var firstIndex: [Stage.Kind: Int] = [:]
        for (stage, index) in zip(spec.stages, stageIndices) {
            let stagePath = path.appending(index: index).appending(stage.kind.rawValue)
            if let first = firstIndex[stage.kind] {
                report(
                    path.appending(index: index),
                    "stage '\(stage.kind.rawValue)' already runs as stages[\(first)]; "
                        + "a pipeline runs each kind of stage once")
            } else {
                firstIndex[stage.kind] = index
            }
            switch stage {
            case .pull(let pull):
                requireStores(
                    [pull.from] + (pull.changedFrom.map { [$0] } ?? []), references: spec.references, at: stagePath)
                if pull.changedFrom == pull.from {
                    report(
                        stagePath.appending("changed-from"),
                        "is the same store as from (\(pull.from.rawValue)); "
                            + "name the other store, or none")
                }
                if let test = firstIndex[.test] {
                    report(
                        path.appending(index: index),
                        "runs after the test stage (stages[\(test)]); move it before "
                            + "'test' so the tests read the pulled references")
                }
            case .test(let test):
                validate(test, at: stagePath)
                if case .store(let role) = test.timings {
                    requireStores([role], references: spec.references, at: stagePath.appending("timings"))
                }
                if case .s3(let bucket, _) = test.timings {
                    validate(bucket: bucket, at: stagePath.appending("timings"))
                }
            case .promote(let promote): validate(promote, references: spec.references, at: stagePath)
            case .push(let push): requireStores([push.to], references: spec.references, at: stagePath)
            case .orphans(let orphans): requireStores([orphans.store], references: spec.references, at: stagePath)
            case .review(let review):
                requireStores([review.new, review.reference], references: spec.references, at: stagePath)
                if !(0...255).contains(review.tolerance) {
                    report(stagePath.appending("tolerance"), "must be between 0 and 255 (found \(review.tolerance))")
                }
            }
        }
    }

    private mutating func validate(bucket: String, at path: SpecKeyPath) {
        if !Self.isValidBucket(bucket) {
            report(path, "'\(bucket)' is not a valid S3 bucket name (3–63 lowercase letters, digits, '.' and '-')")
        }
    }

    private mutating func validate(_ test: TestStage, at path: SpecKeyPath) {
        if case .fixed(let count) = test.shards, !(1...Self.maximumShards).contains(count) {
            report(path.appending("shards"), "must be auto or between 1 and \(Self.maximumShards) (found \(count))")
        }
        if test.timeout <= .zero {
            report(path.appending("timeout"), "must be greater than zero (found \(test.timeout.specText))")
        }
        if !(0...Self.maximumRetries).contains(test.retries) {
            report(path.appending("retries"), "must be between 0 and \(Self.maximumRetries) (found \(test.retries))")
        }
        if let limit = test.maxRetried, limit < 0 {
            report(path.appending("max-retried"), "must be 0 or more (found \(limit))")
        }
        if test.outputLimit.bytes <= 0 || test.outputLimit > Self.maximumOutputLimit {
            report(
                path.appending("output-limit"),
                "must be between 1 byte and \(Self.maximumOutputLimit) (found \(test.outputLimit))")
        }
    }

    private mutating func validate(_ promote: PromoteStage, references: ReferenceSettings?, at path: SpecKeyPath) {
        if promote.from == promote.to {
            report(
                path.appending("to"),
                "is the same store as from (\(promote.from.rawValue)); promote copies between two stores")
        }
        requireStores([promote.from, promote.to], references: references, at: path)
    }

    private mutating func requireStores(_ roles: [StoreRole], references: ReferenceSettings?, at path: SpecKeyPath) {
        for role in roles where references?.address(of: role) == nil {
            report(path, "needs references.\(role.rawValue) (a folder path or s3://bucket/prefix)")
        }
    }

    private mutating func report(_ path: SpecKeyPath, _ message: String) {
        guard !alreadyReported.contains(path) else { return }
        diagnostics.append(
            Diagnostic(
                file: file, location: sourceMap.location(of: path), keyPath: path,
                message: message))
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILowercaseOrDigit else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILowercaseOrDigit || $0 == "-" || $0 == "_" }
    }

    static func isValidBucket(_ bucket: String) -> Bool {
        (3...63).contains(bucket.count)
            && bucket.unicodeScalars.allSatisfy { $0.isASCIILowercaseOrDigit || $0 == "." || $0 == "-" }
            && bucket.first != "." && bucket.first != "-" && bucket.last != "." && bucket.last != "-"
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILowercaseOrDigit: Bool {
        ("a"..."z").contains(self) || ("0"..."9").contains(self)
    }
}
