import Foundation
import ObjectStorage
import SharedRun
import TestCore
import TestSharding
import TestSupport
import Testing

/// The stores coordination runs on: the folder store always; moto's S3 (which honours
/// `If-None-Match` and `If-Match`) when scripts/test.sh started it (PIPELINE_TEST_MOTO_ENDPOINT).
enum SharedStoreKind: String, CaseIterable, CustomStringConvertible {
    case folder, moto

    static let motoEndpoint = ProcessInfo.processInfo.environment["PIPELINE_TEST_MOTO_ENDPOINT"].flatMap(
        URL.init(string:))
    static var available: [SharedStoreKind] { motoEndpoint == nil ? [.folder] : [.folder, .moto] }
    var description: String { rawValue }

    func make() async throws -> any SharedStore {
        switch self {
        case .folder:
            return FolderStore(
                root: FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)"))
        case .moto:
            let store = try S3Store(
                S3Settings(
                    endpoint: Self.motoEndpoint!, bucket: "q-\(UUID().uuidString.prefix(18).lowercased())",
                    credentials: AWSCredentials(accessKey: "test", secret: "test")))
            try await store.createBucket()
            return store
        }
    }
}

func suite(_ count: Int) -> (tests: [TestID], estimates: [TestID: Double]) {
    let tests = (0..<count).map { TestID("Kit.Case\($0 / 10)/test\($0)", framework: .xctest) }
    return (tests, Dictionary(uniqueKeysWithValues: tests.enumerated().map { ($1, Double($0 % 7 + 1)) }))
}

