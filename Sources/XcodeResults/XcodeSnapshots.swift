import Foundation
import SnapshotConventions

/// Where an Xcode run left its failed snapshots' new values, for the review page and CI's candidates.
public enum XcodeSnapshots: Sendable, Equatable {
    /// swift-snapshot-testing's own artifacts folder (`TEST_RUNNER_SNAPSHOT_ARTIFACTS`):
    /// `<TestFile>/<test>.<n>.<ext>`, the layout `pipeline test` reads.
    case artifacts(URL)
    /// What `xcrun xcresulttool export attachments --output-path DIR` writes: the files and a
    /// `manifest.json` naming each test's attachments. swift-snapshot-testing attaches a failed
    /// snapshot's new value as `failure` (beside `reference` and `difference`).
    case attachments(URL)

    /// Puts the new values into `artifacts` in swift-snapshot-testing's layout, the folder emptied
    /// first; returns how many. Names from the manifest never lead outside `artifacts`. A run
    /// whose snapshots all matched wrote no artifacts folder: none.
    public func copy(into artifacts: URL) throws(XcodeResultsError) -> Int {
        let manager = FileManager.default
        if case .artifacts(let folder) = self, folder.standardizedFileURL.path == artifacts.standardizedFileURL.path {
            return (manager.enumerator(atPath: artifacts.path)?.allObjects.count) ?? 0
        }
        try? manager.removeItem(at: artifacts)
        switch self {
        case .artifacts(let folder):
            guard manager.fileExists(atPath: folder.path) else { return 0 }
            do {
                try manager.createDirectory(
                    at: artifacts.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manager.copyItem(at: folder, to: artifacts)
            } catch {
                throw .notReadable(file: folder.path, reason: "cannot be copied: \(error.localizedDescription)")
            }
            return (manager.enumerator(atPath: artifacts.path)?.allObjects.count) ?? 0
        case .attachments(let folder):
            var copied = 0
            for (name, files) in try Self.failures(in: folder) {
                let suite = name.suites.last ?? name.target ?? "Tests"
                let base = SnapshotFile.sanitize(name.normalMethod)
                for (index, file) in files.enumerated() {
                    let ext = (file as NSString).pathExtension.isEmpty ? "png" : (file as NSString).pathExtension
                    let target = artifacts.appendingPathComponent(suite).appendingPathComponent(
                        "\(base).\(index + 1).\(ext)")
                    do {
                        try manager.createDirectory(
                            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try manager.copyItem(at: folder.appendingPathComponent(file), to: target)
                    } catch {
                        throw .notReadable(
                            file: folder.appendingPathComponent(file).path,
                            reason: "cannot be copied: \(error.localizedDescription)")
                    }
                    copied += 1
                }
            }
            return copied
        }
    }

    /// Each test's failed-snapshot attachments (`failure…`, associated with a failure), from the
    /// manifest, in its order; a name that is not a plain file in the folder is refused.
    static func failures(in folder: URL) throws(XcodeResultsError) -> [(XcodeTestName, [String])] {
        let manifest = folder.appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: manifest.path) else {
            throw .notReadable(
                file: manifest.path, reason: "no manifest.json: not what xcresulttool export attachments writes")
        }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .notReadable(file: manifest.path, reason: "not JSON: \(error.localizedDescription)")
        }
        guard let tests = value as? [[String: Any]] else {
            throw .notReadable(file: manifest.path, reason: "$: not a list of tests")
        }
        var found: [(XcodeTestName, [String])] = []
        for (index, test) in tests.enumerated() {
            guard let identifier = test["testIdentifier"] as? String,
                let name = (test["testIdentifierURL"] as? String).flatMap(XcodeTestName.init(url:))
                    ?? XcodeTestName(identifier: identifier) ?? XcodeTestName(nodeIdentifier: identifier, target: nil)
            else { continue }
            guard ([name.normalMethod] + name.suites).allSatisfy(Self.isPlainName) else {
                throw .notReadable(
                    file: manifest.path, reason: "$[\(index)].testIdentifier: '\(identifier)' is not a test's name")
            }
            let attachments =
                test["attachments"] as? [[String: Any]] ?? (test["attachments"] as? [String: Any]).map { [$0] } ?? []
            var files: [String] = []
            for attachment in attachments {
                let readable = attachment["suggestedHumanReadableName"] as? String ?? ""
                guard readable.hasPrefix("failure"), attachment["isAssociatedWithFailure"] as? Bool ?? true,
                    let file = attachment["exportedFileName"] as? String
                else { continue }
                guard Self.isPlainName(file) else {
                    throw .notReadable(
                        file: manifest.path, reason: "$[\(index)].attachments: '\(file)' is not a file name")
                }
                files.append(file)
            }
            if !files.isEmpty { found.append((name, files)) }
        }
        return found
    }

    /// A single path segment: no `/`, not `.` or `..`, no control character.
    static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty && text != "." && text != ".." && !text.contains("/") && !text.contains("\\")
            && !text.unicodeScalars.contains { $0.value < 0x20 }
    }
}
