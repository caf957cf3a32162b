import Foundation

/// The command that records a test file's references and pushes them, as a message gives it:
/// SwiftPM's, or in an app (no `Package.swift` in the folder, and an Xcode project or workspace
/// there or a scheme named) xcodebuild's, with the
/// scheme and destination the CI names (`PIPELINE_XCODE_SCHEME`, `PIPELINE_XCODE_DESTINATION`,
/// which `pipeline init --xcode` sets), else placeholders to fill in.
public enum RecordCommand {
    public static func text(testFile: String, package: URL, variables: [String: String]) -> String {
        let command = "pipeline refs record \(testFile) --push"
        let named = variables["PIPELINE_XCODE_SCHEME"].map { !$0.isEmpty } ?? false
        let project = ((try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []).contains {
            $0.hasSuffix(".xcodeproj") || $0.hasSuffix(".xcworkspace")
        }
        guard !FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path),
            named || project
        else { return command }
        let scheme = variables["PIPELINE_XCODE_SCHEME"].flatMap { $0.isEmpty ? nil : $0 } ?? "SCHEME"
        let destination = variables["PIPELINE_XCODE_DESTINATION"].flatMap { $0.isEmpty ? nil : $0 } ?? "DESTINATION"
        return command + " --xcode --scheme \(quoted(scheme)) --destination \(quoted(destination))"
    }

    /// A shell word: as it is when plain, else in double quotes.
    static func quoted(_ word: String) -> String {
        word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./".contains($0) })
            ? word : "\"" + word.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
