import Foundation
import GitChanges
import PipelineSpec
import ReferenceStore
import TestSharding

/// The reference stores a spec's `references` names, opened: the checkout's local references,
/// and `feature` and `develop` as folders or S3 prefixes.
public struct ReferenceStores: Sendable {
    public let settings: ReferenceSettings
    /// Folder paths in the spec are relative to this: the folder holding `pipelines/`.
    public let base: URL
    /// Where `settings` came from, for messages: `pipelines/post-merge.yml`, or why there is no spec.
    public let origin: String
    public let environment: [String: String]

    public init(
        settings: ReferenceSettings, base: URL, origin: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.settings = settings
        self.base = base.standardizedFileURL
        self.origin = origin
        self.environment = environment
    }

    /// The store and prefix of `feature` or `develop`.
    public func folder(_ role: StoreRole) throws -> StoreFolder {
        guard let location = settings.address(of: role) else {
            throw ReferenceError.notConfigured(
                "references.\(role.rawValue) is not set (\(origin)); "
                    + "give it a folder or s3://bucket/prefix, or pass --\(role.rawValue)")
        }
        return try open(location)
    }

    /// A folder or S3 location, with the spec's endpoint, region and credentials.
    public func open(_ location: StoreAddress) throws -> StoreFolder {
        switch location {
        case .folder(let path):
            return StoreFolder(store: FolderStore(root: URL(fileURLWithPath: path, relativeTo: base)), prefix: nil)
        case .s3(let bucket, let prefix):
            let store = try S3Store(
                S3Settings(
                    endpoint: try endpoint(), bucket: bucket, region: region,
                    credentials: try AWSCredentials.resolve(profile: settings.profile, environment: environment),
                    allowHTTP: settings.allowHTTP))
            return StoreFolder(store: store, prefix: prefix.isEmpty ? nil : try ObjectKey(prefix))
        }
    }

    /// The checkout's references: beside each test file, or in `references.local`.
    public func local(testPattern: String) -> LocalReferences {
        let pattern = NamePattern(testPattern)
        return LocalReferences.scan(
            base, folder: settings.local.map { URL(fileURLWithPath: $0, relativeTo: base) },
            isTest: pattern.matches)
    }

    /// The spec's region, else `AWS_REGION` / `AWS_DEFAULT_REGION`, else us-east-1.
    var region: String {
        settings.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
    }

    /// The spec's endpoint, else `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (as the AWS tools read
    /// them), else AWS itself.
    func endpoint() throws -> URL {
        let text =
            settings.endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
            ?? "https://s3.\(region).amazonaws.com"
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ReferenceError.notConfigured("the S3 endpoint '\(text)' is not an http(s) URL")
        }
        return url
    }

    /// Where the reference `key` (`<Test>/<file>`) was rendered, as develop (else feature) says;
    /// nil when no store is set, has it, or says.
    public func renderedOn(_ key: String) async -> RenderEnvironment? {
        guard let key = try? ObjectKey(key) else { return nil }
        for role in [StoreRole.develop, .feature] where settings.address(of: role) != nil {
            guard let folder = try? self.folder(role), let found = await RenderEnvironment.of(key, in: folder) else {
                continue
            }
            return found
        }
        return nil
    }
}
