import Foundation
import GitChanges
import PipelineSpec
import SnapshotConventions

/// What will surprise a team before its first run, each with its file, line and the edit that
/// fixes it (`pipeline doctor`; `init` runs it): record overrides in the tests, a
/// swift-snapshot-testing older than 1.17, a device name the tests assert that the destination
/// contradicts, references both in git and in a store, a `.gitignore` without `.build/` (or the
/// folder store inside the repository), CI files init wrote in an older form.
public struct DoctorFinding: Sendable, Encodable, Equatable {
    public enum Kind: String, Sendable, Encodable {
        case recordOverride, libraryVersion, deviceName, referencesTwice, gitignore, olderFiles
    }

    public let kind: Kind
    /// Relative to the repository's root.
    public let file: String
    /// 1-based; nil for the file as a whole.
    public let line: Int?
    /// What is wrong, and why it will surprise.
    public let problem: String
    /// The exact edit, or the steps of a migration.
    public let fix: String

    /// `file:line: problem` and the fix on the next line, indented.
    public var rendered: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(problem)\n    fix: \(fix)"
    }
}

public enum ProjectDoctor {
    /// The version from which swift-snapshot-testing reads its record mode from
    /// `SNAPSHOT_TESTING_RECORD`, the variable pipeline sets.
    public static let recordModeVersion = [1, 17, 0]

    /// Examines the repository at `root` as its files describe it: the destination its CI files
    /// give xcodebuild, the stores its specs name.
    /// `version` is this pipeline's: a file init wrote with another is in an older form.
    /// `destination` stands for the CI files' (init's, before the team applies a join's patch).
    public static func examine(_ root: URL, version: String, destination: String? = nil) -> [DoctorFinding] {
        var stores: [StoreAddress] = []
        if let catalog = try? PipelineCatalog.locate(from: root) {
            for name in catalog.names() {
                guard let references = (try? catalog.load(named: name))?.references else { continue }
                stores += [references.feature, references.develop].compactMap { $0 }
            }
        }
        let folder = stores.lazy.compactMap { store -> String? in
            if case .folder(let path) = store { return path }
            return nil
        }.first
        return examine(
            root, destination: destination ?? ciDestination(root), usesStore: !stores.isEmpty, ignoredStore: folder)
            + olderFiles(root, version: version)
    }

