import ChildProcesses
import Foundation
import TestCore

/// The Xcode outputs `pipeline import` and `pipeline plan` read, from a file, standard input
/// (`-`) or, on macOS, an `.xcresult` bundle through `xcrun xcresulttool`.
public enum XcodeInput {
    /// The run the output at `path` records.
    public static func run(_ kind: XcodeOutputKind, at path: String) async throws(XcodeResultsError) -> XcodeRun {
        let data = try await read(path, xcresult: kind == .xcresult)
        switch kind {
        case .xcresult: return try XCResultReader.read(data, origin: path)
        case .xcodebuildLog: return try XcodebuildLogReader.read(data, origin: path)
        }
    }

    /// The tests an enumeration (or an xcresult) at `path` names.
    public static func tests(at path: String) async throws(XcodeResultsError) -> [XcodeTestName] {
        try TestEnumeration.read(try await read(path, xcresult: true), origin: path)
    }

    static func read(_ path: String, xcresult: Bool) async throws(XcodeResultsError) -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .notReadable(file: path, reason: "no such file")
        }
        if isFolder.boolValue {
            guard xcresult, path.hasSuffix(".xcresult") else {
                throw .notReadable(file: path, reason: "a folder, not a file")
            }
            return try await bundle(path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .notReadable(file: path, reason: "cannot be read")
        }
        return data
    }

    /// An `.xcresult` bundle's tests, as `xcrun xcresulttool get test-results tests` prints them
    /// (Xcode 16 or later): `xcrun` from the PATH, which macOS has.
    static func bundle(_ path: String) async throws(XcodeResultsError) -> Data {
        let result: ProcessResult
        do {
            result = try await Xcodebuild.tool([
                "xcrun", "xcresulttool", "get", "test-results", "tests", "--path", path,
            ])
        } catch {
            throw .notReadable(
                file: path,
                reason: "an .xcresult bundle is read with xcrun, on macOS (\(error)); there, run "
                    + "`xcrun xcresulttool get test-results tests --path \(path) > tests.json` and import that")
        }
        guard result.termination == .exited(0) else {
            let said = (result.errors ?? "").split(separator: "\n").first.map(String.init) ?? ""
            throw .notReadable(
                file: path,
                reason: "xcrun xcresulttool get test-results tests ended with \(result.termination): \(said)")
        }
        return Data(result.output.utf8)
    }
}
