import CISystem
import Foundation
import ImageDiff
import PipelineCore
import References
import SnapshotConventions
import TestCore
import TestSharding

/// What a test run knows about swift-snapshot-testing: it sets the library's switches for the test
/// processes (failed snapshots into an artifacts folder; in CI, `SNAPSHOT_TESTING_RECORD=never`
/// unless the user chose a mode), and after the run pairs each failed snapshot with its reference,
/// names missing references, fails the tests that wrote references in CI, and writes one review
/// page of it all.
public struct SnapshotCheck: Sendable {
    public let package: URL
    /// The checkout's references: where a test file's reference folder is.
    public let local: LocalReferences
    public let inherited: [String: String]
    /// The record mode to force (`refs record` uses `all`); nil leaves the user's or CI's.
    public let forcedMode: SnapshotSwitches.RecordMode?
    /// Where the library writes failed snapshots: `<package>/.build/pipeline/snapshot-artifacts`.
    public let artifacts: URL
    /// Where the review page goes when a snapshot failed.
    public let page: URL
    /// The commit CI's renderings are kept under as candidates (a CI test stage's head); the
    /// review page then gives each failed snapshot's `pipeline refs accept` command.
    public let candidatesCommit: String?
    /// The render environment's set they are kept in (nil: the shared set).
    public let candidatesEnvironment: String?
    /// The command that accepts this run's candidates; nil when none are kept.
    package var accept: AcceptCommand? {
        candidatesCommit.map { CandidateArchive.acceptCommand(commit: $0, environment: candidatesEnvironment) }
    }
    /// Where this run renders, worked out when asked (it runs `swift --version`).
    public private(set) var renderedOn: (@Sendable () async -> RenderEnvironment)?
    /// Which set a reference (`<Test>/<file>`) comes from and where it was rendered, as the
    /// stores say; nil when unknown.
    public let referenceOrigin: (@Sendable (String) async -> ReferenceOrigin?)?

    /// `candidates`: the commit CI's renderings are kept under, and their render environment's
    /// set; nil keeps none.
    public init(
        package: URL, local: LocalReferences, page: URL? = nil, forcedMode: SnapshotSwitches.RecordMode? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment,
        renderedOn: (@Sendable () async -> RenderEnvironment)? = nil,
        referenceOrigin: (@Sendable (String) async -> ReferenceOrigin?)? = nil,
        candidates: (commit: String, environment: String?)? = nil
    ) {
        self.package = package.standardizedFileURL
        self.local = local
        self.inherited = variables
        self.forcedMode = forcedMode
        self.renderedOn = renderedOn
        self.referenceOrigin = referenceOrigin
        (candidatesCommit, candidatesEnvironment) = (candidates?.commit, candidates?.environment)
        let work = SuiteRun.workFolder(of: self.package)
        artifacts = work.appendingPathComponent("snapshot-artifacts")
        self.page = page ?? work.appendingPathComponent("snapshot-review.html")
    }

    /// The run's device, as the results of a run Xcode made name it: the render environment its
    /// renderings are kept as.
    package mutating func rendered(onDevice name: String, os: String) {
        guard let renderedOn else { return }
        self.renderedOn = {
            var environment = await renderedOn()
            (environment.device, environment.deviceOS) = (name, os.isEmpty ? nil : os)
            return environment
        }
    }

    /// The command that records a test file's references and pushes them (`RecordCommand`).
    func recordCommand(_ testFile: String) -> String {
        RecordCommand.text(testFile: testFile, package: package, variables: inherited)
    }

    /// The variables the test processes get.
    public var variables: [String: String] {
        SnapshotSwitches.environment(inherited: inherited, artifacts: artifacts, record: forcedMode)
    }

    public var mode: SnapshotSwitches.RecordMode {
        SnapshotSwitches.effectiveMode(inherited: inherited, overrides: variables)
    }

    /// Whether a failed attempt's only failures are the snapshot library's verdicts on references
    /// (a mismatch, a missing or a recorded reference): another attempt renders the same, so it is
    /// not retried. A crash, a timeout or any other assertion is retried as before.
    public static func failedOnReferences(status: TestStatus, text: [String?]) -> Bool {
        status == .failed && SnapshotMessages.onlyReferenceVerdicts(in: text.compactMap { $0 }.joined(separator: "\n"))
    }

    /// The record switch as the test processes get it, for a dry run's notes (`SNAPSHOT_TESTING_RECORD=never`).
    public var switchSetting: String { "\(SnapshotSwitches.record)=\(mode.rawValue)" }

