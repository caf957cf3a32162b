import Foundation
import ObjectStorage
import Testing

/// `pipeline test --queue` and `pipeline report --queue` on the example package: several node
/// processes sharing one store (a folder, moto's S3, OpenStack Swift's s3api), as CI machines would.
/// scripts/test.sh runs it after the other suites (their timing tests would feel its processes),
/// so it is alone with the example package's folder.
@Suite("pipeline test --queue: CI nodes sharing a run through the store", .serialized)
struct SharedRunCommandTests {
    let package = ExamplePackage.root
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try ExamplePackage.buildOnce()
    }

    private func report(_ result: PipelineBinary.Result) throws -> [String: [String: Any]] {
        try ExamplePackage.report(result)
    }

    /// Where a shared run keeps its timings and queue, and the environment reaching it.
    struct SharedStore {
        let location: String
        let environment: [String: String]

        static func folder(in scratch: URL) -> SharedStore {
            SharedStore(
                location: scratch.appendingPathComponent("store/timings.json").path, environment: ["CI": "true"])
        }

        /// A fresh bucket on the S3 server at `variable`, with that server's credentials.
        static func s3(_ variable: String, key: String, secret: String) async throws -> SharedStore? {
            guard let endpoint = ProcessInfo.processInfo.environment[variable].flatMap(URL.init(string:)) else {
                return nil
            }
            let bucket = "ci-\(UUID().uuidString.prefix(18).lowercased())"
            try await S3Store(
                S3Settings(
                    endpoint: endpoint, bucket: bucket, credentials: AWSCredentials(accessKey: key, secret: secret))
            )
            .createBucket()
            return SharedStore(
                location: "s3://\(bucket)/team",
                environment: [
                    "CI": "true", "AWS_ENDPOINT_URL_S3": endpoint.absoluteString, "AWS_ACCESS_KEY_ID": key,
                    "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
                ])
        }
    }

    private func node(
        _ node: String, _ store: SharedStore, run: String, _ extra: [String] = [],
        environment: [String: String] = [:]
    ) throws -> PipelineBinary.Running {
        try PipelineBinary.start(
            [
                "test", "--package-path", package.path, "--skip-build", "--shards", "1", "--json",
                "--timings", store.location, "--node", node, "--queue", run,
            ] + extra,
            in: scratch, environment: store.environment.merging(environment) { $1 })
    }

    private func names(_ result: PipelineBinary.Result) throws -> [String] {
        result.stdout.isEmpty ? [] : try report(result).keys.sorted()
    }

    @Test(
        "three nodes share one queue: every test runs once, the report merges them, a re-run node repeats its batches")
    func queue() async throws {
        let motoStore = try await SharedStore.s3("PIPELINE_TEST_MOTO_ENDPOINT", key: "test", secret: "test")
        for store in [SharedStore.folder(in: scratch)] + (motoStore.map { [$0] } ?? []) {
            let nodes = try (1...3).map { try node("\($0)/3", store, run: "run-7") }
            let results = try nodes.map { try $0.wait() }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let perNode = try results.map(names)
            #expect(perNode.flatMap { $0 }.sorted() == Set(perNode.flatMap { $0 }).sorted(), "no test ran on two nodes")
            #expect(perNode.flatMap { $0 }.count == ExamplePackage.testCount)
            #expect(results.contains { $0.stderr.contains("Queue ") && $0.stderr.contains("pipeline-runs/run-7/") })

            let junit = scratch.appendingPathComponent("all.xml")
            let merged = try PipelineBinary.run(
                ["report", "--timings", store.location, "--queue", "run-7", "--junit", junit.path, "--json"],
                in: scratch, environment: store.environment)
            #expect(merged.status == 0, "\(merged.stderr)")
            let tests = try report(merged)
            #expect(tests.count == ExamplePackage.testCount)
            #expect(tests.values.allSatisfy { $0["status"] as? String == "passed" })
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.components(separatedBy: "<testcase ").count - 1 == ExamplePackage.testCount)

            // The CI job of the node that ran most is re-run: the same batches, not a new share.
            let busiest = perNode.indices.max { perNode[$0].count < perNode[$1].count }!
            let again = try node("\(busiest + 1)/3", store, run: "run-7").wait()
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try names(again) == perNode[busiest])
            #expect(again.stderr.contains("runs again the"), "\(again.stderr)")
            #expect(
                try PipelineBinary.run(
                    ["report", "--timings", store.location, "--queue", "run-7"], in: scratch,
                    environment: store.environment
                ).status == 0)
        }
    }

    /// Timings giving each test of the example 10 ms: the plan is one batch, so a claim's lease
    /// (three times the batch's expected time, plus --queue-lease) is under a second.
    private func tinyTimings(_ store: SharedStore) throws {
        let names = try ExamplePackage.test(["--list"], scratch: scratch).stdout.split(separator: "\n")
        let entries = names.map { "\"\($0)\": {\"samples\": 1, \"seconds\": 0.01}" }.joined(separator: ", ")
        let file = URL(fileURLWithPath: store.location)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"version\": 1, \"tests\": {\(entries)}}".utf8).write(to: file)
    }

    @Test(
        "a re-run CI job on a fresh machine: --failed reads its node's last report from the store the timings are kept in"
    )
    func failedFromStore() async throws {
        let store = try #require(
            try await SharedStore.s3("PIPELINE_TEST_S3_ENDPOINT", key: "test:tester", secret: "testing"))
        let lastRun = package.appendingPathComponent(".build/pipeline/last-run.json")
        func test(_ arguments: [String], _ environment: [String: String]) throws -> PipelineBinary.Result {
            try PipelineBinary.run(
                ["test", "--package-path", package.path, "--skip-build", "--timings", store.location, "--json"]
                    + arguments,
                in: scratch, environment: store.environment.merging(environment) { $1 })
        }
        let first = try test([], ["GITHUB_RUN_ID": "4711", "EXAMPLE_FAIL": "1"])
        #expect(first.status == 1, "\(first.stderr)")
        let failed = try report(first).filter { $0.value["status"] as? String == "failed" }.map(\.key)
        #expect(failed == ["ExampleKitTests.ThumbnailTests/testFailsWhenAsked"])

        try FileManager.default.removeItem(at: lastRun)
        let again = try test(["--failed"], ["GITHUB_RUN_ID": "4711"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try names(again) == failed)
        #expect(again.stderr.contains("Running the 1 test that did not pass last time"), "\(again.stderr)")

        try FileManager.default.removeItem(at: lastRun)
        let done = try test(["--failed"], ["GITHUB_RUN_ID": "4711"])
        #expect(
            done.stdout.contains("/team/pipeline-runs/4711/last-run/node-1-of-1.json: 1 passed, 0 failed"),
            "\(done.stdout)")
        #expect(!FileManager.default.fileExists(atPath: lastRun.path), "a run with nothing to run leaves no report")
        let otherRun = try test(["--failed"], ["GITHUB_RUN_ID": "4712"])
        #expect(otherRun.status == 2, "another CI run has no copy, and this machine none either")
        #expect(otherRun.stderr.contains("no such file; run the tests once without --failed"), "\(otherRun.stderr)")
    }

    @Test(
        "a node killed mid-batch: another node takes its batch over when the lease runs out, and each test is reported once"
    )
    func killedNode() throws {
        let store = SharedStore.folder(in: scratch)
        try tinyTimings(store)
        let lease = ["--queue-lease", "0s", "--clock-skew", "0s"]
        let slow = try node("1/2", store, run: "k", lease, environment: ["EXAMPLE_TIME_SCALE": "40"])
        #expect(slow.waitFor("Batch 1 of 1"), "\(slow.stderr)")
        kill(slow.process.processIdentifier, SIGKILL)
        // Its test processes live on (they are in their own process groups); end them as the CI runner would.
        let product = package.appendingPathComponent(ExamplePackage.productPath).path
        ExamplePackage.processes(named: product).forEach { kill(pid_t($0)!, SIGKILL) }

        let survivor = try node("2/2", store, run: "k", lease).wait()
        #expect(survivor.status == 0, "\(survivor.stderr)")
        #expect(survivor.stderr.contains("taken over from node 1/2, whose lease ran out"), "\(survivor.stderr)")
        #expect(try names(survivor).count == ExamplePackage.testCount)
        let merged = try PipelineBinary.run(
            ["report", "--timings", store.location, "--queue", "k", "--json"], in: scratch)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try report(merged).count == ExamplePackage.testCount)
        #expect(
            try report(merged).values.allSatisfy {
                $0["takenOverFrom"] as? String == "1/2" && $0["attempts"] as? Int == 2
            },
            "each test reported once, marked as a retry of the killed node's batch")
    }

    @Test("a node whose batch runs far longer than planned renews its claim: no other node takes a live node's batch")
    func renewedLease() throws {
        let store = SharedStore.folder(in: scratch)
        try tinyTimings(store)
        // Planned at 0.01 s a test, the one batch's lease is about one second; it runs for several.
        let lease = ["--queue-lease", "1s", "--clock-skew", "0s"]
        let slow = try node("1/2", store, run: "live", lease)
        #expect(slow.waitFor("Batch 1 of 1"), "\(slow.stderr)")
        let junit = scratch.appendingPathComponent("node-2.xml")
        let other = try node("2/2", store, run: "live", lease + ["--junit", junit.path]).wait()
        let first = try slow.wait()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(!other.stderr.contains("taken over from"), "\(other.stderr)")
        #expect(other.stderr.contains("ran no batch"), "\(other.stderr)")
        let empty = try String(contentsOf: junit, encoding: .utf8)
        #expect(empty.contains("tests=\"0\""), "a node that ran no batch writes an empty JUnit file: \(empty)")
        #expect(try names(first).count == ExamplePackage.testCount)
    }

    @Test("a claim written by hand with garbage is taken over; a run id reused for another suite is refused")
    func garbageAndReuse() throws {
        let store = SharedStore.folder(in: scratch)
        try tinyTimings(store)
        let claims = scratch.appendingPathComponent("store/pipeline-runs/g/claims")
        try FileManager.default.createDirectory(at: claims, withIntermediateDirectories: true)
        try Data("{\"node\": 3".utf8).write(to: claims.appendingPathComponent("batch-0000.json"))
        let result = try node("1/1", store, run: "g").wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("its claim object was unreadable, so it was taken over"), "\(result.stderr)")
        #expect(try names(result).count == ExamplePackage.testCount)

        let reused = try node("1/1", store, run: "g", ["--filter", "Badge"]).wait()
        #expect(reused.status == 2)
        #expect(
            reused.stderr.contains("error: the queue 'g' already holds a plan of \(ExamplePackage.testCount) tests"),
            "\(reused.stderr)")
        #expect(reused.stderr.contains("pass a fresh --queue"))

        let unknown = try PipelineBinary.run(["report", "--timings", store.location, "--queue", "nope"], in: scratch)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no queue 'nope'"), "\(unknown.stderr)")
        let noID = try PipelineBinary.run(
            ["report", "--timings", store.location, "--queue"], in: scratch,
            environment: [
                "GITHUB_RUN_ID": "", "BITRISE_BUILD_NUMBER": "", "BUILDKITE_BUILD_ID": "",
                "CI_PIPELINE_ID": "",
            ])
        #expect(noID.status == 2)
        #expect(noID.stderr.contains("--queue needs a run id: none of GITHUB_RUN_ID"), "\(noID.stderr)")
        let fromCI = try PipelineBinary.run(
            ["report", "--timings", store.location, "--queue", "--json"], in: scratch,
            environment: ["GITHUB_RUN_ID": "g"])
        #expect(fromCI.status == 0, "--queue alone takes GITHUB_RUN_ID: \(fromCI.stderr)")
    }

    @Test(
        "a store that disappears mid-run: the node finishes its batch, writes its JUnit, and exits 5 naming the store")
    func storeGone() throws {
        let store = SharedStore.folder(in: scratch)
        try tinyTimings(store)
        let junit = scratch.appendingPathComponent("node.xml")
        let running = try node("1/1", store, run: "gone", ["--junit", junit.path])
        #expect(running.waitFor("Batch 1 of 1"), "\(running.stderr)")
        let folder = scratch.appendingPathComponent("store")
        try FileManager.default.removeItem(at: folder)
        try Data("not a folder".utf8).write(to: folder)
        let result = try running.wait()
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("error: ") && result.stderr.contains(folder.path), "\(result.stderr)")
        #expect(try names(result).count == ExamplePackage.testCount, "the batch it ran is reported")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == ExamplePackage.testCount)
    }

    @Test(
        "a store that cannot write conditionally (OpenStack Swift's s3api) says so once and runs the static split",
        .enabled(if: ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"] != nil))
    func staticFallback() async throws {
        let store = try #require(
            try await SharedStore.s3("PIPELINE_TEST_S3_ENDPOINT", key: "test:tester", secret: "testing"))
        var seen: [String] = []
        for index in 1...2 {
            let result = try node("\(index)/2", store, run: "s").wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.components(separatedBy: "cannot write conditionally").count - 1 == 1, "\(result.stderr)")
            #expect(result.stderr.contains("runs its part of the split planned from the timings"))
            seen += try names(result)
        }
        #expect(seen.sorted() == Set(seen).sorted() && seen.count == ExamplePackage.testCount)
    }
}
