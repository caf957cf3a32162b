import Foundation
import GitChanges
import PipelineCore
import PipelineSpec

/// What `pipeline init --update` did to one file init writes.
public struct SetupUpdate: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// Already what this version writes.
        case unchanged
        /// Init writes it now and it was not there.
        case created
        /// Not edited since init wrote it: replaced.
        case replaced
        /// The team's edits kept on top of what init writes now; `base` says where init's earlier
        /// text came from (a commit).
        case merged(base: String)
        /// Not written: the team's edits and init's changes touch the same lines (the line numbers,
        /// in the merged text `diff` shows, of each conflict).
        case conflicts(lines: [Int], base: String)
        /// Not written: edited, and what init wrote is in no commit of the history, so the team's
        /// edits cannot be told from init's text.
        case noBase
        /// A file of that name init did not write (no init header): left alone.
        case notInit
    }

    public let path: String
    public let outcome: Outcome
    /// The file's difference, as `git diff` prints it: what was written, or (not written) what
    /// would have been.
    public let diff: String
    /// Patterns this round retires that the file still has, one line each (`path:line: why`).
    public let findings: [String]

    public var written: Bool {
        switch outcome {
        case .created, .replaced, .merged: true
        default: false
        }
    }
}

/// A conflict `init --update` stopped at: the files it did not write, named.
public struct SetupConflict: ExitCoded {
    public let files: [String]

    /// The files of `updates` init would have written and did not; nil when there are none.
    public init?(_ updates: [SetupUpdate]) {
        files = updates.filter { !$0.written && $0.outcome != .unchanged && $0.outcome != .notInit }.map(\.path)
        if files.isEmpty { return nil }
    }

    public var exitStatus: ExitStatus { .conflict }
    public var description: String {
        "init --update left \(files.joined(separator: ", ")) as they were: merge each by hand (the difference is above)"
    }
}

