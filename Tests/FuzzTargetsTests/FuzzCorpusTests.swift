import Coverage
import Foundation
import PipelineSpec
import Testing

@testable import FuzzTargets
@testable import ObjectStorage

/// Every committed seed and every input that once found a bug, through every reader it was kept
/// for (scripts/fuzz.sh runs the same targets under libFuzzer and AddressSanitizer).
@Suite("the fuzzing corpus replayed")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/corpus").standardizedFileURL

    @Test("every target has a seed corpus, and every seed goes through its target")
    func replay() throws {
        var replayed = 0
        for (name, run) in FuzzTargets.all {
            let folder = Self.corpus.appendingPathComponent(name)
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            #expect(!files.isEmpty, "\(name) has no seed")
            for file in files {
                run(try Data(contentsOf: file))
                replayed += 1
            }
        }
        #expect(replayed >= FuzzTargets.all.count)
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter {
            !$0.hasSuffix(".md")
        }
        #expect(Set(folders) == Set(FuzzTargets.all.map(\.name)), "a folder per target, a target per folder")
    }

    @Test("s3ErrorLeak: a malformed error body (found by fuzzing: libxml2's error path leaked) is read without libxml2")
    func s3ErrorLeak() throws {
        let input = try Data(contentsOf: Self.corpus.appendingPathComponent("s3-error/s3ErrorLeak.xml"))
        #expect(ErrorParser.parse(input)?.code == "SignatureDoesNotMatch")
    }

    @Test(
        "specAliasKeyHang: an alias as a mapping key (found by fuzzing: Yams hashed the whole aliased tree) is refused before YAML is composed"
    )
    func specAliasKeyHang() throws {
        let input = String(
            decoding: try Data(contentsOf: Self.corpus.appendingPathComponent("spec/specAliasKeyHang.yml")),
            as: UTF8.self)
        #expect {
            try SpecLoader.parse(input, file: "hang.yml", fileStem: "hang")
        } throws: { "\($0)".contains("hang.yml:2:4: anchors (&a) and aliases are not supported") }
        // A `&` that starts no node is text; quoted, it is text too.
        let plain = "name: p\ndescription: fish &chips, 'salt & vinegar'\nstages: [\"&x\"]\n"
        do {
            _ = try SpecLoader.parse(plain, file: "p.yml", fileStem: "p")
        } catch {
            #expect(!"\(error)".contains("anchors"), "\(error)")
        }
        for anchored in ["a: &x 1\n", "- &x 1\n", "a: [1, &x 2]\n", "&x a: 1\n", "a: {b: &x 1}\n"] {
            #expect {
                try SpecLoader.parse(anchored, file: "a.yml", fileStem: "a")
            } throws: { "\($0)".contains("anchors (&x") }
        }
    }

    @Test(
        "lcovLineOverflow: a line number past Int's range (found by fuzzing: a trap) is an error naming the file and line"
    )
    func lcovLineOverflow() throws {
        let input = String(
            decoding: try Data(contentsOf: Self.corpus.appendingPathComponent("lcov/lcovLineOverflow.info")),
            as: UTF8.self)
        #expect {
            try LineCoverage.parse(lcov: input, name: "fuzz.info")
        } throws: { "\($0)".contains("fuzz.info:3") && "\($0)".contains("out of range") }
        #expect(throws: CoverageError.self) {
            try LineCoverage.parse(lcov: "SF:a.swift\nDA:99999999999999999999,1\nend_of_record\n", name: "x")
        }
    }

    @Test(
        "S3's XML: entities, CDATA, quoted '>' in attributes, namespace prefixes, self-closing tags; malformed input ends early"
    )
    func xml() {
        let listing = Data(
            """
            <?xml version="1.0"?><!-- a comment --><s3:ListBucketResult xmlns:s3="x" note="a>b">\
            <Contents><Key>Login &amp; Logout/a&#x2F;b&#47;&lt;c&gt;.png</Key><ETag>&quot;abc&quot;</ETag>\
            <Size>12</Size><Owner/></Contents><Contents><Key><![CDATA[raw <key>]]></Key></Contents>\
            <IsTruncated>true</IsTruncated><NextContinuationToken>t&bogus;</NextContinuationToken></s3:ListBucketResult>
            """.utf8)
        let page = ListingParser.parse(listing)
        #expect(page.objects.map(\.key) == ["Login & Logout/a/b/<c>.png", "raw <key>"])
        #expect(page.objects.first?.etag == "abc" && page.objects.first?.size == 12)
        #expect(page.isTruncated && page.nextToken == "t&bogus;")
        for cut in ["<Error><Code>X", "<Error", "<!-- never ends", "<![CDATA[", "<Error><Code a='>"] {
            _ = ErrorParser.parse(Data(cut.utf8))
            _ = ListingParser.parse(Data(cut.utf8))
        }
        #expect(
            ErrorParser.parse(Data("<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>".utf8))! == (
                "NoSuchKey", "gone"
            ))
        #expect(ErrorParser.parse(Data()) == nil && ErrorParser.parse(Data("<html>".utf8)) == nil)
    }
}
