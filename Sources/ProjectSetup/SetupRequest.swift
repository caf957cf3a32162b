import PipelineCore
import PipelineSpec
import SnapshotConventions

/// What `pipeline init` is told about the team: its CI, where its references are kept, how many
/// machines share a run, how it merges, and which release of pipeline its CI installs.
public struct SetupRequest: Sendable {
    public enum CI: String, Sendable, CaseIterable {
        case github, bitrise, gitlab
    }

    public enum MergeStyle: String, Sendable, CaseIterable {
        case merge, squash, rebase

        var phrase: String {
            switch self {
            case .merge: "by a merge commit"
            case .squash: "squashed"
            case .rebase: "rebased"
            }
        }
    }

    /// An app tested with xcodebuild: what to build and where it runs.
    public struct XcodeApp: Sendable, Equatable {
        public let scheme: String
        /// xcodebuild's `-destination` (`platform=iOS Simulator,name=iPhone 16`).
        public let destination: String
        /// `-project P` or `-workspace W`, when the repository's root has more than one.
        public let container: [String]

        /// Checks the flags; each problem is one line naming the flag.
        public init(scheme: String, destination: String, project: String? = nil, workspace: String? = nil)
            throws(RequestError)
        {
            func safe(_ text: String) -> Bool {
                !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || " -_./=,:()+".contains($0) }
            }
            guard safe(scheme) else { throw RequestError("--scheme '\(scheme)': a scheme's name, such as App") }
            guard safe(destination), destination.contains("=") else {
                throw RequestError(
                    "--destination '\(destination)': xcodebuild's destination, such as "
                        + "'platform=iOS Simulator,name=iPhone 16'")
            }
            if project != nil, workspace != nil { throw RequestError("--project and --workspace: give one") }
            for (flag, path) in [("--project", project), ("--workspace", workspace)] {
                if let path, !safe(path) || path.contains(" ") {
                    throw RequestError("\(flag) '\(path)': a path relative to the repository, without spaces")
                }
            }
            self.scheme = scheme
            self.destination = destination
            container = project.map { ["-project", $0] } ?? workspace.map { ["-workspace", $0] } ?? []
        }
    }

    public let ci: CI
    /// The store's root: `<store>/feature` and `<store>/develop` (a folder, relative to the
    /// repository, or `s3://bucket/prefix`).
    public let store: StoreAddress
    /// Where feature's and develop's references are below the store (`feature`, `develop`; a
    /// team's own layout: `ios/feature/__Snapshots__`).
    public let layout: (feature: String, develop: String)
    public let region: String?
    /// Where the region came from: `--region`, `AWS_REGION` or `AWS_DEFAULT_REGION` (nil: none).
    public let regionSource: String?
    public let endpoint: String?
    /// How each job gets its own store credentials (`StoreCredentials`).
    public let credentials: StoreCredentials
    /// CI machines sharing each run (1: one job runs the pipeline).
    public let nodes: Int
    public let mergeStyle: MergeStyle
    /// The branch pull requests merge into.
    public let base: String
    /// The release CI installs.
    public let version: String
    /// The app xcodebuild tests, for a team that does not test with SwiftPM.
    public let xcode: XcodeApp?
    /// The Swift the Linux jobs that build run (its official image).
    public let swift: SwiftToolchain
    /// The Xcode the macOS jobs select, for an app tested with xcodebuild.
    public let xcodeVersion: XcodeChoice
    /// The GitHub action that installs the release (`OWNER/REPO@REF`): the repository that
    /// publishes pipeline's releases, or the team's fork of it.
    public let action: String
    /// Where the install step finds releases (`<releases>/v<version>/<tarball>`), when not the
    /// action's repository's GitHub releases.
    public let releases: String?

    /// Checks the flags; each problem is one line naming the flag.
    public init(
        ci: CI, store text: String, layout: (feature: String, develop: String) = ("feature", "develop"),
        region: String? = nil, endpoint: String? = nil, nodes: Int = 1,
        mergeStyle: MergeStyle = .merge, base: String = "develop", version: String, swift: SwiftToolchain,
        xcode: XcodeApp? = nil, xcodeVersion: XcodeChoice? = nil, action: String? = nil, releases: String? = nil,
        credentials: StoreCredentials = .keys, variables: [String: String] = [:]
    ) throws(RequestError) {
        guard let store = StoreAddress(parsing: text), !text.isEmpty, text != "s3://", !text.hasPrefix("s3:///") else {
            throw RequestError("--store \(text): a folder (such as .pipeline/storage) or s3://bucket/prefix")
        }
        if case .folder = store, region != nil || endpoint != nil || credentials != .keys {
            throw RequestError(
                "--region, --endpoint and --aws-role-… go with an s3:// store, not the folder \(text)")
        }
        // The region of an S3 store: the flag, else the one the shell init runs in names.
        var regionSource = region.map { _ in "--region" }
        var region = region
        if case .s3 = store, region == nil {
            for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
                if let value = variables[name], !value.isEmpty {
                    (region, regionSource) = (value, name)
                    break
                }
            }
        }
        if let region, region.isEmpty || !region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        {
            throw RequestError("--region '\(region)': an S3 region, such as eu-west-1")
        }
        if case .roles = credentials {
            guard ci == .github else {
                throw RequestError(
                    "--aws-role-pull-request and --aws-role-develop are GitHub's OIDC roles: --ci github "
                        + "(Bitrise and GitLab read two stored keys, docs/ci.md#each-ci-gives-each-job-its-own-credentials)"
                )
            }
            guard region != nil else {
                throw RequestError(
                    "--aws-role-pull-request and --aws-role-develop: the roles are assumed in a region; pass --region")
            }
        }
        guard (1...64).contains(nodes) else { throw RequestError("--nodes \(nodes): from 1 to 64 machines") }
        guard !base.isEmpty, base.allSatisfy({ $0.isLetter || $0.isNumber || "-_./".contains($0) }) else {
            throw RequestError("--base '\(base)': a branch name such as develop or main")
        }
        for (flag, path) in [("--feature", layout.feature), ("--develop", layout.develop)] {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("://"),
                segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
                path.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_./".contains($0)) })
            else {
                throw RequestError(
                    "\(flag) \(path): a path below --store, such as ios/feature/\(SnapshotFile.folderName)")
            }
        }
        guard layout.feature != layout.develop, !layout.feature.hasPrefix(layout.develop + "/"),
            !layout.develop.hasPrefix(layout.feature + "/")
        else {
            throw RequestError(
                "--feature \(layout.feature) and --develop \(layout.develop): two separate places, neither inside the other"
            )
        }
        self.ci = ci
        self.store = store
        self.layout = layout
        self.region = region
        self.regionSource = regionSource
        self.endpoint = endpoint
        self.credentials = credentials
        self.nodes = nodes
        self.mergeStyle = mergeStyle
        self.base = base
        self.version = version
        if xcode != nil, ci == .gitlab {
            throw RequestError(
                "--xcode writes GitHub Actions' and Bitrise's workflows (macOS runners): --ci github or bitrise")
        }
        self.xcode = xcode
        self.swift = swift
        if let xcodeVersion {
            self.xcodeVersion = xcodeVersion
        } else {
            self.xcodeVersion = try XcodeChoice.choose(flag: nil, installed: nil)
        }
        let action = action ?? "\(Self.defaultActionRepository)@v\(version)"
        let parts = action.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].split(separator: "/").count == 2, !parts[1].isEmpty,
            action.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_./@".contains($0)) })
        else {
            throw RequestError("--action \(action): the action's repository and ref, such as acme/pipeline@v\(version)")
        }
        self.action = action
        if let releases, !(releases.hasPrefix("https://") || releases.hasPrefix("http://")) || releases.contains(" ") {
            throw RequestError(
                "--releases \(releases): an http(s) address, such as https://example.com/pipeline/releases")
        }
        self.releases = releases
    }

    /// The flags that make this request again, as `pipeline init` takes them (what `--update` reads
    /// back from the files' first line): every value given, defaults left out; the Swift and Xcode
    /// versions only where a flag chose them (otherwise found again, as at first).
    var flags: [String] {
        var words = ["--ci", ci.rawValue, "--store", store.description]
        func add(_ flag: String, _ value: String?, unless fallback: String? = nil) {
            if let value, value != fallback { words += [flag, value] }
        }
        add("--region", region)
        add("--endpoint", endpoint)
        if case .roles(let pullRequest, let develop) = credentials {
            words += ["--aws-role-pull-request", pullRequest, "--aws-role-develop", develop]
        }
        add("--feature", layout.feature, unless: "feature")
        add("--develop", layout.develop, unless: "develop")
        add("--nodes", "\(nodes)", unless: "1")
        add("--merge-style", mergeStyle.rawValue, unless: MergeStyle.merge.rawValue)
        add("--base", base, unless: "develop")
        add("--swift-version", swift.source == "--swift-version" ? swift.version : nil)
        if let xcode {
            words +=
                ["--xcode", "--scheme", xcode.scheme, "--destination", xcode.destination]
                + xcode.container.map {
                    $0 == "-project" ? "--project" : $0 == "-workspace" ? "--workspace" : $0
                }
            add("--xcode-version", xcodeVersion.source == "--xcode-version" ? xcodeVersion.version : nil)
        }
        add("--action", actionIsPlaceholder ? nil : action)
        add("--releases", releases)
        return words
    }

    /// The action named when `--action` is not given: a placeholder the team edits (init says so).
    static let defaultActionRepository = "your-org/pipeline"

    /// Whether the action is still the placeholder.
    var actionIsPlaceholder: Bool { action.hasPrefix(Self.defaultActionRepository + "@") }

    /// Whether references live in a folder: on a hosted runner, gone when the job ends.
    var usesFolder: Bool { !usesS3 }

    var usesS3: Bool {
        if case .s3 = store { return true }
        return false
    }

    func address(_ role: String) -> String {
        switch store {
        case .folder(let path): (path.hasSuffix("/") ? path : path + "/") + role
        case .s3(let bucket, let prefix): "s3://\(bucket)/" + (prefix.isEmpty ? "" : prefix + "/") + role
        }
    }

    /// Where feature's and develop's references are, as the specs name them.
    public var referenceAddresses: (feature: String, develop: String) {
        (address(layout.feature), address(layout.develop))
    }

    /// Where builds are kept (`<store>/build-cache`): a node restores the nearest ancestor's, a
    /// CI run's build job keeps the test products its nodes run.
    var buildCache: String { address("build-cache") }

    /// The build cache as a word of a shell command line.
    var buildCacheWord: String { Self.word(buildCache) }

    /// Where a shared run's nodes keep and find verdicts (`--reuse-verdicts`): feature, which a pull
    /// request's jobs write, as a word of a shell command line.
    var verdictsWord: String { Self.word(address(layout.feature)) }

    /// `text` as a word of a shell command line: bare when it is made of safe characters, else
    /// single-quoted.
    static func word(_ text: String) -> String {
        let safe = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/:-+=@".contains($0)) }
        return safe ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
