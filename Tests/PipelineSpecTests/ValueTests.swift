import Testing

@testable import PipelineSpec

@Suite("Spec values: durations, sizes, storage, shard counts, suggestions")
struct ValueTests {
    @Test(
        "durations as people write them",
        arguments: [
            ("90s", 90_000), ("2m", 120_000), ("1h", 3_600_000), ("1h30m", 5_400_000), ("500ms", 500),
            ("1.5s", 1_500), ("2m30s", 150_000), ("-5s", -5_000), ("0s", 0),
        ] as [(String, Int64)])
    func durations(_ text: String, _ milliseconds: Int64) {
        #expect(Duration(parsingSpec: text) == .milliseconds(milliseconds))
    }

    @Test(
        "text that is not a duration",
        arguments: [
            "", "120", "s", "5x", "1.s", ".5s", "1e3s", "--5s", "5 s", "m5",
            "99999999999999h", "１s",
        ])
    func notDurations(_ text: String) {
        #expect(Duration(parsingSpec: text) == nil)
    }

    @Test(
        "durations are written back the way they are read",
        arguments: [
            "90s", "2m", "1h", "1h30m", "500ms", "1.5s", "2m30s", "-5s", "0s", "1h0m5s",
        ])
    func durationText(_ text: String) throws {
        let duration = try #require(Duration(parsingSpec: text))
        #expect(Duration(parsingSpec: duration.specText) == duration)
    }

    @Test(
        "sizes",
        arguments: [
            ("1024", 1_024), ("512KB", 512_000), ("512KiB", 524_288), ("1MB", 1_000_000), ("1.5MiB", 1_572_864),
            ("2gib", 2_147_483_648), ("10b", 10),
        ] as [(String, Int)])
    func sizes(_ text: String, _ bytes: Int) {
        #expect(ByteCount(parsing: text)?.bytes == bytes)
    }

    @Test("text that is not a size", arguments: ["", "lots", "MB", "-1MB", "1 parsec", "1.2.3KB"])
    func notSizes(_ text: String) {
        #expect(ByteCount(parsing: text) == nil)
    }

    @Test("storage locations")
    func storage() {
        #expect(StoreAddress(parsing: "s3://bucket/a/b/") == .s3(bucket: "bucket", prefix: "a/b"))
        #expect(StoreAddress(parsing: "s3://bucket") == .s3(bucket: "bucket", prefix: ""))
        #expect(StoreAddress(parsing: ".pipeline/storage") == .folder(path: ".pipeline/storage"))
        #expect(StoreAddress(parsing: "https://x/y") == nil)
        #expect(StoreAddress.s3(bucket: "b", prefix: "p/q").description == "s3://b/p/q")
    }

    @Test("timings locations: a store of the spec, an S3 prefix, or a file; other URLs are refused")
    func timingsLocations() {
        #expect(TimingsAddress(parsing: "develop") == .store(.develop))
        #expect(TimingsAddress(parsing: "local") == .local)
        #expect(TimingsAddress(parsing: "./local") == .file(path: "./local"))
        #expect(TimingsAddress(parsing: "feature") == .store(.feature))
        #expect(TimingsAddress(parsing: "s3://team/ci/timings") == .s3(bucket: "team", prefix: "ci/timings"))
        #expect(TimingsAddress(parsing: ".pipeline/timings.json") == .file(path: ".pipeline/timings.json"))
        #expect(TimingsAddress(parsing: "./develop") == .file(path: "./develop"))
        #expect(TimingsAddress(parsing: "gs://team/ci") == nil)
        for text in ["local", "develop", "s3://team/ci", "a/b.json"] {
            #expect(TimingsAddress(parsing: text)?.description == text)
        }
    }

    @Test(
        "only develop's jobs write the timings and impact map kept in develop or a file; feature and an S3 prefix any job may"
    )
    func timingsWriters() {
        let developOnly = ["local", "develop", "a/b.json"].compactMap { TimingsAddress(parsing: $0) }
        #expect(developOnly.count == 3 && developOnly.allSatisfy(\.writtenByDevelopOnly))
        let anyJob = ["feature", "s3://team/ci"].compactMap { TimingsAddress(parsing: $0) }
        #expect(anyJob.count == 2 && anyJob.allSatisfy { !$0.writtenByDevelopOnly })
    }

    @Test("a test stage keeps its timings in the spec's develop store, else its feature store, unless it says where")
    func timingsPlace() {
        let both = ReferenceSettings(feature: .folder(path: "f"), develop: .s3(bucket: "team", prefix: "develop"))
        let feature = ReferenceSettings(feature: .folder(path: "f"))
        #expect(TestStage().timingsPlace(both) == .store(.develop))
        #expect(TestStage().timingsPlace(feature) == .store(.feature))
        #expect(TestStage().timingsPlace(ReferenceSettings(local: "refs")) == .local)
        #expect(TestStage().timingsPlace(nil) == .local)
        #expect(TestStage(timings: .local).timingsPlace(both) == .local)
        #expect(TestStage(timings: .file(path: "t.json")).timingsPlace(both) == .file(path: "t.json"))
    }

    @Test("shard counts")
    func shards() {
        #expect(ShardCount(parsing: "auto") == .auto)
        #expect(ShardCount(parsing: "4") == .fixed(4))
        #expect(ShardCount(parsing: "Auto") == nil)
        #expect(ShardCount(parsing: "four") == nil)
    }

    @Test("suggestions catch typos and leave unrelated words alone")
    func suggestions() {
        #expect(Suggestion.closest(to: "timout", in: ["timeout", "retries"]) == "timeout")
        #expect(Suggestion.closest(to: "tset", in: ["test", "promote"]) == "test")
        #expect(Suggestion.closest(to: "deploy", in: ["test", "promote"]) == nil)
        #expect(Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.distance("", "abc") == 3)
    }

    @Test("key paths read as people write them")
    func keyPaths() {
        let path = SpecKeyPath.root.appending("stages").appending(index: 1).appending("test").appending("timeout")
        #expect(path.description == "stages[1].test.timeout")
        #expect(SpecKeyPath.root.isRoot)
    }
}