@Suite("Conditional writes: the building block of a shared run")
struct ConditionalWriteTests {
    @Test("if-absent creates once; if-match writes only over the version read", arguments: SharedStoreKind.available)
    func conditions(kind: SharedStoreKind) async throws {
        let store = try await kind.make()
        let key = try ObjectKey("runs/claim.json")
        let first = try await store.put(Data("a".utf8), to: key, condition: .ifAbsent)
        await #expect(throws: StoreError.preconditionFailed(store: store.name, key: key.rawValue)) {
            try await store.put(Data("b".utf8), to: key, condition: .ifAbsent)
        }
        let second = try await store.put(Data("c".utf8), to: key, condition: .ifMatch(etag: first))
        await #expect(throws: StoreError.preconditionFailed(store: store.name, key: key.rawValue)) {
            try await store.put(Data("d".utf8), to: key, condition: .ifMatch(etag: first))
        }
        let stored = try #require(try await store.get(key))
        #expect(String(decoding: stored.data, as: UTF8.self) == "c")
        #expect(stored.etag == second)
        #expect(try await store.get(try ObjectKey("runs/none.json")) == nil)
    }

    @Test(
        "a conditional write whose answer was lost knows its own write on the retry; another's write is still refused",
        .enabled(if: SharedStoreKind.motoEndpoint != nil, "needs moto (scripts/test.sh starts it)"))
    func lostAnswer() async throws {
        let upstream = try #require(SharedStoreKind.motoEndpoint)
        let bucket = "l-\(UUID().uuidString.prefix(18).lowercased())"
        let credentials = AWSCredentials(accessKey: "test", secret: "test")
        try await S3Store(S3Settings(endpoint: upstream, bucket: bucket, credentials: credentials)).createBucket()
        // The server carries out each write, then the answer is lost: the client retries.
        let proxy = try FaultProxy(upstream: upstream, faults: ["lost", "pass", "pass", "lost"])
        // A stall limit no pause of a loaded machine reaches: only the lost answer makes the client
        // retry, so the requests come one after another, in the order the test names.
        let store = try S3Store(
            S3Settings(endpoint: proxy.endpoint, bucket: bucket, credentials: credentials, stallSeconds: 300))
        let key = try ObjectKey("runs/claim.json")
        let first = try await store.put(Data("a".utf8), to: key, condition: .ifAbsent)
        let puts = proxy.requests.filter { $0.hasPrefix("PUT /\(bucket)/runs/claim.json ") }
        #expect(puts.first == "PUT /\(bucket)/runs/claim.json -> lost 200", "\(proxy.requests)")
        #expect(
            puts.dropFirst().first == "PUT /\(bucket)/runs/claim.json -> 412",
            "the retry met its own write: \(proxy.requests)")
        _ = try await store.put(Data("b".utf8), to: key, condition: .ifMatch(etag: first))
        #expect(String(decoding: try #require(try await store.get(key)).data, as: UTF8.self) == "b")
        await #expect(throws: StoreError.preconditionFailed(store: store.name, key: key.rawValue)) {
            try await store.put(Data("c".utf8), to: key, condition: .ifAbsent)
        }
    }

    @Test("eight nodes folding their timings at once lose no update", arguments: SharedStoreKind.available)
    func concurrentTimings(kind: SharedStoreKind) async throws {
        let place = try TimingsPlace(store: try await kind.make(), prefix: try ObjectKey("team"))
        #expect(place.timingsKey.rawValue == "team/pipeline-timings.json")
        let timings = place.timings
        try await withThrowingTaskGroup(of: StoredTimings.Fold.self) { group in
            for node in 0..<8 {
                group.addTask {
                    try await timings.fold {
                        $0.add(TestID("Kit.T/test\(node)", framework: .xctest), seconds: Double(node))
                    }
                }
            }
            for try await fold in group { #expect(fold == .checked) }
        }
        let stored = try await timings.load()
        #expect(stored.tests.count == 8)
        #expect(stored[TestID("Kit.T/test5", framework: .xctest)] == 5)
    }

    @Test(
        "OpenStack Swift's s3api says it cannot write conditionally",
        .enabled(if: ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"] != nil))
    func unsupported() async throws {
        let endpoint = try #require(
            ProcessInfo.processInfo.environment["PIPELINE_TEST_S3_ENDPOINT"].flatMap(URL.init(string:)))
        let store = try S3Store(
            S3Settings(
                endpoint: endpoint, bucket: "c-\(UUID().uuidString.prefix(18).lowercased())",
                credentials: AWSCredentials(accessKey: "test:tester", secret: "testing")))
        try await store.createBucket()
        let key = try ObjectKey("claim.json")
        try await store.put(Data("a".utf8), to: key, condition: .always)
        let error = await #expect(throws: StoreError.self) {
            try await store.put(Data("b".utf8), to: key, condition: .ifAbsent)
        }
        guard case .conditionalWritesUnsupported(let name, let reason)? = error else {
            Issue.record("expected conditionalWritesUnsupported, got \(String(describing: error))")
            return
        }
        #expect(name == store.name)
        #expect(reason.contains("NotImplemented"), "\(reason)")
        // Timings are still kept there, the last writer winning, and the caller is told so.
        let timings = try TimingsPlace(store: store, prefix: nil).timings
        #expect(try await timings.fold { $0.add(TestID("Kit.T/a", framework: .xctest), seconds: 2) } == .lastWriterWins)
        #expect(try await timings.load()[TestID("Kit.T/a", framework: .xctest)] == 2)
    }
}

@Suite("A work queue in the store")
struct WorkQueueTests {
    @Test("the plan cuts the suite into batches, each test once, longest first, batches shrinking")
    func plan() {
        let (tests, estimates) = suite(200)
        let plan = QueuePlan(tests: tests, estimates: estimates, nodes: 4)
        #expect(plan.batches.flatMap(\.tests).sorted() == tests.sorted())
        #expect(plan.batches.map(\.index) == Array(plan.batches.indices))
        #expect(plan.batches.first!.expectedSeconds > plan.batches.last!.expectedSeconds)
        #expect(plan == QueuePlan(tests: tests.shuffled(), estimates: estimates, nodes: 4))

        // A long test does not take a second one along past the target: whoever claims the first
        // batches (perhaps the slowest node) is held up by little more than a target.
        let long = (0..<12).map { TestID("M.C/test\($0)", framework: .xctest) }
        let seconds = Dictionary(uniqueKeysWithValues: zip(long, [4.0, 3.0] + Array(repeating: 1.0, count: 10)))
        let cut = QueuePlan(tests: long, estimates: seconds, nodes: 2)
        #expect(cut.batches.prefix(2).map(\.tests.count) == [1, 1])
        #expect(cut.batches.map(\.expectedSeconds).reduce(0, +) == 17)
    }

