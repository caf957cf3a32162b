import Foundation
import ImageDiff
import PipelineSpec
import TestCore
import XcodeResults

@testable import Coverage
@testable import GitChanges
@testable import ObjectStorage
@testable import References
@testable import TestImpact

/// Every reader of outside input, as a function of bytes that must never crash, hang or trip a
/// sanitizer, whatever the bytes: what `scripts/fuzz.sh` runs under libFuzzer, and what
/// `FuzzCorpusTests` replays over the committed corpus (`Fuzz/corpus/<target>/`).
public enum FuzzTargets {
    public typealias Target = @Sendable (Data) -> Void

    public static let all: [(name: String, run: Target)] = [
        ("spec", { _ = try? SpecLoader.parse(text($0), file: "fuzz.yml", fileStem: "fuzz") }),
        ("quarantine", { _ = try? QuarantineLoader.parse(text($0), file: "quarantine.yml") }),
        (
            "swift-lexer",
            { data in
                let source = text(data)
                _ = SwiftSource.scan(source)
                _ = SwiftSource.scan(source, strings: .blanked)
                _ = TestDeclarations(source)
                _ = SwiftSource(source)
            }
        ),
        (
            "swift-change",
            { data in
                // Two versions of a file, split at the first NUL byte.
                let parts = data.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
                _ = SwiftChange.kind(old: text(parts.first ?? Data()), new: parts.count > 1 ? text(parts[1]) : nil)
            }
        ),
        (
            "compilation-conditions",
            { data in
                let conditions = CompilationConditions(os: "linux", arch: "x86_64", debug: true, namedFlags: ["FLAG"])
                _ = conditions.active(text(data))
            }
        ),
        ("s3-listing", { _ = ListingParser.parse($0) }),
        ("s3-error", { _ = ErrorParser.parse($0) }),
        ("push-record", { _ = try? JSONDecoder().decode(PushManifest.self, from: $0) }),
        (
            "branch-change",
            { data in
                // A branch's kept change, matched against itself and its own commits as a merge would.
                guard let change = try? JSONDecoder().decode(BranchChange.self, from: data) else { return }
                _ = change.change.isContained(in: change.change)
                for step in change.commits { _ = step.change.isContained(in: change.change) }
            }
        ),
        (
            "line-change",
            { data in
                // Two versions of a file, split at the first 0xFF byte (NUL makes a file binary).
                let parts = data.split(separator: 0xFF, maxSplits: 1, omittingEmptySubsequences: false)
                let change = ChangeIdentity.textChange(
                    old: Array(parts.first ?? Data()), new: Array(parts.last ?? Data()))
                _ = ChangeIdentity(files: ["f": change]).isContained(in: ChangeIdentity(files: ["f": change]))
            }
        ),
        ("promotion-ledger", { _ = try? JSONDecoder().decode(PromotionLedger.Entry.self, from: $0) }),
        ("candidate-record", { _ = try? JSONDecoder().decode(CandidateRun.self, from: $0) }),
        ("impact-map", { _ = try? ImpactMap.decode($0, name: "fuzz") }),
        ("timings", { _ = try? Timings.decode($0, origin: "fuzz") }),
        ("test-report", { _ = try? TestReport.decode($0, origin: "fuzz") }),
        ("lcov", { _ = try? LineCoverage.parse(lcov: text($0), name: "fuzz") }),
        ("profile-listing", { _ = ImpactProfiles.executedFunctions(in: text($0)) }),
        (
            "png",
            { data in
                let file = scratch.appendingPathComponent("fuzz-\(getpid()).png")
                guard (try? data.write(to: file)) != nil else { return }
                _ = try? PNG.read(file)
            }
        ),
        ("xcresult", { _ = try? XCResultReader.read($0, origin: "fuzz") }),
        ("xcodebuild-log", { _ = try? XcodebuildLogReader.read($0, origin: "fuzz") }),
        ("test-enumeration", { _ = try? TestEnumeration.read($0, origin: "fuzz") }),
    ]

    public static func named(_ name: String) -> Target? { all.first { $0.name == name }?.run }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Files a target must write to read (libpng reads files): in memory when the machine has it.
    static let scratch: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm")
        return FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    }()
}
