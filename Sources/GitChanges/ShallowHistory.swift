import Foundation

/// A shallow clone's missing history, fetched when a question needs it. CI checkouts are shallow
/// (GitHub's checkout fetches one commit by default, GitLab twenty, Bitrise's git-clone step a
/// few): a promotion asks about commits that earlier merges recorded, a comparison about a merge
/// base or a parent the clone lacks. Rather than fail, the clone fetches the rest of its history
/// from `origin` once (`git fetch --unshallow`, with the credentials the checkout left, as
/// actions/checkout does by default), and says so; when that cannot be done, the question fails
/// with a line naming what is missing and the depth to set.
struct ShallowHistory {
    /// The work tree (or a bare repository's folder) git runs in.
    let workTree: String
    /// The outcome of this repository's one fetch: nil before it, `.some(nil)` after it worked,
    /// the failure's text when it failed.
    private(set) var outcome: String??

    init(workTree: String) {
        self.workTree = workTree
    }

    /// `PIPELINE_FETCH_HISTORY=0` turns the fetch off (a clone whose remote must not be asked).
    static var enabled: Bool { ProcessInfo.processInfo.environment["PIPELINE_FETCH_HISTORY"] != "0" }

    /// Fetches the history the shallow clone lacks (the caller knows it is shallow); true when
    /// there is now more to read (the question should be asked again), false when it was fetched
    /// already or cannot be.
    mutating func deepen(missing: String) -> Bool {
        guard Self.enabled, outcome == nil else { return false }
        FileHandle.standardError.write(
            Data("shallow clone: \(missing) is not in this clone; fetching its history from origin…\n".utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", workTree, "fetch", "--quiet", "--no-tags", "--unshallow", "origin"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        var variables = ProcessInfo.processInfo.environment
        variables["GIT_TERMINAL_PROMPT"] = "0"
        process.environment = variables
        do {
            try process.run()
        } catch {
            outcome = "git could not be started: \(error)"
            return false
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            outcome = .some(text.split(separator: "\n").last.map(String.init) ?? "git fetch failed")
            return false
        }
        outcome = .some(nil)
        return true
    }

    /// Why the fetch failed, for the message of a question that still cannot be answered.
    var failure: String? { outcome ?? nil }
}