    /// The files init wrote with another version, or holding a pattern this version retired.
    static func olderFiles(_ root: URL, version: String) -> [DoctorFinding] {
        let paths =
            ["pipelines/pull-request.yml", "pipelines/post-merge.yml", ".gitlab-ci.yml", "bitrise.yml"]
            + GitHubWorkflows.names.map { ".github/workflows/" + $0 }
        return paths.compactMap { path in
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path),
                case let text = String(decoding: data, as: UTF8.self),
                let (marker, _) = InitMarker.read(text)
            else { return nil }
            let retired = RetiredPatterns.findings(in: text, path: path)
            guard marker.version != version || !retired.isEmpty else { return nil }
            let problem =
                retired.first.map { "an older form: \($0)" }
                ?? "written by pipeline init \(marker.version); this is \(version), whose files differ"
            return DoctorFinding(
                kind: .olderFiles, file: path, line: 1, problem: problem,
                fix: "pipeline init --update (your edits kept where they do not conflict)")
        }
    }

    /// The simulator the CI files give xcodebuild (`platform=iOS Simulator,name=iPhone 16`), if any.
    static func ciDestination(_ root: URL) -> String? {
        let workflows = root.appendingPathComponent(".github/workflows")
        let files =
            ["bitrise.yml", ".gitlab-ci.yml"].map { root.appendingPathComponent($0) }
            + ((try? FileManager.default.contentsOfDirectory(at: workflows, includingPropertiesForKeys: nil)) ?? [])
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8),
                let match = text.firstMatch(of: /platform=[^,'"\n]+,name=[^'"\n]+/)
            else { continue }
            return String(match.0)
        }
        return nil
    }

    /// Examines the repository at `root`. `destination` is xcodebuild's destination the CI files
    /// name (`platform=iOS Simulator,name=iPhone 16`), `store` whether the specs name a store,
    /// `ignoredStore` a folder store inside the repository that git must ignore.
    public static func examine(
        _ root: URL, destination: String? = nil, usesStore: Bool = false, ignoredStore: String? = nil
    ) -> [DoctorFinding] {
        let sources = swiftFiles(below: root)
        var findings: [DoctorFinding] = []
        for (path, text) in sources where isTestFile(path) {
            findings += recordOverrides(in: text, file: path)
            if let destination { findings += deviceNames(in: text, file: path, destination: destination) }
        }
        findings += libraryVersion(root, sources: sources)
        findings += gitignore(root, store: ignoredStore)
        if usesStore, let tracked = trackedReferences(root, outside: ignoredStore) {
            findings.append(
                DoctorFinding(
                    kind: .referencesTwice, file: tracked, line: nil,
                    problem:
                        "references are committed in git (\(tracked)) and the specs name a store: each pull "
                        + "replaces the committed files with the store's, so git shows changes nobody made",
                    fix:
                        "keep them in one place: git rm -r --cached with every \(SnapshotFile.folderName) folder and "
                        + "add \(SnapshotFile.folderName)/ to .gitignore (the store keeps them), or drop references: "
                        + "from the specs"))
        }
        return findings
    }

    /// Swift files below `root` (hidden folders, `.build` and `DerivedData` skipped), by relative path.
    static func swiftFiles(below root: URL) -> [(String, String)] {
        var found: [(String, String)] = []
        let base = root.standardizedFileURL.path
        let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        while let url = walker?.nextObject() as? URL {
            let name = url.lastPathComponent
            if name == ".build" || name == "DerivedData" || name == "Pods" || name == "Carthage" {
                walker?.skipDescendants()
                continue
            }
            guard name.hasSuffix(".swift"), let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            found.append((String(url.standardizedFileURL.path.dropFirst(base.count + 1)), text))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    static func isTestFile(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().contains { $0.hasSuffix("Tests") || $0 == "Tests" }
            || path.hasSuffix("Tests.swift")
    }

    /// Lines that fix the record mode in the test's code, which swift-snapshot-testing 1.17 and
    /// later take over `SNAPSHOT_TESTING_RECORD`: `record:` arguments, `var record =`,
    /// `isRecording =`, `withSnapshotTesting(record:`.
    static func recordOverrides(in text: String, file: String) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("//") { continue }
            func add(_ problem: String, _ fix: String) {
                findings.append(
                    DoctorFinding(kind: .recordOverride, file: file, line: index + 1, problem: problem, fix: fix))
            }
            let why = "it overrides the record mode pipeline sets (SNAPSHOT_TESTING_RECORD) in every run"
            if let match = line.firstMatch(
                of:
                    /^(?:(?:private|fileprivate|static|public|internal)\s+)*(?:var|let)\s+(record|isRecording)\s*(?::\s*Bool\s*)?=/
            ) {
                add(
                    "`\(match.1)` fixed in the test's code: \(why)",
                    "delete this line, and the record: arguments that pass it; record with 'pipeline refs record' "
                        + "(or SNAPSHOT_TESTING_RECORD=all) instead")
            } else if line.contains("isRecording = ") {
                add("isRecording set in the test's code: \(why)", "delete this line")
            } else if let match = line.firstMatch(of: /withSnapshotTesting\(\s*record:\s*([^,)]+)/) {
                add(
                    "withSnapshotTesting(record: \(match.1)) fixes the record mode: \(why)",
                    "drop record: \(match.1) from the call (keep diffTool: if it has one)")
            } else if line.hasPrefix("func ") || line.contains(" func "),
                let match = line.firstMatch(of: /\brecord(?:\s+\w+)?\s*:\s*Bool\b[^,)]*/)
            {
                add(
                    "the helper takes a record parameter (\(match.0)): \(why) when a caller passes it",
                    "remove the parameter and pass no record: to assertSnapshot(s) in the helper's body")
            } else if let match = line.firstMatch(of: /\brecord:\s*([A-Za-z_][A-Za-z0-9_.]*)/),
                line.contains("Snapshot") || line.hasPrefix(")") || line.hasPrefix("record:")
            {
                add(
                    "record: \(match.1) passed to a snapshot assertion: \(why)",
                    "delete ', record: \(match.1)' from this call")
            }
        }
        return findings
    }

    /// A test that asserts the simulator's name (`"iPhone 15"`) where the destination names another.
    static func deviceNames(in text: String, file: String, destination: String) -> [DoctorFinding] {
        guard let named = destination.firstMatch(of: /name=([^,]+)/).map({ String($0.1) }) else { return [] }
        var findings: [DoctorFinding] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard
                line.contains("UIDevice.current.name") || line.contains("SIMULATOR_DEVICE_NAME")
                    || line.contains("deviceName")
            else { continue }
            for match in line.matches(of: /"((?:iPhone|iPad|Apple Watch|Apple TV|Apple Vision)[^"]*)"/)
            where String(match.1) != named {
                findings.append(
                    DoctorFinding(
                        kind: .deviceName, file: file, line: index + 1,
                        problem: "the test asserts the device \"\(match.1)\", and CI's destination is \(named)",
                        fix:
                            "pipeline init --update --destination 'platform=iOS Simulator,name=\(match.1)' (the "
                            + "references were rendered there), or change the assertion to \"\(named)\""))
            }
        }
        return findings
    }

    /// swift-snapshot-testing pinned below 1.17 (Package.resolved at the root, or an Xcode
    /// project's or workspace's): it ignores `SNAPSHOT_TESTING_RECORD`, so pipeline cannot record.
    static func libraryVersion(_ root: URL, sources: [(String, String)]) -> [DoctorFinding] {
        var resolved = ["Package.resolved"]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            if name.hasSuffix(".xcodeproj") {
                resolved.append("\(name)/project.xcworkspace/xcshareddata/swiftpm/Package.resolved")
            }
            if name.hasSuffix(".xcworkspace") { resolved.append("\(name)/xcshareddata/swiftpm/Package.resolved") }
        }
        var findings: [DoctorFinding] = []
        for path in resolved {
            guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8),
                let pin = text.range(of: "swift-snapshot-testing")
            else { continue }
            let after = text[pin.upperBound...]
            guard let match = after.firstMatch(of: /"version"\s*:\s*"(\d+)\.(\d+)\.(\d+)"/) else { continue }
            let version = [match.1, match.2, match.3].compactMap { Int($0) }
            guard version.lexicographicallyPrecedes(recordModeVersion) else { continue }
            let line = text[..<match.range.lowerBound].filter { $0 == "\n" }.count + 1
            let old = sources.filter { isTestFile($0.0) && $0.1.contains("matching:") && $0.1.contains("Snapshot") }
            let calls =
                old.isEmpty
                ? ""
                : " 2. rename assertSnapshot(matching:) and assertSnapshots(matching:) to (of:) (\(old.count) test "
                    + "files, the first \(old[0].0));"
            findings.append(
                DoctorFinding(
                    kind: .libraryVersion, file: path, line: line,
                    problem:
                        "swift-snapshot-testing \(version.map(String.init).joined(separator: ".")) ignores "
                        + "SNAPSHOT_TESTING_RECORD (read from 1.17): pipeline can neither record references nor keep "
                        + "a run from recording",
                    fix:
                        "a migration, on a branch: 1. require 1.17.0 or later (Package.swift: from: \"1.17.0\"; "
                        + "Xcode: the package's dependency rule) and resolve;\(calls) 3. delete the record "
                        + "overrides doctor lists; 4. run the snapshot tests: a newer version may render some "
                        + "references differently (text dumps, image encodings); accept what you reviewed with "
                        + "'pipeline refs accept' and promote it with the merge"))
        }
        return findings
    }

    /// `.build/` (and the folder store, when it is inside the repository) missing from `.gitignore`.
    static func gitignore(_ root: URL, store: String?) -> [DoctorFinding] {
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) || store != nil
        else { return [] }
        return missingIgnores(root, store: store).map { entry in
            DoctorFinding(
                kind: .gitignore, file: ".gitignore", line: nil,
                problem: "\(entry) is not ignored: git add -A would commit "
                    + (entry == ".build/" ? "the build" : "the folder store's references and records"),
                fix: "add a line \(entry) to .gitignore (pipeline init does)")
        }
    }

    /// The lines `.gitignore` lacks of `.build/` and `store` (a folder inside the repository).
    public static func missingIgnores(_ root: URL, store: String?) -> [String] {
        let text = (try? String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8)) ?? ""
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        func ignored(_ folder: String) -> Bool {
            let bare = folder.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            return [bare, bare + "/", "/" + bare, "/" + bare + "/"].contains { lines.contains($0) }
        }
        var wanted: [String] = []
        if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            wanted.append(".build/")
        }
        if let store, !store.hasPrefix("/"), !store.hasPrefix(".."), let first = store.split(separator: "/").first {
            wanted.append(String(first) + "/")
        }
        return wanted.filter { !ignored($0) }
    }

    /// The first reference file below a `__Snapshots__` folder of the working tree that HEAD's
    /// tree holds, if any, the folder store's (`outside`) left out.
    static func trackedReferences(_ root: URL, outside store: String?) -> String? {
        guard let history = try? CommitHistory(repositoryPath: root.path) else { return nil }
        let base = root.resolvingSymlinksInPath().path
        for folder in ReferenceInventory.snapshotFolders(below: root) {
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            while let url = walker?.nextObject() as? URL {
                guard !url.hasDirectoryPath else { continue }
                let path = String(url.resolvingSymlinksInPath().path.dropFirst(base.count + 1))
                if let first = store?.split(separator: "/").first, path.hasPrefix(first + "/") { break }
                if (try? history.contents(of: path, at: "HEAD")) ?? nil != nil { return path }
            }
        }
        return nil
    }
}