    /// The variable a render pass of new snapshot tests adds: record only what is missing.
    public static let recordingMissing = [SnapshotSwitches.record: SnapshotSwitches.RecordMode.missing.rawValue]

    /// Whether a reference written during the run fails it: in CI, unless recording was forced.
    public var writesFail: Bool { forcedMode == nil && CIContext(inherited).isCI }

    /// Whether a CI run renders its new snapshot tests once more after its verdict, to keep their
    /// renderings as candidates: in CI with a feature store, where a missing reference records nothing.
    public var rendersNewTests: Bool { candidatesCommit != nil && forcedMode == nil && mode == .never }

    /// What a render pass of `count` new snapshot tests says before it runs, and after (`kept`).
    package static func renderingNewTests(_ count: Int) -> String {
        "Rendering \(counted(count, "new snapshot test")) for CI's candidates "
            + "(\(SnapshotSwitches.record)=missing; the verdict stays failed)\n"
    }

    package static func keptRenderings(_ kept: Int) -> String {
        "  kept \(counted(kept, "rendering")) of new snapshot tests\n"
    }

    /// The tests that failed on a missing reference.
    public func missingReferences(in report: TestReport) -> [String] {
        report.tests.filter { record in
            record.status != .passed && record.status != .skipped
                && SnapshotMessages.kinds(in: record.output ?? record.message ?? "").contains(.missingReference)
        }.map(\.name)
    }

