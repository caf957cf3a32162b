import Foundation
import ImageDiff
import PipelineCore
import References
import SnapshotConventions
import TestCore
import TestImpact
import TestSharding

/// `pipeline refs record TEST…`: re-records the named test files' references. The one test flow
/// runs exactly their tests with `SNAPSHOT_TESTING_RECORD=all` (instead of flipping `record = true`
/// in the test code); the recorder checks the names and finds the tests' filters first, and after
/// the run says what changed and writes a review page of old against new.
///
/// It is all or nothing: every reference below the package is backed up first, and if a test
/// fails for a reason other than recording (a crash, an assertion, a timeout) or writes a
/// reference of another test, every reference is put back as it was.
public struct ReferenceRecorder: Sendable {
    public let package: URL
    public let local: LocalReferences
    public let page: URL
    public let write: @Sendable (String) -> Void

    public init(package: URL, local: LocalReferences, page: URL? = nil, write: @escaping @Sendable (String) -> Void) {
        self.package = package.standardizedFileURL
        self.local = local
        self.page = page ?? SuiteRun.workFolder(of: self.package).appendingPathComponent("record-review.html")
        self.write = write
    }

    /// The snapshot check a recording runs with: recording forced, its own review page.
    public var check: SnapshotCheck {
        SnapshotCheck(package: package, local: local, page: page, forcedMode: .all)
    }

    /// A recording under way: the tests named, the filters that select them, and the references as
    /// they were before (backed up).
    public struct Recording: Sendable {
        public let tests: [String]
        /// Regular expressions selecting exactly the named files' tests.
        public let filters: [String]
        let files: [(test: String, url: URL)]
        let before: ReferenceInventory
        let backup: URL
    }

    /// Checks the names, finds their tests' filters, and backs every reference up.
    public func begin(_ tests: [String]) throws -> Recording {
        let files = try tests.map(testFile)
        let filters = try files.flatMap(Self.filters)
        let backup = SuiteRun.workFolder(of: package).appendingPathComponent("record-backup")
        let before = ReferenceInventory.scan(package)
        try copy(Array(before.files.keys), from: package, to: backup)
        return Recording(tests: tests, filters: filters, files: files, before: before, backup: backup)
    }

    /// The package's test files whose source asserts snapshots kept as files (`refs record --all`).
    public func snapshotTests() throws -> [String] {
        let tests = local.testFilePaths.filter { name, url in
            url.path.hasPrefix(package.path + "/") && local.problem(placing: name) == nil
                && (try? String(contentsOf: url, encoding: .utf8)).map(SnapshotTestSource.keepsReferences) == true
        }.keys.sorted()
        guard !tests.isEmpty else {
            throw RequestError(
                "nothing to record: no test file in \(package.path) asserts snapshots "
                    + "(calls assertSnapshot or verifySnapshot, or imports SnapshotTesting)")
        }
        return tests
    }

    /// Puts every reference back as it was before `recording`, for a run that stopped before its end.
    public func abandon(_ recording: Recording) {
        restore(before: recording.before, after: ReferenceInventory.scan(package), backup: recording.backup)
        try? FileManager.default.removeItem(at: recording.backup)
    }

