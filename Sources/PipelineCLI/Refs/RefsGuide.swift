/// The reference commands, who runs each and when: the team's four scripts as commands, and the review tools.
/// `pipeline list` prints this so the task list people kept by hand is no longer needed.
enum RefsGuide {
    struct Entry {
        let command: String
        let who: String
        let purpose: String
    }

    static let entries: [Entry] = [
        Entry(
            command: "pipeline refs pull", who: "developers, after switching branches",
            purpose: "replace the local reference folder with everything in develop"),
        Entry(
            command: "pipeline refs push TEST…", who: "developers, when opening a pull request",
            purpose: "upload the named tests' local references to feature"),
        Entry(
            command: "pipeline refs pull TEST… --from feature", who: "reviewers of a pull request",
            purpose: "fetch the named tests' references from feature"),
        Entry(
            command: "pipeline refs accept TEST…",
            who: "reviewers of a pull request whose run shows an intended change",
            purpose: "make what CI rendered the branch's references (the review page gives the command)"),
        Entry(
            command: "pipeline refs promote TEST…|--all --force", who: "developers, after changing a shared component",
            purpose: "push to feature and develop references of tests whose files did not change"),
        Entry(
            command: "pipeline refs prune --older-than 30d", who: "maintainers, or a scheduled CI job",
            purpose: "remove feature's kept pushes already promoted, and those older than 30 days"),
        Entry(
            command: "pipeline refs orphans", who: "maintainers, now and then",
            purpose: "list references in develop whose test file no longer exists"),
        Entry(
            command: "pipeline refs diff REF.png NEW.png -o overlay.png", who: "anyone reading a failed snapshot test",
            purpose: "match ratio, differing pixels, and the reference overlaid in red on the new image"),
        Entry(
            command: "pipeline refs report", who: "reviewers of a pull request, and CI as an artifact",
            purpose: "an HTML page of the changed references, side by side, worst first"),
    ]

    static func render() -> [String] {
        var lines = ["Reference commands (they replace the upload/download/force-upload scripts):"]
        let width = entries.map(\.command.count).max() ?? 0
        for entry in entries {
            let padding = String(repeating: " ", count: width - entry.command.count)
            lines.append("  \(entry.command)\(padding)  \(entry.purpose)")
            lines.append("  \(String(repeating: " ", count: width))  (\(entry.who))")
        }
        return lines
    }
}