    /// Moves the references a render pass recorded since `before` into the artifacts folder, as
    /// the library lays out a failed snapshot's new value (`<TestFile>/<file>`), so the checkout is
    /// as it was and CI keeps them as candidates: a new test's rendering is never a reference, and
    /// never passes. Returns how many were moved; one not in the library's layout is removed.
    public func keepRendered(since before: ReferenceInventory) -> Int {
        var moved = 0
        for path in ReferenceInventory.scan(package).written(since: before) {
            let url = URL(fileURLWithPath: path)
            defer { try? FileManager.default.removeItem(at: url) }
            guard before.files[path] == nil, let file = SnapshotFile(referenceAt: url) else { continue }
            let target = artifacts.appendingPathComponent(file.key)
            do {
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: url, to: target)
                moved += 1
            } catch {
                continue
            }
        }
        return moved
    }

    /// Empties the artifacts folder and takes the inventory of references: right before the tests run.
    public func begin() -> ReferenceInventory {
        try? FileManager.default.removeItem(at: artifacts)
        try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        return inventory()
    }

    /// The references in the package now: taken before each part of a run that `check` reads.
    public func inventory() -> ReferenceInventory {
        ReferenceInventory.scan(package)
    }

    /// Reads what the run left, and writes the review page when there is anything to review.
    public func finish(_ report: inout TestReport, since before: ReferenceInventory) -> SnapshotFindings {
        var findings = check(&report, since: before)
        publish(&findings, report: &report)
        return findings
    }

    /// Reads what the tests left since `before`: fails the tests that wrote references where that
    /// is not allowed, explains missing references, and pairs failed snapshots with their references.
    public func check(_ report: inout TestReport, since before: ReferenceInventory) -> SnapshotFindings {
        var findings = SnapshotFindings()
        let mentions = Dictionary(
            uniqueKeysWithValues: report.tests.map { record in
                (
                    record.name,
                    Set(
                        SnapshotMessages.files(in: (record.message ?? "") + "\n" + (record.output ?? "")).map(
                            \.standardizedFileURL.path))
                )
            })
        let written = ReferenceInventory.scan(package).written(since: before)
        for path in written {
            let url = URL(fileURLWithPath: path)
            let file = SnapshotFile(referenceAt: url)
            let writer = mentions.first { $0.value.contains(path) }?.key ?? file.flatMap { owner(of: $0, in: report) }
            var entry = ReviewEntry.comparing(
                key: file?.key ?? display(url), status: .written, reference: nil, new: url,
                comparer: ImageComparer())
            entry.testName = writer
            guard writesFail else {
                findings.recorded.append(display(url))
                findings.entries.append(entry)
                continue
            }
            var problem =
                "wrote \(display(url)) during a CI run, where references are only read (\(SnapshotSwitches.record)="
                + "\(mode.rawValue)); record it and push it: '\(recordCommand(file?.testFile ?? "TEST"))'"
            if file == nil {
                problem =
                    "wrote \(display(url)), which is not in swift-snapshot-testing's layout \(SnapshotFile.folderName)/<TestFile>/<file>"
            } else if let writer, let file, let ownFile = testFile(of: writer, in: report), ownFile != file.testFile {
                problem = "wrote a reference for another test, \(display(url)) (\(writer) belongs to \(ownFile))"
            }
            entry.message = problem
            findings.entries.append(entry)
            report.fail(writer ?? "", because: (writer.map { "\($0): " } ?? "a test ") + problem)
        }
        let failedTests = report.tests.filter { $0.status != .passed && $0.status != .skipped }
        findings.entries += artifacts(of: failedTests, mentions: mentions, report: report)
        // A missing reference: one line naming the test and folder; where CI kept its rendering
        // (a `new` card), that card carries the line and the command that accepts it.
        for record in failedTests
        where SnapshotMessages.kinds(in: record.output ?? record.message ?? "").contains(.missingReference)
            && mode == .never
        {
            if let index = findings.entries.firstIndex(where: { $0.status == .new && $0.testName == record.name }) {
                findings.entries[index].message = missing(record, report: &report, rendered: true).message
            } else {
                findings.entries.append(missing(record, report: &report, rendered: false))
            }
        }
        return findings
    }

    /// Writes the review page of `findings` when there is anything to review; its path goes into
    /// the report and into the messages of the tests it shows. A failed snapshot's test is shown in
    /// the terminal in brief: what differs from which reference, the review card, and the accept
    /// command when CI's renderings are kept; its whole message stays in the report.
    public func publish(_ findings: inout SnapshotFindings, report: inout TestReport) {
        guard !findings.entries.isEmpty else { return }
        findings.entries.sort { $0.key < $1.key }
        do {
            try ReviewPage.write(
                to: page, title: "Snapshot review", subtitle: "\(display(package)) — \(report.summaryLine)",
                entries: findings.entries, accept: accept)
        } catch {
            findings.notes.append("the review page could not be written to \(page.path): \(error.localizedDescription)")
            return
        }
        findings.page = page
        report.review = page.path
        for entry in findings.entries {
            guard let name = entry.testName, let record = report.tests.first(where: { $0.name == name }),
                record.status != .passed
            else { continue }
            let review = "review: \(page.path)#\(ReviewPage.anchor(for: entry.key))"
            if entry.status == .new {
                report.explain(name, (entry.message ?? "new snapshot test") + "\n" + review)
                report.brief(name, [entry.message ?? "new snapshot test", review])
                continue
            }
            guard entry.status == .failed else {
                if !(record.message ?? "").contains(page.path) {
                    report.explain(name, Self.headline(record.message ?? "failed") + " — " + review)
                }
                continue
            }
            if !(record.message ?? "").contains(review) {
                report.explain(name, (record.message.map { $0 + "\n" } ?? "") + review)
            }
            report.brief(
                name,
                [differs(entry)] + (entry.rendering.map { [$0] } ?? []) + [review]
                    + (accept.map { ["accept CI's rendering: " + $0.line([entry.test])] } ?? []))
        }
    }

    /// Notes on each failed snapshot's reference: with a render environment, the set it came from
    /// (and whether that set is a fallback); when it was rendered elsewhere than this run
    /// renders, where: the difference may be the machine's, not the change's; and outside CI, when
    /// develop holds another version of it than the checkout (develop moved since the last pull).
    public func compareEnvironments(_ findings: inout SnapshotFindings) async {
        guard let renderedOn, let lookup = referenceOrigin,
            findings.entries.contains(where: { $0.status == .failed })
        else { return }
        let here = await renderedOn()
        for index in findings.entries.indices where findings.entries[index].status == .failed {
            guard let origin = await lookup(findings.entries[index].key) else { continue }
            var notes = origin.note.map { [$0] } ?? []
            if let reference = origin.renderedOn, !reference.rendersLike(here) {
                notes.append("reference rendered on \(reference); this run: \(here)")
            }
            if let note = staleNote(findings.entries[index], origin: origin) { notes.append(note) }
            if !notes.isEmpty { findings.entries[index].rendering = notes.joined(separator: "; ") }
        }
    }

    /// Outside CI, for a reference develop holds another version of: the pull that brings it.
    func staleNote(_ entry: ReviewEntry, origin: ReferenceOrigin) -> String? {
        guard !CIContext(inherited).isCI,
            let path = local.path(of: entry.test, file: String(entry.key.dropFirst(entry.test.count + 1))),
            origin.developHoldsAnother(than: path)
        else { return nil }
        return "develop holds another version of this reference (it moved since your last pull): "
            + "'pipeline refs pull \(entry.test)' takes it, then run the test again"
    }
}