extension ProjectSetup {
    /// The flags init's files in `repository` were written with (their first line), for `--update`
    /// without flags; nil when no file carries them.
    public static func recordedFlags(in repository: URL) -> [String]? {
        let candidates =
            ["pipelines/post-merge.yml", "pipelines/pull-request.yml", ".gitlab-ci.yml", "bitrise.yml"]
            + GitHubWorkflows.names.map { ".github/workflows/" + $0 }
        for path in candidates {
            guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path),
                let (marker, _) = InitMarker.read(String(decoding: data, as: UTF8.self))
            else { continue }
            return marker.flags
        }
        return nil
    }

    /// Rewrites the files init writes for `request` in `repository`: a file not edited since init
    /// wrote it is replaced; an edited one is merged from what init wrote then (the version in the
    /// history whose fingerprint the file's first line names, or for a file written before the
    /// marker, the version that added it), keeping the team's edits where they do not conflict; a
    /// conflicted file is not written. Every file written is checked as `write` checks (a spec
    /// must load). Each file's outcome, difference and the retired patterns left in it.
    public static func update(_ request: SetupRequest, in repository: URL) throws -> [SetupUpdate] {
        let history = try? CommitHistory(repositoryPath: repository.path)
        let commits = (try? history?.ancestors(of: "HEAD", limit: 100_000)) ?? []
        var updates: [SetupUpdate] = []
        for file in files(request) {
            let url = repository.appendingPathComponent(file.path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                updates.append(try written(file, outcome: .created, old: "", new: file.text, in: repository))
                continue
            }
            let current = String(decoding: data, as: UTF8.self)
            let marker = InitMarker.read(current)?.marker
            guard marker != nil || current.hasPrefix(legacyHeader) else {
                updates.append(
                    SetupUpdate(
                        path: file.path, outcome: .notInit, diff: "",
                        findings: RetiredPatterns.findings(in: current, path: file.path)))
                continue
            }
            // What init writes now is what it wrote then (the same fingerprint): the team's edits are theirs.
            if let marker, marker.fingerprint == InitMarker.read(file.text)?.marker.fingerprint {
                updates.append(SetupUpdate(path: file.path, outcome: .unchanged, diff: "", findings: []))
            } else if InitMarker.isUnedited(current) {
                updates.append(try written(file, outcome: .replaced, old: current, new: file.text, in: repository))
            } else if let (base, commit) = try base(of: file.path, marker: marker, history: history, commits: commits) {
                // The bodies merged (a marker line always differs), then this version's marker on top.
                func body(_ text: String) -> String { InitMarker.read(text)?.body ?? text }
                let merged = try TextMerge.merge(
                    base: body(base), ours: body(current), theirs: body(file.text),
                    labels: ("yours", "pipeline init \(request.version)"))
                let marker = file.text.prefix { $0 != "\n" }
                let text = marker + "\n" + merged.text
                let diff = try TextMerge.diff(from: current, to: text, path: file.path)
                if merged.conflicts.isEmpty {
                    updates.append(
                        try written(
                            SetupFile(path: file.path, text: text), outcome: .merged(base: commit),
                            old: current, new: text, in: repository))
                } else {
                    updates.append(
                        SetupUpdate(
                            path: file.path, outcome: .conflicts(lines: merged.conflicts.map { $0 + 1 }, base: commit),
                            diff: diff, findings: []))
                }
            } else {
                updates.append(
                    SetupUpdate(
                        path: file.path, outcome: .noBase,
                        diff: try TextMerge.diff(from: current, to: file.text, path: file.path), findings: []))
            }
        }
        // The team's own workflows: left alone, their retired patterns named.
        let workflows = repository.appendingPathComponent(".github/workflows")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: workflows.path)) ?? []).sorted()
        where name.hasSuffix(".yml") || name.hasSuffix(".yaml") {
            let path = ".github/workflows/" + name
            guard !updates.contains(where: { $0.path == path }),
                let data = FileManager.default.contents(atPath: workflows.appendingPathComponent(name).path)
            else { continue }
            let findings = RetiredPatterns.findings(in: String(decoding: data, as: UTF8.self), path: path)
            if !findings.isEmpty {
                updates.append(SetupUpdate(path: path, outcome: .notInit, diff: "", findings: findings))
            }
        }
        return updates
    }

    /// How the files init wrote before the marker line begin.
    static let legacyHeader = "# Written by `pipeline init`"

    /// What init wrote of `path` before the team edited it, and the commit it was in: the newest
    /// version unedited since init wrote it with the marker's fingerprint; else (a file written
    /// before the marker, or whose init text was never committed unedited) the oldest version init
    /// wrote, the one that added it. The older the base, the more of init's own changes since
    /// show as the team's: where they touch lines init changes again, the merge names a conflict,
    /// so nothing is lost.
    private static func base(
        of path: String, marker: InitMarker?, history: CommitHistory?, commits: [String]
    ) throws -> (text: String, commit: String)? {
        guard let history else { return nil }
        var oldest: (text: String, commit: String)?
        for commit in commits {
            guard let bytes = try history.contents(of: path, at: commit) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            let found = InitMarker.read(text)?.marker
            if let marker, found?.fingerprint == marker.fingerprint, InitMarker.isUnedited(text) {
                return (text, String(commit.prefix(12)))
            }
            if found != nil || text.hasPrefix(legacyHeader) { oldest = (text, String(commit.prefix(12))) }
        }
        return oldest
    }

    /// Writes `file` (a spec is loaded first) and reports it.
    private static func written(
        _ file: SetupFile, outcome: SetupUpdate.Outcome, old: String, new: String, in repository: URL
    ) throws -> SetupUpdate {
        if file.path.hasPrefix("pipelines/") {
            let stem = URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
            _ = try SpecLoader.parse(new, file: file.path, fileStem: stem)
        }
        let url = repository.appendingPathComponent(file.path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(new.utf8).write(to: url, options: .atomic)
        } catch {
            throw FileError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        return SetupUpdate(
            path: file.path, outcome: outcome, diff: try TextMerge.diff(from: old, to: new, path: file.path),
            findings: RetiredPatterns.findings(in: new, path: file.path))
    }
}
