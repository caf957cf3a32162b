import Foundation
import Testing

@testable import ObjectStorage

@Suite("S3 credentials are found the way the AWS tools find them")
struct CredentialsTests {
    let scratch: Scratch
    let credentialsFile: URL
    let configFile: URL

    init() throws {
        scratch = try Scratch()
        credentialsFile = scratch.url.appendingPathComponent("credentials")
        configFile = scratch.url.appendingPathComponent("config")
        try Data(
            """
            # comment
            [default]
            aws_access_key_id = DEFAULTKEY
            aws_secret_access_key = default-secret

            [snapshots]
            aws_access_key_id=SNAPKEY
            aws_secret_access_key=snap-secret
            aws_session_token = snap-token
            """.utf8
        ).write(to: credentialsFile)
        try Data(
            """
            [profile ci]
            region = eu-central-1
            aws_access_key_id = CIKEY
            aws_secret_access_key = ci-secret
            """.utf8
        ).write(to: configFile)
    }

    private var files: [String: String] {
        [
            "AWS_SHARED_CREDENTIALS_FILE": credentialsFile.path, "AWS_CONFIG_FILE": configFile.path,
            "HOME": scratch.url.path,
        ]
    }

    @Test("the environment's keys come first, with a session token")
    func environment() throws {
        let found = try AWSCredentials.resolve(
            variables: files.merging(
                ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "t"]) { $1 }
        )
        #expect(found.accessKey == "ENVKEY" && found.secret == "env-secret" && found.sessionToken == "t")
    }

    @Test("a profile named in the spec, then AWS_PROFILE, then default; credentials file, then config")
    func profiles() throws {
        let environmentKeys = ["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "env-secret"]
        let named = try AWSCredentials.resolve(profile: "snapshots", variables: files.merging(environmentKeys) { $1 })
        #expect(
            named.accessKey == "SNAPKEY" && named.sessionToken == "snap-token",
            "a spec's profile wins over the environment")
        #expect(
            try AWSCredentials.resolve(variables: files.merging(["AWS_PROFILE": "ci"]) { $1 }).accessKey == "CIKEY")
        #expect(try AWSCredentials.resolve(variables: files).accessKey == "DEFAULTKEY")
    }

    @Test("no keys anywhere: one line naming the profile, no secret")
    func missing() throws {
        #expect(
            throws: StoreError.missingCredentials(
                "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile 'nobody' keys in ~/.aws/credentials")
        ) {
            _ = try AWSCredentials.resolve(profile: "nobody", variables: files)
        }
        let found = try AWSCredentials.resolve(variables: files)
        #expect(!"\(found)".contains("default-secret"))
    }
}
