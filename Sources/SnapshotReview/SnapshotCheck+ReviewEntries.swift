import Foundation
import ImageDiff
import SnapshotConventions
import TestCore
import TestSharding

/// The review page's entries: what differs, the artifacts, the missing references.
extension SnapshotCheck {
    /// One line: the snapshot, the reference it was compared with, and how much differs.
    func differs(_ entry: ReviewEntry) -> String {
        let file = String(entry.key.dropFirst(entry.test.count + 1))
        let reference = local.path(of: entry.test, file: file).map(display) ?? entry.key
        var what = "differs"
        if let comparison = entry.comparison {
            what =
                "\(comparison.differingPixels) of \(comparison.comparedPixels) pixels differ "
                + "(match \(String(format: "%.2f", comparison.matchRatio * 100)) %"
                + (comparison.sameSize ? ")" : "; size \(comparison.reference) → \(comparison.new))")
        } else if let diff = entry.textDiff {
            let changed = diff.hunks().joined().filter { $0.kind != .same }.count
            what = "\(changed) line(s) differ"
        } else if entry.reference == nil {
            what = "has no reference to compare with"
        }
        return "snapshot \(entry.key) \(what) — reference \(reference)"
    }

    /// The failed snapshots in the artifacts folder, each beside its reference.
    func artifacts(
        of failed: [TestReport.Entry], mentions: [String: Set<String>],
        report: TestReport
    ) -> [ReviewEntry] {
        var entries: [ReviewEntry] = []
        let walker = FileManager.default.enumerator(
            at: artifacts, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        let root = artifacts.standardizedFileURL.path + "/"
        while let url = walker?.nextObject() as? URL {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            let path = url.standardizedFileURL.path
            let relative = path.hasPrefix(root) ? String(path.dropFirst(root.count)) : url.lastPathComponent
            let writer = mentions.first { $0.value.contains(path) }?.key
            guard let file = SnapshotFile(relativePath: relative) else {
                var entry = ReviewEntry(
                    key: relative, status: .failed,
                    note:
                        "\(display(url)) is not in the artifacts layout <TestFile>/<file>; not paired with a reference")
                entry.testName = writer
                entries.append(entry)
                continue
            }
            let owner = writer ?? owner(of: file, in: report)
            guard owner.map({ name in failed.contains { $0.name == name } }) ?? true else { continue }
            // The reference the library compared with: the path its message names, else the layout's place.
            let named = owner.flatMap { mentions[$0] }?.first {
                $0.hasSuffix("/\(SnapshotFile.folderName)/\(file.key)")
            }
            let expected = named.map(URL.init(fileURLWithPath:)) ?? local.path(of: file.testFile, file: file.fileName)
            let reference = expected.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
            let record = owner.flatMap { name in report.tests.first { $0.name == name } }
            let isNew =
                reference == nil
                && SnapshotMessages.kinds(in: record?.output ?? record?.message ?? "").contains(.missingReference)
            var entry = ReviewEntry.comparing(
                key: file.key, status: isNew ? .new : .failed, reference: reference, new: url,
                comparer: ImageComparer())
            entry.testName = owner
            entry.message = record?.message.map(Self.headline)
            if reference == nil, !isNew {
                let place = expected.map { display($0) } ?? "the checkout (no test file \(file.testFile).swift)"
                entry.note = [
                    entry.note, "no reference at \(place): is it kept in another layout (a custom snapshotDirectory)?",
                ]
                .compactMap { $0 }.joined(separator: "; ")
            }
            entries.append(entry)
        }
        return entries
    }

    /// A missing reference, said in one line naming the test and the folder, as the test's message.
    /// `rendered`: CI kept the test's rendering as a candidate (a new test), which the line offers.
    func missing(_ record: TestReport.Entry, report: inout TestReport, rendered: Bool) -> ReviewEntry {
        let named = SnapshotMessages.testFile(in: record.output ?? record.message ?? "")
        let testFile = named?.name ?? testFile(of: record.name, in: report) ?? record.suite
        let folder =
            named?.folder.map { $0.appendingPathComponent("\(SnapshotFile.folderName)/\(testFile)") }
            ?? local.path(of: testFile, file: "").map { $0.deletingLastPathComponent() }
        let name = SnapshotFile.sanitize(record.test)
        let accept =
            rendered
            ? accept.map {
                "accept CI's rendering, kept as a candidate (never a reference here, never a pass): '"
                    + $0.line([testFile]) + "', or "
            } : nil
        let message =
            "missing reference: no \(name).* in \(folder.map(display) ?? "\(SnapshotFile.folderName)/\(testFile)") "
            + "(\(SnapshotSwitches.record)=never in CI records none); pull the references first, or, for a new "
            + "test, " + (accept ?? "") + "record them and push them: '\(recordCommand(testFile))'"
        report.explain(record.name, message)
        var entry = ReviewEntry(key: "\(testFile)/\(name).*", status: .missing)
        entry.testName = record.name
        entry.message = message
        return entry
    }

    /// A failure message's first paragraph (the library goes on with paths and the whole diff,
    /// which the page shows better), at most three lines.
    static func headline(_ message: String) -> String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.prefix(3).joined(separator: "\n")
    }

    /// The test a reference file belongs to by its name: the test of that file (suite named after
    /// it, or a free function) whose sanitised name the file starts with, when exactly one is.
    func owner(of file: SnapshotFile, in report: TestReport) -> String? {
        let candidates = report.tests.filter { SnapshotFile.sanitize($0.test) == file.testName }
        let inFile = candidates.filter { testFile(of: $0.name, in: report) == file.testFile }
        if inFile.count == 1 { return inFile[0].name }
        return candidates.count == 1 ? candidates[0].name : nil
    }

    /// The test file a test's suite is named after (`ExampleKitTests.BadgeViewTests/testX` → `BadgeViewTests`).
    func testFile(of name: String, in report: TestReport) -> String? {
        guard let record = report.tests.first(where: { $0.name == name }), record.suite.contains(".") else {
            return nil
        }
        return record.suite.split(separator: ".").last.map { String($0.split(separator: "/").first ?? $0) }
    }

    /// A path relative to the checkout where it lies inside it.
    func display(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let root = local.checkout.path + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}