    @Test(
        "nodes claiming at once run every batch exactly once; the first plan is everyone's",
        arguments: SharedStoreKind.available)
    func claims(kind: SharedStoreKind) async throws {
        let store = try await kind.make()
        let (tests, estimates) = suite(120)
        let claimed = try await withThrowingTaskGroup(of: [Int].self) { group in
            for index in 1...4 {
                group.addTask {
                    let queue = try WorkQueue(
                        store: store, prefix: nil, run: "run-1", node: Node(index: index, count: 4))
                    // Each node proposes a plan from its own (here: differently shuffled) view; one wins.
                    let plan = try await queue.plan(
                        proposing: QueuePlan(tests: tests.shuffled(), estimates: estimates, nodes: 4))
                    var mine: [Int] = []
                    var rerun: Set<Int> = []
                    while let batch = try await queue.claimNext(in: plan, rerunning: &rerun)?.batch {
                        mine.append(batch.index)
                        try await queue.submit(Self.report(batch), of: batch)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let queue = try WorkQueue(store: store, prefix: nil, run: "run-1", node: Node(index: 1, count: 4))
        let plan = try await queue.storedPlan()
        #expect(claimed.sorted() == Array(plan.batches.indices))
        #expect(try await queue.isFinished(plan))
        let merged = TestReport(merging: Array(try await queue.results().values), suite: tests, flakyFails: true)
        #expect(merged.passed)
        #expect(merged.summary.total == 120)
    }

    @Test(
        "a dead node's batch is taken over after its lease; garbage claims are free; a re-run repeats its own batches")
    func faults() async throws {
        let store = try await SharedStoreKind.folder.make()
        let (tests, estimates) = suite(30)
        var dead = try WorkQueue(store: store, prefix: nil, run: "r", node: Node(index: 1, count: 2))
        let plan = try await dead.plan(proposing: QueuePlan(tests: tests, estimates: estimates, nodes: 2))
        var rerun: Set<Int> = []
        let lost = try #require(try await dead.claimNext(in: plan, rerunning: &rerun)?.batch)  // …and the node dies
        try await store.put(
            Data("garbage{".utf8), to: try ObjectKey("pipeline-runs/r/claims/batch-0001.json"), condition: .always)

        var alive = try WorkQueue(store: store, prefix: nil, run: "r", node: Node(index: 2, count: 2))
        var taken: [Int] = []
        while let batch = try await alive.claimNext(in: plan, rerunning: &rerun)?.batch {
            taken.append(batch.index)
            try await alive.submit(Self.report(batch), of: batch)
        }
        #expect(!taken.contains(lost.index))  // the lease still holds
        #expect(taken.contains(1))  // the garbage claim did not
        alive.now = { Date().timeIntervalSince1970 + 3600 }  // an hour later (past lease and skew)
        let claimed = try #require(try await alive.claimNext(in: plan, rerunning: &rerun))
        #expect(claimed.takenOverFrom == "1/2")
        let takenOver = claimed.batch
        #expect(takenOver.index == lost.index)

        // Node 1's CI job is re-run: it repeats the batch it claimed before, not a new share.
        dead.now = { Date().timeIntervalSince1970 + 7200 }
        var earlier = try await dead.earlierClaims()
        #expect(earlier == [])  // node 2 holds that claim now
        try await alive.submit(Self.report(takenOver), of: takenOver)
        let again = try WorkQueue(store: store, prefix: nil, run: "r", node: Node(index: 2, count: 2))
        earlier = try await again.earlierClaims()
        #expect(earlier == Set(taken + [lost.index]))
        let first = earlier.min()
        let repeated = try #require(try await again.claimNext(in: plan, rerunning: &earlier))
        #expect(repeated.batch.index == first)
        #expect(repeated.takenOverFrom == nil)
    }

    @Test(
        "a live node renews its claim and keeps a long batch; a claim taken over cannot be renewed",
        arguments: SharedStoreKind.available)
    func renewal(kind: SharedStoreKind) async throws {
        let store = try await kind.make()
        let (tests, estimates) = suite(1)
        let start = Date().timeIntervalSince1970
        var slow = try WorkQueue(store: store, prefix: nil, run: "r", node: Node(index: 1, count: 2))
        var other = try WorkQueue(store: store, prefix: nil, run: "r", node: Node(index: 2, count: 2))
        (slow.leaseMargin, slow.clockSkew, other.leaseMargin, other.clockSkew) = (10, 0, 10, 0)
        let plan = try await slow.plan(proposing: QueuePlan(tests: tests, estimates: estimates, nodes: 1))
        #expect(plan.batches.count == 1)
        var rerun: Set<Int> = []
        let claimed = try #require(try await slow.claimNext(in: plan, rerunning: &rerun))
        let lease = claimed.leaseSeconds
        // Long after its lease would have run out, the slow node (still running) renewed it: it holds.
        slow.now = { start + lease * 0.9 }
        let renewed = try #require(try await slow.renew(claimed))
        other.now = { start + lease * 1.5 }
        #expect(try await other.claimNext(in: plan, rerunning: &rerun) == nil, "a renewed claim is not taken over")
        // Without renewals, it is.
        other.now = { start + lease * 2 }
        let taken = try #require(try await other.claimNext(in: plan, rerunning: &rerun))
        #expect(taken.takenOverFrom == "1/2")
        #expect(try await slow.renew(renewed) == nil, "the slow node learns it lost the batch")

        var report = Self.report(taken.batch)
        report.takenOver(from: "1/2")
        #expect(report.tests.allSatisfy { $0.takenOverFrom == "1/2" && $0.attempts == 2 }, "a marked retry")
    }

    @Test("a run id reused for another suite is refused, naming the run")
    func reused() async throws {
        let store = try await SharedStoreKind.folder.make()
        let queue = try WorkQueue(store: store, prefix: nil, run: "42", node: .whole)
        _ = try await queue.plan(proposing: QueuePlan(tests: suite(10).tests, estimates: [:], nodes: 1))
        await #expect(throws: QueueError.runReused(run: "42", planned: 10, here: 12)) {
            try await queue.plan(proposing: QueuePlan(tests: suite(12).tests, estimates: [:], nodes: 1))
        }
        #expect(throws: StoreError.self) { try WorkQueue(store: store, prefix: nil, run: "../x", node: .whole) }
    }

    @Test("the merged report finds missing and duplicated tests")
    func merge() {
        let (tests, _) = suite(4)
        let part = Self.report(QueuePlan.Batch(index: 0, tests: Array(tests.prefix(3)), expectedSeconds: 1))
        let twice = Self.report(QueuePlan.Batch(index: 1, tests: [tests[0]], expectedSeconds: 1))
        let merged = TestReport(merging: [part, twice], suite: tests, flakyFails: true)
        #expect(!merged.passed)
        #expect(merged.summary.missing == 1)
        #expect(merged.summary.duplicated == 1)
        #expect(merged.problems.contains("\(tests[0].name) ran in 2 batches"))
    }

    static func report(_ batch: QueuePlan.Batch) -> TestReport {
        let shard = Shard(index: 1, tests: batch.tests, expectedSeconds: batch.expectedSeconds)
        let attempts = batch.tests.map { TestAttempt(test: $0, status: .passed, seconds: 0.01) }
        return TestReport(shards: [shard], attempts: attempts, seconds: 0.1, node: .whole, flakyFails: true)
    }
}
