import Foundation

/// `pipeline init --ci bitrise` in a repository that has a bitrise.yml already: pipeline's app
/// variables, triggers, pipelines and workflows (all named `pipeline-…`) added to the team's
/// file, each at the end of the section it belongs to, indented as the team's file indents it;
/// the rest of their file untouched, byte for byte. Where anything would clash (a workflow,
/// pipeline or variable of the same name, a trigger that already takes the pushes or pull
/// requests of the base branch, which Bitrise gives to the first matching trigger only), every
/// clash is named with its line and nothing is written.
///
/// The team's file is read line by line, as bitrise.yml files are laid out: block-style top-level
/// sections, their entries at one indentation, trigger items as a sequence.
struct BitriseFile {
    let lines: [String]

    init(_ text: String) {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
    }

    /// The lines of the top-level section `key` after its key line, up to the next top-level key.
    func section(_ key: String) -> Range<Int>? {
        guard let start = lines.firstIndex(where: { Self.topLevelKey($0) == key }) else { return nil }
        let end = lines[(start + 1)...].firstIndex { Self.topLevelKey($0) != nil } ?? lines.count
        return (start + 1)..<end
    }

    /// A top-level mapping key (`workflows:`); not a comment, a sequence item or `---`.
    static func topLevelKey(_ line: String) -> String? {
        guard let first = line.first, !" \t#-".contains(first) else { return nil }
        return key(of: line)
    }

    /// The key of a `key:` or `key: value` line (quotes removed), else nil.
    static func key(of line: String) -> String? {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.hasPrefix("#"), let colon = text.firstIndex(of: ":") else { return nil }
        let after = text[text.index(after: colon)...]
        guard after.isEmpty || after.first == " " else { return nil }
        let name = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
        return name.isEmpty ? nil : name
    }

    static func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    static func isContent(_ line: String) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        return !text.isEmpty && !text.hasPrefix("#")
    }

    /// The indentation of the first content line in `range`.
    func childIndentation(_ range: Range<Int>) -> Int? {
        range.first { Self.isContent(lines[$0]) }.map { Self.indentation(lines[$0]) }
    }

    /// The entries of a mapping section: each key at the section's child indentation, with its line.
    func entries(_ range: Range<Int>) -> [(name: String, line: Int)] {
        guard let indent = childIndentation(range) else { return [] }
        return range.compactMap { index in
            let line = lines[index]
            guard Self.isContent(line), Self.indentation(line) == indent,
                !line.drop(while: { $0 == " " }).hasPrefix("-"),
                let name = Self.key(of: line)
            else { return nil }
            return (name, index)
        }
    }

    /// The items of a sequence section: each item's `key: value` pairs, with its first line.
    func items(_ range: Range<Int>) -> [(fields: [String: String], line: Int)] {
        guard let first = range.first(where: { Self.isContent(lines[$0]) }),
            lines[first].drop(while: { $0 == " " }).hasPrefix("-")
        else { return [] }
        let indent = Self.indentation(lines[first])
        var items: [(fields: [String: String], line: Int)] = []
        for index in range where Self.isContent(lines[index]) {
            var text = Substring(lines[index])
            if Self.indentation(lines[index]) == indent, text.drop(while: { $0 == " " }).hasPrefix("-") {
                items.append(([:], index))
                text = text.drop(while: { $0 == " " }).dropFirst()
            }
            guard !items.isEmpty, let key = Self.key(of: String(text)) else { continue }
            let value = text.split(separator: ":", maxSplits: 1).dropFirst().first.map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
            }
            items[items.count - 1].fields[key] = value ?? ""
        }
        return items
    }

    /// The last content line of `range` (trailing blank lines and column-0 comments belong to what follows).
    func lastContent(_ range: Range<Int>) -> Int? {
        range.last { index in
            Self.isContent(lines[index]) || (lines[index].hasPrefix(" ") && !lines[index].allSatisfy { $0 == " " })
        }
    }

    /// `block` moved right (or left) by `shift` columns.
    static func shifted(_ block: [String], by shift: Int) -> [String] {
        block.map { line in
            guard !line.allSatisfy({ $0 == " " }) else { return "" }
            let indent = indentation(line)
            return String(repeating: " ", count: max(0, indent + shift)) + line.dropFirst(indent)
        }
    }
}

