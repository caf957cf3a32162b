import Foundation

/// How a spec's stores are reached, whichever library asks for one (references, the build cache,
/// verdicts, timings): a folder relative to `base`, or an S3 prefix through the endpoint, region and
/// credentials given, else the AWS tools' variables.
public struct StoreConnection: Sendable {
    /// Relative folder paths are relative to this (the folder holding `pipelines/`).
    public let base: URL
    /// The endpoint and region given (a spec's `references.endpoint`, `references.region`); nil
    /// reads the variables.
    public let endpoint: String?
    public let region: String?
    /// The AWS profile the credentials are read from, if any.
    public let profile: String?
    /// Plain HTTP to a host other than this machine (`allow-http: true`).
    public let allowHTTP: Bool
    /// The process's variables (the AWS tools' `AWS_*`).
    public let variables: [String: String]

    public init(
        base: URL, endpoint: String? = nil, region: String? = nil, profile: String? = nil, allowHTTP: Bool = false,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) {
        // A folder, whether or not it exists yet: relative paths go below it, not beside it.
        self.base = URL(fileURLWithPath: base.path, isDirectory: true)
        (self.endpoint, self.region, self.profile) = (endpoint, region, profile)
        (self.allowHTTP, self.variables) = (allowHTTP, variables)
    }

    /// The folder store at `path` (relative to `base`).
    public func folder(_ path: String) -> StoreLocation {
        StoreLocation(store: FolderStore(root: URL(fileURLWithPath: path, relativeTo: base)), prefix: nil)
    }

    /// The S3 store of `bucket`, at `prefix` (empty: the bucket's root).
    public func s3(bucket: String, prefix: String) throws(StoreError) -> StoreLocation {
        let store = try S3Store(
            S3Settings(
                endpoint: try resolvedEndpoint(), bucket: bucket, region: resolvedRegion,
                credentials: try AWSCredentials.resolve(profile: profile, variables: variables),
                allowHTTP: allowHTTP))
        return StoreLocation(store: store, prefix: prefix.isEmpty ? nil : try ObjectKey(prefix))
    }

    /// The region given, else `AWS_REGION` / `AWS_DEFAULT_REGION`, else us-east-1.
    public var resolvedRegion: String {
        region ?? variables["AWS_REGION"] ?? variables["AWS_DEFAULT_REGION"] ?? "us-east-1"
    }

    /// The endpoint given, else `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (as the AWS tools read
    /// them), else AWS itself.
    public func resolvedEndpoint() throws(StoreError) -> URL {
        let text =
            endpoint ?? variables["AWS_ENDPOINT_URL_S3"] ?? variables["AWS_ENDPOINT_URL"]
            ?? "https://s3.\(resolvedRegion).amazonaws.com"
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw .invalidEndpoint(text)
        }
        return url
    }
}
