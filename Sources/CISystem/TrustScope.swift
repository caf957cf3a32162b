import Foundation

/// Who wrote what a job keeps in the team's store, and so who may use it: what a pull request's job
/// writes (its code ran there, reviewed or not) is never read by a job of a protected branch, as
/// GitHub's own cache scopes its entries. A job writes below its own scope's folder and reads its
/// own and the ones above it: a pull request reads its own and its base branch's; a branch reads
/// its own only; a tag (a release) reads nothing; a CI job whose event cannot be told reads nothing
/// but writes its own run's folder.
///
/// The scope comes from the variables and event the CI sets for the job (`GITHUB_EVENT_NAME`,
/// `GITHUB_REF`, GitLab's `CI_MERGE_REQUEST_IID`, Bitrise's `BITRISE_PULL_REQUEST`, …), never from
/// an option or a name the job chooses. A job's reading is what this protects: a higher-trust job
/// decides for itself what it reads. Its writing is the store's to enforce (docs/ci.md#trust gives
/// bucket policies under which pull-request credentials write `pr/…` only).
public enum TrustScope: Sendable, Equatable, CustomStringConvertible {
    /// A pull request's (or merge request's, or merge queue entry's) job: its id (a number, or its
    /// branch when the CI gives none) and the branch it merges into, when known.
    case pullRequest(String, base: String?)
    /// A push to a branch (develop's post-merge job, main, a release branch), a scheduled or manual run on it.
    case branch(String)
    /// A tag's job: a release.
    case tag(String)
    /// Not CI: a developer's machine.
    case machine
    /// A CI job whose event this cannot tell, with its run's id when the CI gives one.
    case unknown(run: String?)

    /// The folder this scope writes below, in the store's location: `pr/<id>`, `branch/<name>`,
    /// `tag/<name>`, `local`, `run/<id>` (`run/unknown` without an id).
    public var folder: String {
        switch self {
        case .pullRequest(let id, _): "pr/" + Self.segment(id)
        case .branch(let name): "branch/" + Self.segment(name)
        case .tag(let name): "tag/" + Self.segment(name)
        case .machine: "local"
        case .unknown(let run): "run/" + Self.segment(run ?? "unknown")
        }
    }

    /// The folders this scope reads, its own first.
    public var readable: [String] {
        switch self {
        case .pullRequest(_, let base): [folder] + (base.map { [TrustScope.branch($0).folder] } ?? [])
        case .branch, .machine: [folder]
        case .tag, .unknown: []
        }
    }

    public var description: String {
        let reads = readable.isEmpty ? "reading nothing kept" : "reading " + readable.joined(separator: ", ")
        return "scope \(folder), \(reads)"
    }

    /// A name as one or more key segments: letters, digits, `.`, `_`, `-` and `/` between them are
    /// kept as they are (`release/1.2`); any other name is made of those and ends with a hash of it,
    /// so two names never share a folder.
    static func segment(_ name: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        let plain =
            !parts.isEmpty
            && parts.allSatisfy { part in
                !part.isEmpty && part != "." && part != ".."
                    && part.unicodeScalars.allSatisfy { allowed.contains($0) }
            }
        if plain { return name }
        let kept = String(name.unicodeScalars.map { allowed.contains($0) ? Character($0) : "-" })
        // FNV-1a, 64 bits: a stable name for the folder, not a secret.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(kept.prefix(60)) + "-" + String(hash, radix: 16)
    }
}

extension CIContext {
    /// This job's trust scope, read from the CI's variables and event; `.machine` outside CI.
    public var trustScope: TrustScope {
        guard isCI else { return .machine }
        func value(_ name: String) -> String? {
            variables[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if variables["GITHUB_ACTIONS"] == "true" {
            let event = value("GITHUB_EVENT_NAME") ?? ""
            let ref = value("GITHUB_REF") ?? ""
            if event == "merge_group" {
                if let entry = mergeQueueEntry { return .pullRequest(String(entry.pullRequest), base: entry.base) }
                return .unknown(run: runID)
            }
            if event.hasPrefix("pull_request") {
                let number = ref.firstMatch(of: /^refs\/pull\/(\d+)\//).map { String($0.1) }
                guard let id = number ?? value("GITHUB_HEAD_REF") else { return .unknown(run: runID) }
                return .pullRequest(id, base: value("GITHUB_BASE_REF"))
            }
            if ref.hasPrefix("refs/heads/") { return .branch(String(ref.dropFirst("refs/heads/".count))) }
            if ref.hasPrefix("refs/tags/") { return .tag(String(ref.dropFirst("refs/tags/".count))) }
            return .unknown(run: runID)
        }
        if variables["GITLAB_CI"] != nil {
            if let id = value("CI_MERGE_REQUEST_IID") {
                return .pullRequest(id, base: value("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
            }
            if let tag = value("CI_COMMIT_TAG") { return .tag(tag) }
            if let branch = value("CI_COMMIT_BRANCH") { return .branch(branch) }
            return .unknown(run: runID)
        }
        if variables["BITRISE_IO"] != nil {
            if let id = value("BITRISE_PULL_REQUEST") {
                return .pullRequest(id, base: value("BITRISEIO_GIT_BRANCH_DEST"))
            }
            if let tag = value("BITRISE_GIT_TAG") { return .tag(tag) }
            if let branch = value("BITRISE_GIT_BRANCH") { return .branch(branch) }
            return .unknown(run: runID)
        }
        // Other CIs: a pull request by the number they give, else the branch they build.
        if isPullRequest {
            let number = [
                "CHANGE_ID", "SYSTEM_PULLREQUEST_PULLREQUESTID", "BUILDKITE_PULL_REQUEST", "TRAVIS_PULL_REQUEST",
            ].lazy.compactMap { value($0) }.first { $0 != "false" }
            let circle = value("CIRCLE_PULL_REQUEST").flatMap { $0.split(separator: "/").last.map(String.init) }
            guard let id = number ?? circle ?? branch else { return .unknown(run: runID) }
            return .pullRequest(id, base: targetBranch)
        }
        if let branch { return .branch(branch) }
        return .unknown(run: runID)
    }
}
