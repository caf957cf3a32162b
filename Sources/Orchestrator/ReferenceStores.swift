import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore
import SharedRun

/// The reference stores a spec's `references` names, opened: the checkout's local references,
/// and `feature` and `develop` as folders or S3 prefixes.
public struct ReferenceStores: Sendable {
    public let settings: ReferenceSettings
    /// Folder paths in the spec are relative to this: the folder holding `pipelines/`.
    public let base: URL
    /// Where `settings` came from, for messages: `pipelines/post-merge.yml`, or why there is no spec.
    public let origin: String
    let environment: [String: String]

    public init(settings: ReferenceSettings, base: URL, origin: String,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.settings = settings
        self.base = base.standardizedFileURL
        self.origin = origin
        self.environment = environment
    }

    /// The store and prefix of `feature` or `develop`.
    public func location(_ role: StoreRole) throws -> StoreLocation {
        guard let location = settings.location(of: role) else {
            throw ReferenceError.notConfigured("references.\(role.rawValue) is not set (\(origin)); "
                + "give it a folder or s3://bucket/prefix, or pass --\(role.rawValue)")
        }
        return try open(location)
    }

    /// A folder or S3 location, with the spec's endpoint, region and credentials.
    public func open(_ location: StorageLocation) throws -> StoreLocation {
        switch location {
        case .folder(let path):
            return StoreLocation(store: FolderStore(root: URL(fileURLWithPath: path, relativeTo: base)), prefix: nil)
        case .s3(let bucket, let prefix):
            let store = try S3Store(S3Settings(
                endpoint: try endpoint(), bucket: bucket, region: region,
                credentials: try AWSCredentials.resolve(profile: settings.profile, environment: environment),
                allowHTTP: settings.allowHTTP))
            return StoreLocation(store: store, prefix: prefix.isEmpty ? nil : try ObjectKey(prefix))
        }
    }

    /// Where timings are kept and shared runs meet. A file is relative to `base`.
    public func shared(_ timings: TimingsLocation) throws -> SharedPlace {
        switch timings {
        case .file(let path):
            return try SharedPlace(file: URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL)
        case .store(let role):
            return try SharedPlace(try location(role))
        case .s3(let bucket, let prefix):
            return try SharedPlace(try open(.s3(bucket: bucket, prefix: prefix)))
        }
    }

    /// The checkout's references: beside each test file, or in `references.local`.
    public func local(testPattern: String) -> LocalReferences {
        let pattern = NamePattern(testPattern)
        return LocalReferences.scan(base, folder: settings.local.map { URL(fileURLWithPath: $0, relativeTo: base) },
                                    isTest: pattern.matches)
    }

    /// The spec's region, else `AWS_REGION` / `AWS_DEFAULT_REGION`, else us-east-1.
    var region: String {
        settings.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
    }

    /// The spec's endpoint, else `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (as the AWS tools read
    /// them), else AWS itself.
    func endpoint() throws -> URL {
        let text = settings.endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
            ?? "https://s3.\(region).amazonaws.com"
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ReferenceError.notConfigured("the S3 endpoint '\(text)' is not an http(s) URL")
        }
        return url
    }
}

/// Why a reference command cannot go on. Each reads as one line.
public enum ReferenceError: Error, Equatable, CustomStringConvertible {
    /// The spec (or the flags) do not say where a store is.
    case notConfigured(String)
    /// A name given on the command line is not a test of this checkout, or has no references.
    case notATest(String, reason: String)
    /// A named test has nothing in the store it is pulled from.
    case noReferences(test: String, store: String)
    /// Develop's copies were promoted after the branch was cut; `--force` overwrites them.
    case developChanged([PromotionConflict])
    /// Some objects could not be copied or deleted; the rest were. A re-run finishes the job.
    case incomplete(failed: Int, total: Int)
    /// Overwriting needs a confirmation nobody can give.
    case needsConfirmation(String)
    /// Recording references stopped: a test failed for another reason, or wrote another test's
    /// reference. Every reference was put back as it was.
    case recordingFailed(test: String, reason: String)

    public var description: String {
        switch self {
        case .notConfigured(let message):
            message
        case .notATest(let name, let reason):
            "'\(name)' is not a test here: \(reason)"
        case .noReferences(let test, let store):
            "\(store) has no references for '\(test)'"
        case .developChanged(let conflicts):
            "\(conflicts.count) reference(s) in develop changed after this branch was cut "
                + "(first: \(conflicts[0])); re-run with --force to overwrite them"
        case .incomplete(let failed, let total):
            "\(failed) of \(total) object(s) failed; the others were done, and re-running finishes the job"
        case .needsConfirmation(let what):
            "\(what) needs confirmation: run it in a terminal, or pass --yes"
        case .recordingFailed(let test, let reason):
            "recording stopped: \(test) \(reason); every reference was put back as it was"
        }
    }
}
