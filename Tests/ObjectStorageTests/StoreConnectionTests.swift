import Foundation
import Testing

@testable import ObjectStorage

/// How any store a spec names is reached: the spec's settings first, then the AWS tools' variables.
@Suite("how a spec's stores are reached")
struct StoreConnectionTests {
    private let base = URL(fileURLWithPath: "/work/app")

    @Test("the endpoint given, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS in the region")
    func endpointOrder() throws {
        let variables = ["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL": "http://127.0.0.1:8000"]
        #expect(
            try StoreConnection(base: base, endpoint: "https://s3.example.com", variables: variables)
                .resolvedEndpoint().absoluteString == "https://s3.example.com")
        #expect(
            try StoreConnection(base: base, variables: variables).resolvedEndpoint().absoluteString
                == "http://127.0.0.1:9000")
        #expect(
            try StoreConnection(base: base, variables: ["AWS_ENDPOINT_URL": "http://127.0.0.1:8000"])
                .resolvedEndpoint().absoluteString == "http://127.0.0.1:8000")
        #expect(
            try StoreConnection(base: base, variables: ["AWS_DEFAULT_REGION": "eu-west-1"]).resolvedEndpoint()
                .absoluteString == "https://s3.eu-west-1.amazonaws.com")
    }

    @Test("the region given, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1")
    func regionOrder() {
        let both = ["AWS_REGION": "eu-west-2", "AWS_DEFAULT_REGION": "eu-west-1"]
        #expect(StoreConnection(base: base, region: "ap-south-1", variables: both).resolvedRegion == "ap-south-1")
        #expect(StoreConnection(base: base, variables: both).resolvedRegion == "eu-west-2")
        #expect(
            StoreConnection(base: base, variables: ["AWS_DEFAULT_REGION": "eu-west-1"]).resolvedRegion == "eu-west-1")
        #expect(StoreConnection(base: base, variables: [:]).resolvedRegion == "us-east-1")
    }

    @Test("an endpoint that is no http(s) URL is the settings' error (exit 3), naming it; no store is made")
    func invalidEndpoint() {
        let connection = StoreConnection(base: base, variables: ["AWS_ENDPOINT_URL_S3": "s3.example.com"])
        #expect(throws: StoreError.invalidEndpoint("s3.example.com")) {
            try connection.s3(bucket: "team", prefix: "develop")
        }
        #expect(StoreError.invalidEndpoint("x").exitStatus == .spec)
        #expect("\(StoreError.invalidEndpoint("ftp://x"))" == "the S3 endpoint 'ftp://x' is not an http(s) URL")
    }

    @Test("a folder path is relative to the spec's folder; an absolute one stays")
    func folders() throws {
        let relative = StoreConnection(base: base).folder("storage/develop")
        #expect((relative.store as? FolderStore)?.root.standardizedFileURL.path == "/work/app/storage/develop")
        let absolute = StoreConnection(base: base).folder("/srv/develop")
        #expect((absolute.store as? FolderStore)?.root.path == "/srv/develop")
        #expect(relative.prefix == nil)
    }
}
