import Foundation
import PipelineCore

/// A day of the calendar, written `YYYY-MM-DD`: when a quarantine entry runs out.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Parses `YYYY-MM-DD`, refusing days the calendar does not have (2026-02-30).
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day))
        else { return nil }
        let back = Self.calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// The day (in UTC) of `date`.
    public init(_ date: Date) {
        let parts = Self.calendar.dateComponents([.year, .month, .day], from: date)
        (year, month, day) = (parts.year!, parts.month!, parts.day!)
    }

    public static var today: CalendarDay { CalendarDay(Date()) }
    /// A day before any expiry: reading a file with it as today leaves out the expiry check.
    public static let past = CalendarDay(parsing: "0001-01-01")!

    public func adding(days: Int) -> CalendarDay {
        let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day))!
        return CalendarDay(Self.calendar.date(byAdding: .day, value: days, to: date)!)
    }

    /// Whole days from `self` to `other` (negative when `other` is earlier).
    public func days(until other: CalendarDay) -> Int {
        let from = Self.calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let to = Self.calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day))!
        return Self.calendar.dateComponents([.day], from: from, to: to).day!
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// The repository's known-flaky tests, reviewed like code in `pipelines/quarantine.yml`.
/// A quarantined test still runs; its failure is reported as quarantined and does not fail the
/// run. Every entry has an owner, a reason and an expiry day; an expired entry is an error, so a
/// quarantine cannot quietly become permanent. The format is in docs/quarantine.md.
public struct Quarantine: Sendable {
    public struct Entry: Sendable, Equatable {
        public enum Target: Sendable, Equatable {
            /// One test by its full name, as `pipeline test --list` prints it.
            case test(String)
            /// A regular expression the whole test name must match.
            case pattern(String)
        }

        public var target: Target
        public var owner: String
        public var reason: String
        public var expires: CalendarDay
        /// Where the entry starts in the file.
        public var location: SourceLocation

        public init(
            target: Target, owner: String, reason: String, expires: CalendarDay, location: SourceLocation = .start
        ) {
            self.target = target
            self.owner = owner
            self.reason = reason
            self.expires = expires
            self.location = location
        }

        /// The test name or the pattern, as written.
        public var name: String {
            switch target {
            case .test(let name), .pattern(let name): name
            }
        }
    }

    /// The file's name inside the `pipelines/` folder. It is not a pipeline.
    public static let fileName = "quarantine.yml"

    /// The file, as messages name it.
    public var file: String
    public var entries: [Entry]

    public init(file: String, entries: [Entry]) {
        self.file = file
        self.entries = entries
    }

    /// A matcher from test names to the entry that quarantines them: an entry naming the test
    /// first, then the first pattern that matches the whole name.
    public func matcher() -> (String) -> Entry? {
        var byName: [String: Entry] = [:]
        for entry in entries { if case .test(let name) = entry.target, byName[name] == nil { byName[name] = entry } }
        let patterns = entries.compactMap { entry -> (Regex<AnyRegexOutput>, Entry)? in
            guard case .pattern(let pattern) = entry.target, let regex = try? Regex(pattern) else { return nil }
            return (regex, entry)
        }
        return { [byName] name in
            if let entry = byName[name] { return entry }
            return patterns.first { (try? $0.0.wholeMatch(in: name)) != nil }?.1
        }
    }

    /// The entries that match none of `tests`: renamed or deleted tests, or mistyped names.
    public func unknown(among tests: [String]) -> [Entry] {
        let match = matcher()
        let used = Set(tests.compactMap { match($0)?.location })
        return entries.filter { !used.contains($0.location) }
    }

    /// One warning line per entry matching no test, naming the file and line.
    public func warnings(among tests: [String]) -> [String] {
        unknown(among: tests).map { entry in
            let kind = if case .pattern = entry.target { "pattern" } else { "test" }
            return
                "\(file):\(entry.location.line):\(entry.location.column): warning: quarantined \(kind) '\(entry.name)' "
                + "matches no test of the suite; remove the entry if the test is gone"
        }
    }
}