enum BitriseJoin {
    /// One thing in the team's file that pipeline's would collide with: its line (1-based) and why.
    struct Clash: Equatable {
        let line: Int
        let reason: String
        /// For a trigger that takes what pipeline's need: its lines (0-based) and where it sends them.
        var trigger: Trigger? = nil
    }

    /// A trigger of the team's that takes the base branch's pushes (`push`) or pull requests.
    struct Trigger: Equatable {
        let lines: Range<Int>
        let target: String
        /// Whether it starts a workflow (else a pipeline of theirs).
        let startsWorkflow: Bool
        let push: Bool
    }

    /// What stops the join: every clash, in the order of the team's lines.
    struct Clashes: Error {
        let clashes: [Clash]
    }

    static let marker = "# Added by `pipeline init` (docs/ci.md, \"Joining an existing bitrise.yml\")."

    /// The team's `existing` bitrise.yml with `generated`'s app variables, triggers, pipelines
    /// and workflows added; the clashes instead, when there are any.
    /// With `triggersFirst`, pipeline's triggers go before the team's, so they take the base
    /// branch's events (Bitrise starts the first match) and the team's keep what else they match.
    static func join(
        existing: String, generated: String, base: String, triggersFirst: Bool = false
    ) throws(Clashes) -> String {
        let theirs = BitriseFile(existing)
        let ours = BitriseFile(generated)
        if !triggersFirst {
            let clashes = self.clashes(theirs, ours, base: base)
            guard clashes.isEmpty else { throw Clashes(clashes: clashes) }
        }

        // Insertions into the team's lines, applied from the bottom up so earlier indices hold.
        var insertions: [(at: Int, lines: [String])] = []
        var appended: [String] = []
        for key in ["trigger_map", "pipelines", "workflows"] {
            guard let body = ours.section(key) else { continue }
            let block = Array(ours.lines[body]).reversed().drop { !BitriseFile.isContent($0) }.reversed()
            guard let range = theirs.section(key) else {
                appended += ["", marker, "\(key):"] + block
                continue
            }
            guard let last = theirs.lastContent(range), let indent = theirs.childIndentation(range) else {
                insertions.append((range.lowerBound, [marker] + block))
                continue
            }
            let shift = indent - (ours.childIndentation(body) ?? indent)
            let first = range.first { BitriseFile.isContent(theirs.lines[$0]) } ?? last
            insertions.append(
                (
                    key == "trigger_map" && triggersFirst ? first : last + 1,
                    [String(repeating: " ", count: indent) + marker] + BitriseFile.shifted(Array(block), by: shift)
                ))
        }
        insertions += appVariables(theirs, ours, appended: &appended)
        var lines = theirs.lines
        for insertion in insertions.sorted(by: { $0.at > $1.at }) {
            lines.insert(contentsOf: insertion.lines, at: insertion.at)
        }
        return (lines + appended).joined(separator: "\n") + "\n"
    }

