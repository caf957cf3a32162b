import Foundation
import GitChanges
import PipelineCore

/// A change set as people read it: the commits compared, then each kind of change, grouped.
public enum ChangeReport {
    public static func render(_ changes: ChangeSet) -> [String] {
        let head = String(changes.head.prefix(12))
        let compared = changes.base.map { "\($0.prefix(12)) → \(head)" } ?? "the empty tree → \(head) (a root commit)"
        var lines = [
            "comparing \(compared) (\(changes.comparison)\(changes.headIsMerge ? ", head is a merge commit" : ""))"
        ]
        if let note = changes.note { lines.append(note) }
        guard !changes.isEmpty else {
            return lines + ["no changes between these commits"]
        }
        lines.append("\(counted(changes.files.count, "file")) changed")
        section(
            "test targets",
            changes.testTargets.map {
                row($0.status, $0.path, $0.oldPath, counted($0.files, "file"))
            }, into: &lines)
        section("test files", changes.testFiles.map { row($0.status, $0.path, $0.oldPath, nil) }, into: &lines)
        section(
            "reference folders",
            changes.referenceFolders.map {
                row($0.status, $0.path, $0.oldPath, counted($0.files, "file"))
            }, into: &lines)
        if !changes.promotable.isEmpty {
            lines.append(
                "tests whose references may need promotion (\(changes.promotable.count)): "
                    + changes.promotable.joined(separator: ", "))
        }
        section(
            "other files", changes.other.map { row($0.status, $0.path, $0.oldPath, $0.submodule ? "submodule" : nil) },
            into: &lines)
        return lines
    }

    private static func section(_ title: String, _ rows: [String], into lines: inout [String]) {
        guard !rows.isEmpty else { return }
        lines.append("\(title) (\(rows.count)):")
        lines += rows
    }

    private static func row(_ status: ChangeStatus, _ path: String, _ oldPath: String?, _ note: String?) -> String {
        var text = "  " + status.rawValue + String(repeating: " ", count: max(1, 9 - status.rawValue.count)) + path
        if let oldPath { text += " ← \(oldPath)" }
        if let note { text += "  (\(note))" }
        return text
    }
}