    /// After the run: every reference put back if a test failed for real or wrote another test's
    /// reference; otherwise what changed, and the review page of old against new.
    public func finish(_ recording: Recording, report: TestReport) throws -> RecordReport {
        let (before, backup, tests) = (recording.before, recording.backup, recording.tests)
        defer { try? FileManager.default.removeItem(at: backup) }
        let check = self.check
        let after = ReferenceInventory.scan(package)
        let written = after.written(since: before)
        let named = Set(tests)
        if let stray = written.first(where: {
            SnapshotFile(referenceAt: URL(fileURLWithPath: $0)).map { !named.contains($0.testFile) } ?? true
        }) {
            restore(before: before, after: after, backup: backup)
            let writer =
                report.tests.first { SnapshotMessages.files(in: $0.output ?? "").map(\.path).contains(stray) }?.name
                ?? SnapshotFile(referenceAt: URL(fileURLWithPath: stray)).flatMap { check.owner(of: $0, in: report) }
            throw ReferenceError.recordingFailed(
                test: writer ?? tests.joined(separator: ", "),
                reason: "wrote \(check.display(URL(fileURLWithPath: stray))), a reference of another test")
        }
        if let (test, reason) = Self.recordModeInCode(report, before: before, written: Set(written), check: check) {
            restore(before: before, after: after, backup: backup)
            throw ReferenceError.recordingFailed(test: test, reason: reason)
        }
        if let failure = report.tests.first(where: Self.failedForReal) {
            restore(before: before, after: after, backup: backup)
            // The first line that is not a recording says why.
            let lines = (failure.message ?? "").split(separator: "\n")
            let why = lines.first { $0.firstMatch(of: #/^\S*\.swift:\d+/#) != nil && !$0.contains("Record mode is on") }
            throw ReferenceError.recordingFailed(
                test: failure.name, reason: "\(failure.status.rawValue): " + (why ?? lines.first ?? ""))
        }

        var result = RecordReport(summary: report.summaryLine)
        var entries: [ReviewEntry] = []
        let comparer = ImageComparer()
        for file in recording.files {
            var changes = RecordReport.TestChanges(test: file.test)
            let paths = Set(before.files.keys).union(after.files.keys).filter {
                SnapshotFile(referenceAt: URL(fileURLWithPath: $0))?.testFile == file.test
            }.sorted()
            for path in paths {
                let url = URL(fileURLWithPath: path)
                let key = SnapshotFile(referenceAt: url)!.key
                let old = backup.appendingPathComponent(relative(path))
                if !written.contains(path) {
                    try? FileManager.default.removeItem(at: url)
                    changes.removed.append(key)
                    entries.append(
                        ReviewEntry.comparing(key: key, status: .removed, reference: old, new: nil, comparer: comparer))
                } else if before.files[path] == nil {
                    changes.new.append(key)
                    entries.append(
                        ReviewEntry.comparing(key: key, status: .new, reference: nil, new: url, comparer: comparer))
                } else if FileManager.default.contentsEqual(atPath: old.path, andPath: path) {
                    changes.unchanged.append(key)
                } else {
                    changes.changed.append(key)
                    entries.append(
                        ReviewEntry.comparing(key: key, status: .changed, reference: old, new: url, comparer: comparer))
                }
            }
            result.tests.append(changes)
        }
        do {
            try ReviewPage.write(
                to: page, title: "Recorded references", subtitle: tests.joined(separator: ", ") + " in \(package.path)",
                entries: entries)
            result.review = page.path
        } catch {
            write("the review page could not be written to \(page.path): \(error.localizedDescription)\n")
        }
        return result
    }

    /// A test file of the package, by name.
    private func testFile(_ name: String) throws -> (test: String, url: URL) {
        if let problem = local.problem(placing: name), local.testFiles.contains(name) {
            throw ReferenceError.notATest(name, reason: problem.description)
        }
        guard let url = local.testFilePaths[name] else {
            throw ReferenceError.notATest(name, reason: "no test file \(name).swift in \(local.checkout.path)")
        }
        guard url.path.hasPrefix(package.path + "/") else {
            throw ReferenceError.notATest(
                name, reason: "\(url.path) is not in the package at \(package.path) (--package-path)")
        }
        return (name, url)
    }

    /// Filters selecting the tests a file declares: those of the types it declares or extends
    /// (`Module.Type/…`), and its free `@Test` functions (`Module.name(…)`).
    static func filters(_ file: (test: String, url: URL)) throws -> [String] {
        guard let source = try? String(contentsOf: file.url, encoding: .utf8) else {
            throw ReferenceError.notATest(file.test, reason: "\(file.url.path) cannot be read")
        }
        let declarations = TestDeclarations(source)
        let filters =
            declarations.types.map { "^[^./]+\\.\(NSRegularExpression.escapedPattern(for: $0))(/|$)" }
            + declarations.freeFunctions.map { "^[^./]+\\.\(NSRegularExpression.escapedPattern(for: $0))\\(" }
        guard !filters.isEmpty else {
            throw ReferenceError.notATest(
                file.test, reason: "\(file.url.lastPathComponent) declares no test type or @Test function")
        }
        return filters
    }

    /// The record-switch trap: a test that asserted snapshots without recording them while
    /// recording was forced (`SNAPSHOT_TESTING_RECORD=all`), and why. Its record mode is set in
    /// code, which the variable cannot override: swift-snapshot-testing (1.17 and later) reads an
    /// explicit `record:` before it, and a helper's `record: … = false` default is `.missing`. Seen
    /// as a mismatch or a missing reference reported with nothing recorded, or as a test that
    /// passed while owning references it did not write (which would otherwise be removed).
    static func recordModeInCode(
        _ report: TestReport, before: ReferenceInventory, written: Set<String>, check: SnapshotCheck
    ) -> (test: String, reason: String)? {
        let fix =
            "its record mode is set in code, ahead of SNAPSHOT_TESTING_RECORD (a helper passing `record: false` "
            + "to assertSnapshot means .missing to swift-snapshot-testing 1.17+): give the helper "
            + "`record: SnapshotTestingConfiguration.Record? = nil` and pass it on, so the environment decides"
        for entry in report.tests {
            let kinds = SnapshotMessages.kinds(in: entry.output ?? entry.message ?? "")
            if !kinds.contains(.recorded), kinds.contains(where: { $0 == .mismatch || $0 == .missingReference }) {
                return (entry.name, "asserted a snapshot and recorded nothing: " + fix)
            }
        }
        for path in before.files.keys.sorted() where !written.contains(path) {
            guard let file = SnapshotFile(referenceAt: URL(fileURLWithPath: path)),
                let owner = check.owner(of: file, in: report),
                report.tests.contains(where: { $0.name == owner && $0.status == .passed })
            else { continue }
            return (
                owner,
                "passed without recording its reference \(file.key): " + fix
                    + "; or it no longer asserts it, and the file is to be deleted by hand"
            )
        }
        return nil
    }

    /// Whether a test failed for something other than the library's "Record mode is on" (which
    /// every recording assertion reports).
    static func failedForReal(_ record: TestReport.Entry) -> Bool {
        switch record.status {
        case .passed, .skipped: return false
        case .timedOut, .crashed, .missing: return true
        case .failed, .flaky:
            let output = record.output ?? record.message ?? ""
            let failures = output.split(separator: "\n").filter {
                $0.firstMatch(of: #/^\S*\.swift:\d+(:\d+)?: /#) != nil
            }.count
            let recorded = SnapshotMessages.kinds(in: output).filter { $0 == .recorded }.count
            return recorded == 0 || failures > recorded
        }
    }

    private func relative(_ path: String) -> String {
        String(path.dropFirst(package.path.count + 1))
    }

    private func copy(_ paths: [String], from root: URL, to backup: URL) throws {
        try? FileManager.default.removeItem(at: backup)
        for path in paths {
            let target = backup.appendingPathComponent(relative(path))
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: target.path)
        }
    }

    /// Puts every reference back as the backup has it, and removes the ones the run created.
    private func restore(before: ReferenceInventory, after: ReferenceInventory, backup: URL) {
        for path in after.written(since: before) {
            let saved = backup.appendingPathComponent(relative(path))
            try? FileManager.default.removeItem(atPath: path)
            if before.files[path] != nil { try? FileManager.default.copyItem(atPath: saved.path, toPath: path) }
        }
        for path in after.removed(since: before) {
            try? FileManager.default.copyItem(atPath: backup.appendingPathComponent(relative(path)).path, toPath: path)
        }
    }
}

/// What `refs record` did, per test file. Its JSON form is documented in docs/json.md.
public struct RecordReport: Sendable, Encodable {
    public struct TestChanges: Sendable, Encodable {
        public let test: String
        public var new: [String] = []
        public var changed: [String] = []
        public var unchanged: [String] = []
        public var removed: [String] = []
    }

    /// The test run's summary line.
    public let summary: String
    public var tests: [TestChanges] = []
    /// The review page of old against new.
    public var review: String?

    public func render() -> [String] {
        var lines: [String] = []
        for test in tests {
            lines.append(
                "\(test.test): \(test.new.count) new, \(test.changed.count) changed, \(test.unchanged.count) unchanged, "
                    + "\(test.removed.count) removed")
            for (title, keys) in [("new", test.new), ("changed", test.changed), ("removed", test.removed)] {
                lines += keys.map { "  \(title)  \($0)" }
            }
        }
        if let review { lines.append("review: \(review)") }
        return lines
    }
}