    /// The join when the only clashes are the team's triggers taking the base branch's events:
    /// pipeline's triggers placed before theirs, so they take those events (Bitrise starts the
    /// first match) and theirs keep what else they match; and where pipeline's flows are Bitrise
    /// pipelines, the workflow each of those triggers started runs in pipeline's pipeline for the
    /// same event, with no `depends_on` (it starts with pipeline's build and never waits on the
    /// snapshots' result). With what became of each trigger. Any other clash stops it as `join` does.
    static func joinAheadOfTriggers(
        existing: String, generated: String, base: String
    ) throws(Clashes) -> (text: String, notes: [String]) {
        let clashes = self.clashes(BitriseFile(existing), BitriseFile(generated), base: base)
        guard !clashes.isEmpty, clashes.allSatisfy({ $0.trigger != nil }) else { throw Clashes(clashes: clashes) }
        var ours = generated
        var notes: [String] = []
        var added: Set<String> = []
        for clash in clashes {
            guard let trigger = clash.trigger else { continue }
            let flow = trigger.push ? "pipeline-post-merge" : "pipeline-pull-request"
            let header = "  \(flow):\n    workflows:\n"
            let joins = trigger.startsWorkflow && ours.contains(header)
            if joins, added.insert(flow + "/" + trigger.target).inserted {
                ours = ours.replacingOccurrences(
                    of: header,
                    with: header + "      \(trigger.target): {}   # the team's own: it waits on nothing of pipeline's\n"
                )
            }
            notes.append(
                "bitrise.yml:\(clash.line): \(trigger.push ? "pushes to" : "pull requests into") \(base) went to "
                    + "'\(trigger.target)'; pipeline's trigger now comes first and takes them, "
                    + (joins
                        ? "and '\(trigger.target)' runs in \(flow), beside pipeline's workflows and independent of them"
                        : "so start '\(trigger.target)' from \(flow) yourself")
                    + " (the trigger keeps what else it matches)")
        }
        let text = try join(existing: existing, generated: ours, base: base, triggersFirst: true)
        return (text, notes)
    }

    /// Our `app: envs:` items, into the team's `envs` (or as an `envs` of their `app`, or as an
    /// `app` section of ours when they have none).
    private static func appVariables(
        _ theirs: BitriseFile, _ ours: BitriseFile, appended: inout [String]
    ) -> [(at: Int, lines: [String])] {
        guard let app = ours.section("app"), let envs = ours.entries(app).first(where: { $0.name == "envs" }) else {
            return []
        }
        let items = Array(ours.lines[(envs.line + 1)..<app.upperBound]).reversed().drop {
            !BitriseFile.isContent($0)
        }.reversed()
        let ourItemIndent = items.first.map(BitriseFile.indentation) ?? 4
        guard let theirApp = theirs.section("app"), let appIndent = theirs.childIndentation(theirApp) else {
            appended +=
                ["", marker, "app:"] + ours.lines[app].reversed().drop { !BitriseFile.isContent($0) }.reversed()
            return []
        }
        guard let theirEnvs = theirs.entries(theirApp).first(where: { $0.name == "envs" }) else {
            let at = (theirs.lastContent(theirApp) ?? theirApp.lowerBound - 1) + 1
            let shift = appIndent - BitriseFile.indentation(ours.lines[envs.line])
            let block = [ours.lines[envs.line]] + Array(items)
            return [(at, [String(repeating: " ", count: appIndent) + marker] + BitriseFile.shifted(block, by: shift))]
        }
        // The envs block: the lines after its key, more indented than it (a sequence may sit at its key's column).
        let keyIndent = BitriseFile.indentation(theirs.lines[theirEnvs.line])
        var end = theirEnvs.line + 1
        while end < theirApp.upperBound {
            let line = theirs.lines[end]
            if BitriseFile.isContent(line),
                BitriseFile.indentation(line) < keyIndent
                    || (BitriseFile.indentation(line) == keyIndent && !line.drop(while: { $0 == " " }).hasPrefix("-"))
            {
                break
            }
            end += 1
        }
        let block = theirEnvs.line + 1..<end
        let itemIndent = theirs.childIndentation(block) ?? keyIndent + 2
        let at = (theirs.lastContent(block) ?? theirEnvs.line) + 1
        return [
            (
                at,
                [String(repeating: " ", count: itemIndent) + marker]
                    + BitriseFile.shifted(Array(items), by: itemIndent - ourItemIndent)
            )
        ]
    }