/// Reads `pipelines/quarantine.yml`: the same YAML subset and file:line:column messages as the
/// pipeline specs, every problem at once.
public enum QuarantineLoader {
    /// The file in a repository's `pipelines/` folder, when there is one.
    public static func file(in catalog: PipelineCatalog) -> URL? {
        let url = catalog.folder.appendingPathComponent(Quarantine.fileName)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The quarantine of the repository around `directory`: its `pipelines/quarantine.yml`, read and
    /// checked; nil when there is no `pipelines/` folder or no such file in it.
    public static func find(from directory: URL, today: CalendarDay = .today) throws(SpecError) -> Quarantine? {
        let catalog: PipelineCatalog
        do {
            catalog = try PipelineCatalog.locate(from: directory)
        } catch {
            return nil
        }
        return try file(in: catalog).map { url throws(SpecError) in
            try load(url, displayPath: catalog.displayPath(of: url), today: today)
        }
    }

    public static func load(_ url: URL, displayPath: String, today: CalendarDay = .today) throws(SpecError)
        -> Quarantine
    {
        try parse(SpecLoader.read(url, displayPath: displayPath), file: displayPath, today: today)
    }

    /// Parses and checks the file; an entry past its expiry day is an error.
    public static func parse(_ text: String, file: String, today: CalendarDay = .today) throws(SpecError) -> Quarantine
    {
        let blank = text.split(whereSeparator: \.isNewline).allSatisfy {
            let line = $0.drop { $0 == " " || $0 == "\t" }
            return line.isEmpty || line.hasPrefix("#")
        }
        if blank { return Quarantine(file: file, entries: []) }
        var decoder = SpecDecoder(file: file)
        let entries = decoder.quarantine(try SpecLoader.document(text, file: file), today: today)
        guard let entries, decoder.diagnostics.isEmpty else {
            throw .invalid(decoder.diagnostics.sorted { $0.location < $1.location })
        }
        return Quarantine(file: file, entries: entries)
    }
}

extension SpecDecoder {
    /// `quarantine:` followed by a list of entries, each with `test:` or `pattern:`, `owner:`,
    /// `reason:` and `expires:`.
    mutating func quarantine(_ root: YAMLNode, today: CalendarDay) -> [Quarantine.Entry]? {
        guard let fields = fields(root, at: .root, what: "the quarantine", allowed: ["quarantine"]) else { return nil }
        guard let list = fields.values["quarantine"] else {
            report(
                fields.location, .root,
                "missing required key 'quarantine' (a list of entries, each with test: or pattern:, owner:, "
                    + "reason: and expires:)")
            return nil
        }
        let path = SpecKeyPath.root.appending("quarantine")
        let items: [YAMLNode]
        switch list.value {
        case .sequence(let nodes): items = nodes
        case .null: items = []
        default:
            report(
                list.location, path,
                "expected a list of entries (lines starting with '- '), found \(list.kindDescription)")
            return nil
        }
        var entries: [Quarantine.Entry] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let itemPath = path.appending(index: index)
            guard let entry = quarantineEntry(item, itemPath, today: today) else { continue }
            if let first = seen[entry.name] {
                report(
                    item.location, itemPath,
                    "'\(entry.name)' is already quarantined by entry \(first); keep one entry per test")
                continue
            }
            seen[entry.name] = index
            entries.append(entry)
        }
        return entries
    }

    private mutating func quarantineEntry(_ node: YAMLNode, _ path: SpecKeyPath, today: CalendarDay) -> Quarantine
        .Entry?
    {
        guard
            let fields = fields(
                node, at: path, what: "a quarantine entry",
                allowed: ["test", "pattern", "owner", "reason", "expires"])
        else { return nil }
        let test = value(fields, "test") { $0.string($1, $2) }
        let pattern = value(fields, "pattern") { decoder, node, path in
            decoder.scalar(node, path, expected: "a regular expression") { (try? Regex($0)) == nil ? nil : $0 }
        }
        let owner = value(fields, "owner", required: true) { $0.text($1, $2) }
        let reason = value(fields, "reason", required: true) { $0.text($1, $2) }
        let expires = value(fields, "expires", required: true) { decoder, node, path in
            decoder.scalar(node, path, expected: "a day written YYYY-MM-DD", parse: CalendarDay.init(parsing:))
        }
        let target: Quarantine.Entry.Target
        switch (test, pattern) {
        case (let test?, nil): target = .test(test)
        case (nil, let pattern?): target = .pattern(pattern)
        case (_?, _?):
            report(node.location, path, "an entry names a test or a pattern, not both")
            return nil
        case (nil, nil):
            if !fields.values.keys.contains("test") && !fields.values.keys.contains("pattern") {
                report(
                    node.location, path,
                    "missing required key 'test' (a full test name) or 'pattern' (a regular expression)")
            }
            return nil
        }
        if let expires, expires < today {
            report(
                fields.values["expires"]!.location, path.appending("expires"),
                "the quarantine of '\((test ?? pattern)!)' expired on \(expires); "
                    + "fix the test and remove the entry, or give it a new day with a reason")
            return nil
        }
        guard let owner, let reason, let expires else { return nil }
        return Quarantine.Entry(target: target, owner: owner, reason: reason, expires: expires, location: node.location)
    }

