import Foundation
import Testing

@testable import PipelineSpec

@Suite("Valid specs")
struct ValidSpecTests {
    @Test("each valid fixture loads, and writing it back reads to the same pipeline", arguments: Fixtures.valid)
    func roundTrip(_ url: URL) throws {
        let spec = try Fixtures.load(url)
        let name = url.deletingPathExtension().lastPathComponent
        let written = SpecWriter.yaml(spec)
        #expect(try Fixtures.parse(written, name: name) == spec)
        // Writing is stable: the second write is the same text.
        #expect(SpecWriter.yaml(try Fixtures.parse(written, name: name)) == written)
    }

    @Test("the issue's example spec reads to the expected values")
    func postMerge() throws {
        let spec = try Fixtures.load(Fixtures.root.appendingPathComponent("valid/post-merge.yml"))
        #expect(
            spec
                == PipelineSpec(
                    name: "post-merge",
                    description:
                        "After a merge into develop, test in shards and promote the changed tests' references.",
                    changes: ChangeSettings(compare: .merge, tests: "*Tests"),
                    references: ReferenceSettings(
                        local: "Tests/__Snapshots__",
                        feature: .folder(path: ".pipeline/storage/feature"),
                        develop: .folder(path: ".pipeline/storage/develop")),
                    stages: [
                        .test(TestStage(shards: .auto, timeout: .seconds(120), retries: 1)),
                        .promote(PromoteStage(from: .feature, to: .develop, prune: false)),
                    ]))
    }

    @Test("every setting is read, none silently left at its default")
    func everything() throws {
        let spec = try Fixtures.load(Fixtures.root.appendingPathComponent("valid/everything.yml"))
        #expect(spec.description == "Every setting: quoted, with a colon and # not a comment")
        #expect(
            spec.changes == ChangeSettings(compare: .mergeBase, tests: "*Spec?", base: "origin/develop", head: "HEAD~2")
        )
        var references = ReferenceSettings(
            local: "Tests/参照 画像", feature: .s3(bucket: "team-refs", prefix: "snapshots/feature"),
            develop: .s3(bucket: "team-refs", prefix: "snapshots/develop"), endpoint: "http://127.0.0.1:8080",
            region: "eu-west-1", profile: "ci", allowHTTP: false, environment: "{os}-{os-version}-{arch}",
            fallback: ["macos-arm64", "linux-x86_64"])
        references.reviewURL = "https://team-refs.s3.eu-west-1.amazonaws.com/snapshots/feature"
        references.presignedLinks = false
        #expect(spec.references == references)
        var test = TestStage(
            shards: .fixed(8), timeout: .seconds(5_400), retries: 3, maxRetried: 10, select: .affected,
            flaky: .pass,
            timings: .file(path: ".pipeline/timings.json"), junit: "build/junit.xml",
            package: "Packages/App",
            configuration: .release, outputLimit: ByteCount(512 * 1024),
            coverage: CoverageSpec(
                minLines: Percentage(parsing: "80"), dir: "build/coverage", include: "^Packages/Shared/",
                exclude: "/Generated/"))
        test.keepsCandidates = false
        test.historyTimeout = false
        (test.verdicts, test.fullEvery) = (.reuse, 10)
        #expect(spec.stages == [.test(test), .promote(PromoteStage(from: .feature, to: .develop, prune: true))])
    }

    @Test("a stage written as a bare word takes every default")
    func bareStage() throws {
        let spec = try Fixtures.load(Fixtures.root.appendingPathComponent("valid/minimal.yml"))
        #expect(spec.stages == [.test(TestStage())])
        #expect(spec.changes == ChangeSettings())
        #expect(spec.references == nil)
    }

    @Test("this repository's own pipelines are valid")
    func repositoryPipelines() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let catalog = try PipelineCatalog.locate(from: root)
        #expect(!catalog.names().isEmpty)
        for name in catalog.names() {
            _ = try catalog.load(named: name)
        }
    }
}