    /// Everything of `ours` the team's file already has: workflows, pipelines and app variables
    /// of the same names, and triggers that take the base branch's pushes or pull requests.
    static func clashes(_ theirs: BitriseFile, _ ours: BitriseFile, base: String) -> [Clash] {
        var clashes: [Clash] = []
        for key in ["workflows", "pipelines"] {
            guard let mine = ours.section(key), let range = theirs.section(key) else { continue }
            let names = Set(ours.entries(mine).map(\.name))
            for entry in theirs.entries(range) where names.contains(entry.name) {
                clashes.append(
                    Clash(
                        line: entry.line + 1,
                        reason: "\(key) has '\(entry.name)' already, a name pipeline's \(key) use"))
            }
        }
        if let mine = ours.section("app"), let range = theirs.section("app") {
            let variables = Set(variableNames(ours, mine).map(\.name))
            for variable in variableNames(theirs, range) where variables.contains(variable.name) {
                clashes.append(
                    Clash(line: variable.line + 1, reason: "app envs has \(variable.name) already, which pipeline sets")
                )
            }
        }
        if let range = theirs.section("trigger_map") {
            let items = theirs.items(range)
            let end = (theirs.lastContent(range) ?? range.lowerBound) + 1
            for (index, item) in items.enumerated() where item.fields["enabled"] != "false" {
                let target = item.fields["workflow"] ?? item.fields["pipeline"] ?? "?"
                let lines = item.line..<(index + 1 < items.count ? items[index + 1].line : end)
                func trigger(push: Bool) -> Trigger {
                    Trigger(lines: lines, target: target, startsWorkflow: item.fields["workflow"] != nil, push: push)
                }
                if let push = item.fields["push_branch"], matches(push, base) {
                    clashes.append(
                        Clash(
                            line: item.line + 1,
                            reason:
                                "trigger_map sends pushes to \(base) to '\(target)'; Bitrise runs only the first "
                                + "matching trigger, and pipeline's post-merge needs them (run '\(target)' from "
                                + "pipeline-post-merge, or narrow or remove this trigger)", trigger: trigger(push: true)
                        ))
                }
                let isPullRequest =
                    item.fields["pull_request_target_branch"] != nil
                    || item.fields["pull_request_source_branch"] != nil
                if isPullRequest, matches(item.fields["pull_request_target_branch"] ?? "*", base) {
                    clashes.append(
                        Clash(
                            line: item.line + 1,
                            reason:
                                "trigger_map sends pull requests into \(base) to '\(target)'; Bitrise runs only the "
                                + "first matching trigger, and pipeline's pull-request needs them (narrow or remove "
                                + "this trigger)", trigger: trigger(push: false)))
                }
            }
        }
        return clashes.sorted { $0.line < $1.line }
    }

    /// The variable names of an `app` section's `envs` items (`- NAME: value`).
    private static func variableNames(_ file: BitriseFile, _ app: Range<Int>) -> [(name: String, line: Int)] {
        guard let envs = file.entries(app).first(where: { $0.name == "envs" }) else { return [] }
        let keyIndent = BitriseFile.indentation(file.lines[envs.line])
        var names: [(String, Int)] = []
        for index in (envs.line + 1)..<app.upperBound where BitriseFile.isContent(file.lines[index]) {
            let line = file.lines[index]
            let text = line.drop { $0 == " " }
            if BitriseFile.indentation(line) <= keyIndent, !text.hasPrefix("-") { break }
            guard text.hasPrefix("-"), let name = BitriseFile.key(of: String(text.dropFirst())) else { continue }
            if name != "opts" { names.append((name, index)) }
        }
        return names
    }

    /// Bitrise's trigger patterns: `*` matches any run of characters.
    static func matches(_ pattern: String, _ branch: String) -> Bool {
        fnmatch(pattern, branch, 0) == 0
    }
}