    /// A string with something in it besides spaces.
    private mutating func text(_ node: YAMLNode, _ path: SpecKeyPath) -> String? {
        scalar(node, path, expected: "some text") { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }
}

/// Adds entries to a quarantine file as text, keeping its comments and layout, and checks the
/// result before it replaces the file.
public enum QuarantineEditor {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The test or pattern has an entry already.
        case alreadyQuarantined(name: String, file: String, line: Int, expires: CalendarDay)
        case cannotWrite(file: String, reason: String)

        public var description: String {
            switch self {
            case .alreadyQuarantined(let name, let file, let line, let expires):
                "'\(name)' is already quarantined until \(expires) at \(file):\(line); edit that entry instead"
            case .cannotWrite(let file, let reason):
                "cannot write \(file): \(reason)"
            }
        }
    }

    /// The file's text with `entry` added at the end of its list (a new file when `text` is nil).
    /// Throws the file's own problems (an expired entry among them) rather than adding to a broken file.
    public static func adding(
        _ entry: Quarantine.Entry, to text: String?, file: String,
        today: CalendarDay = .today
    ) throws -> String {
        let existing = try text.map { text throws(SpecError) in
            try QuarantineLoader.parse(text, file: file, today: today)
        }
        if let found = existing?.entries.first(where: { $0.name == entry.name }) {
            throw Failure.alreadyQuarantined(
                name: entry.name, file: file, line: found.location.line, expires: found.expires)
        }
        let key = if case .pattern = entry.target { "pattern" } else { "test" }
        let fields = [
            (key, entry.name), ("owner", entry.owner), ("reason", entry.reason), ("expires", entry.expires.description),
        ]
        var result: String
        var indent = "  "
        if let text, let first = existing?.entries.first {
            // Under the list's own indentation, after everything else.
            let line = text.split(separator: "\n", omittingEmptySubsequences: false)[first.location.line - 1]
            indent = String(line.prefix { $0 == " " })
            result = text.hasSuffix("\n") ? text : text + "\n"
        } else {
            // No entry yet: keep the comments, then start the list.
            let comments = (text ?? header).split(separator: "\n", omittingEmptySubsequences: false).filter {
                $0.drop { $0 == " " }.hasPrefix("#")
            }
            result = comments.map { $0 + "\n" }.joined() + "quarantine:\n"
        }
        for (index, (name, value)) in fields.enumerated() {
            result += indent + (index == 0 ? "- " : "  ") + "\(name): \(SpecWriter.quoted(value))\n"
        }
        let added = try QuarantineLoader.parse(result, file: file, today: today)
        guard
            added.entries.last
                == Quarantine.Entry(
                    target: entry.target, owner: entry.owner, reason: entry.reason,
                    expires: entry.expires, location: added.entries.last!.location)
        else {
            throw Failure.cannotWrite(
                file: file,
                reason: "its layout is unusual; add the entry by hand (test:, owner:, reason:, expires: YYYY-MM-DD)")
        }
        return result
    }

    /// Writes the text whole, or not at all.
    public static func write(_ text: String, to url: URL, file: String) throws(Failure) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(file: file, reason: error.localizedDescription)
        }
    }

    private static let header = """
        # Known-flaky tests: they still run, and their failures do not fail the run.
        # Every entry names its owner, a reason and the day it expires (see docs/quarantine.md).
        """
}

extension QuarantineEditor.Failure: ExitCoded {
    public var exitStatus: ExitStatus {
        if case .alreadyQuarantined = self { .usage } else { .spec }
    }
}
