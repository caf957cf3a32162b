import Foundation
import ObjectStorage
import TestSupport
import Testing

/// A pull request's job writes feature only: a shared run with `--timings develop` plans from
/// develop's timings and keeps its queue, reports and timings in feature, so a bucket policy that
/// lets pull requests read develop and write feature alone is enough.
extension SharedRunCommandTests {
    static let pullRequest = ["CI": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_RUN_ID": "pr-9"]

    /// A spec naming `feature` and `develop`, in a folder of its own.
    private func workspace(feature: String, develop: String, endpoint: URL?) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-pr-\(UUID().uuidString)")
        try Scratch.write(
            "name: pull-request\ndescription: Test a pull request.\nreferences:\n  feature: \(feature)\n"
                + "  develop: \(develop)\n" + (endpoint.map { "  endpoint: \($0.absoluteString)\n" } ?? "")
                + "stages:\n  - test:\n      shards: 1\n",
            to: folder.appendingPathComponent("pipelines/pull-request.yml"))
        return folder
    }

    /// Develop's timings: each test of the example 10 ms.
    private func developTimings() throws -> Data {
        let names = try ExamplePackage.test(["--list"], scratch: scratch).stdout.split(separator: "\n")
        let entries = names.map { "\"\($0)\": {\"samples\": 1, \"seconds\": 0.01}" }.joined(separator: ", ")
        return Data("{\"version\": 1, \"tests\": {\(entries)}}".utf8)
    }

    /// Two nodes and the report, as a pull request's matrix runs them.
    private func pullRequestRun(in folder: URL, environment: [String: String]) throws {
        let nodes = try (1...2).map { index in
            try PipelineBinary.start(
                [
                    "test", "--package-path", package.path, "--skip-build", "--shards", "1", "--json",
                    "--timings", "develop", "--node", "\(index)/2", "--queue",
                ], in: folder, environment: environment)
        }
        for result in try nodes.map({ try $0.wait() }) {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("pipeline-runs/pr-9/"), "\(result.stderr)")
        }
        let merged = try PipelineBinary.run(
            ["report", "--timings", "develop", "--queue", "--json"], in: folder, environment: environment)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try ExamplePackage.report(merged).count == ExamplePackage.testCount)
    }

    @Test("a pull request's shared run leaves develop as it was: its queue and timings go to feature (folder store)")
    func pullRequestFolder() throws {
        let folder = try workspace(feature: "store/feature", develop: "store/develop", endpoint: nil)
        defer { try? FileManager.default.removeItem(at: folder) }
        let develop = folder.appendingPathComponent("store/develop")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("store/feature"), withIntermediateDirectories: true)
        try Scratch.write(
            String(decoding: try developTimings(), as: UTF8.self),
            to: develop.appendingPathComponent("pipeline-timings.json"))
        let before = try Data(contentsOf: develop.appendingPathComponent("pipeline-timings.json"))

        try pullRequestRun(in: folder, environment: Self.pullRequest)
        #expect(try FileManager.default.contentsOfDirectory(atPath: develop.path) == ["pipeline-timings.json"])
        #expect(try Data(contentsOf: develop.appendingPathComponent("pipeline-timings.json")) == before)
        #expect(RecordFiles.scopeFolders(of: develop).isEmpty, "no record of develop's written")
        let feature = folder.appendingPathComponent("store/feature")
        #expect(RecordFiles.find("pipeline-runs/pr-9", of: feature) != nil)
        #expect(RecordFiles.find("pipeline-timings.json", of: feature) != nil)
    }

    @Test("a pull request's shared run on S3 with develop read-only (moto behind a proxy refusing develop's writes)")
    func pullRequestReadOnlyDevelop() async throws {
        guard let moto = ProcessInfo.processInfo.environment["PIPELINE_TEST_MOTO_ENDPOINT"].flatMap(URL.init(string:))
        else { return }
        let bucket = "pr-\(UUID().uuidString.prefix(18).lowercased())"
        let credentials = AWSCredentials(accessKey: "test", secret: "test")
        let direct = try S3Store(S3Settings(endpoint: moto, bucket: bucket, credentials: credentials))
        try await direct.createBucket()
        _ = try await direct.put(
            try developTimings(), to: try ObjectKey("develop/pipeline-timings.json"), condition: .always)
        let proxy = try FaultProxy(upstream: moto, faults: [], readOnly: "develop/")
        let folder = try workspace(
            feature: "s3://\(bucket)/feature", develop: "s3://\(bucket)/develop", endpoint: proxy.endpoint)
        defer { try? FileManager.default.removeItem(at: folder) }

        try pullRequestRun(
            in: folder,
            environment: Self.pullRequest.merging([
                "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
            ]) { $1 })
        #expect(!proxy.requests.contains { $0.contains("read-only") }, "no write reached develop: \(proxy.requests)")
        #expect(proxy.requests.contains { $0.hasPrefix("GET /\(bucket)/develop/pipeline-timings.json") })
        let records = try await direct.list(under: try ObjectKey(".pipeline")).map(\.key.rawValue)
        #expect(
            records.contains { $0.hasPrefix(".pipeline/") && $0.contains("/feature/pipeline-runs/pr-9/") }, "\(records)"
        )
        #expect(!records.contains { $0.hasPrefix(".pipeline/develop/") }, "no record of develop's written: \(records)")
        #expect(
            try await direct.list(under: try ObjectKey("develop")).map(\.key.rawValue) == [
                "develop/pipeline-timings.json"
            ])
    }
}
