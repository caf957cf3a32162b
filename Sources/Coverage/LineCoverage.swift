import Foundation

/// Covered of total, and the share.
public struct CoverageCount: Sendable, Codable, Equatable {
    public var covered: Int
    public var total: Int

    public init(covered: Int, total: Int) {
        self.covered = covered
        self.total = total
    }

    /// 0–100; 100 when there is nothing to cover.
    public var percent: Double { total == 0 ? 100 : Double(covered) * 100 / Double(total) }

    enum CodingKeys: String, CodingKey { case covered, total, percent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        covered = try container.decode(Int.self, forKey: .covered)
        total = try container.decode(Int.self, forKey: .total)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(covered, forKey: .covered)
        try container.encode(total, forKey: .total)
        try container.encode((percent * 100).rounded() / 100, forKey: .percent)
    }

    static func + (lhs: CoverageCount, rhs: CoverageCount) -> CoverageCount {
        CoverageCount(covered: lhs.covered + rhs.covered, total: lhs.total + rhs.total)
    }
}

/// A file's counts as llvm-cov's report (and SwiftPM's coverage JSON) give them: lines are
/// counted per function, so a line two functions share (a closure on its caller's line) counts twice.
public struct FileSummary: Sendable, Equatable {
    public var lines: CoverageCount
    public var functions: CoverageCount
}

/// One source file's coverage as llvm-cov exports it for lcov: each instrumented line once, with
/// its execution count, and each function with its first line and count; and llvm-cov's own
/// counts of the file (`summary`), which the summaries report.
public struct FileCoverage: Sendable, Equatable {
    public var path: String
    /// Line number → times executed.
    public var lines: [Int: UInt64] = [:]
    /// Function (its mangled name) → first line and times executed.
    public var functions: [String: (line: Int, count: UInt64)] = [:]
    /// llvm-cov's counts, from its JSON export; nil when only the lcov export was read.
    public var summary: FileSummary?

    public init(path: String) { self.path = path }

    /// Each line once, as lcov and Cobertura list them.
    public var distinctLines: CoverageCount {
        CoverageCount(covered: lines.values.filter { $0 > 0 }.count, total: lines.count)
    }

    /// Lines as llvm-cov and SwiftPM count them (each line once when only lcov was read).
    public var lineCount: CoverageCount { summary?.lines ?? distinctLines }

    public var functionCount: CoverageCount {
        summary?.functions
            ?? CoverageCount(covered: functions.values.filter { $0.count > 0 }.count, total: functions.count)
    }

    mutating func add(_ other: FileCoverage) {
        lines.merge(other.lines) { $0 &+ $1 }
        functions.merge(other.functions) { ($0.line, $0.count &+ $1.count) }
        summary = summary ?? other.summary
    }

    public static func == (lhs: FileCoverage, rhs: FileCoverage) -> Bool {
        lhs.path == rhs.path && lhs.lines == rhs.lines && lhs.summary == rhs.summary
            && lhs.functions.mapValues { "\($0.line):\($0.count)" }
                == rhs.functions.mapValues { "\($0.line):\($0.count)" }
    }
}

/// A whole report's coverage: one entry per source file, by path.
public struct LineCoverage: Sendable, Equatable {
    public var files: [String: FileCoverage] = [:]

    public init() {}

    public var lines: CoverageCount { files.values.map(\.lineCount).reduce(CoverageCount(covered: 0, total: 0), +) }
    public var functions: CoverageCount {
        files.values.map(\.functionCount).reduce(CoverageCount(covered: 0, total: 0), +)
    }

    /// Adds another report's counts (another node's, another shard's).
    public mutating func add(_ other: LineCoverage) {
        for (path, file) in other.files { files[path, default: FileCoverage(path: path)].add(file) }
    }

    /// The files `keep` names a path for (nil leaves a file out), under that path.
    public func selecting(_ keep: (String) -> String?) -> LineCoverage {
        var result = LineCoverage()
        for file in files.values {
            guard let path = keep(file.path) else { continue }
            var renamed = file
            renamed.path = path
            result.files[path, default: FileCoverage(path: path)].add(renamed)
        }
        return result
    }

    /// Reads an lcov tracefile: `SF`, `FN`, `FNDA`, `DA` and `end_of_record`; other records
    /// (counts, branches, a tool's warnings) are skipped. `name` names it in errors.
    public static func parse(lcov text: String, name: String) throws(CoverageError) -> LineCoverage {
        var result = LineCoverage()
        var current: FileCoverage?
        var number = 0
        /// `N,rest` of a record: the number and the rest.
        func pair(_ body: Substring, _ record: String, _ bad: (String) -> CoverageError) throws(CoverageError)
            -> (UInt64, String)
        {
            let fields = body.split(separator: ",", maxSplits: 1)
            guard fields.count == 2, let number = UInt64(fields[0]) else { throw bad("not a \(record) record") }
            return (number, String(fields[1]))
        }
        /// A line number that fits: lcov's are written as text, and text can say anything.
        func lineNumber(_ value: UInt64, _ bad: (String) -> CoverageError) throws(CoverageError) -> Int {
            guard let line = Int(exactly: value), line <= Int(Int32.max) else {
                throw bad("line number \(value) is out of range")
            }
            return line
        }
        /// Changes the file whose record is open (taken out meanwhile, so its tables are not copied).
        func update(_ bad: (String) -> CoverageError, _ change: (inout FileCoverage) -> Void) throws(CoverageError) {
            guard var file = current.take() else { throw bad("a line outside a file's record (SF: … end_of_record)") }
            change(&file)
            current = file
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            func bad(_ why: String) -> CoverageError {
                .unreadable(path: "\(name):\(number)", reason: why)
            }
            if line.hasPrefix("SF:") {
                current = FileCoverage(path: String(line.dropFirst(3)))
            } else if line == "end_of_record" {
                guard let file = current else { throw bad("end_of_record without SF") }
                result.files[file.path, default: FileCoverage(path: file.path)].add(file)
                current = nil
            } else if line.hasPrefix("DA:") {
                let (at, count) = try pair(line.dropFirst(3), "DA:line,count", bad)
                guard let count = UInt64(count) else { throw bad("not a DA:line,count record") }
                let line = try lineNumber(at, bad)
                try update(bad) { $0.lines[line, default: 0] &+= count }
            } else if line.hasPrefix("FN:") {
                let (at, name) = try pair(line.dropFirst(3), "FN:line,name", bad)
                let line = try lineNumber(at, bad)
                try update(bad) { $0.functions[name] = (line, $0.functions[name]?.count ?? 0) }
            } else if line.hasPrefix("FNDA:") {
                let (count, name) = try pair(line.dropFirst(5), "FNDA:count,name", bad)
                try update(bad) {
                    $0.functions[name] = ($0.functions[name]?.line ?? 0, ($0.functions[name]?.count ?? 0) &+ count)
                }
            }
        }
        if current != nil { throw .unreadable(path: name, reason: "the last record has no end_of_record") }
        return result
    }

    /// Adds llvm-cov's own counts of each file from its JSON export (`llvm-cov export
    /// -summary-only`: `data[0].files[].summary`). `name` names it in errors.
    public mutating func addSummaries(json: Data, name: String) throws(CoverageError) {
        struct Export: Decodable {
            struct Part: Decodable { let files: [File] }
            struct File: Decodable {
                let filename: String
                let summary: Summary
            }
            struct Summary: Decodable {
                let lines: Count
                let functions: Count
            }
            struct Count: Decodable {
                let count: Int
                let covered: Int
            }
            let data: [Part]
        }
        let export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: json)
        } catch {
            throw .unreadable(path: name, reason: "not llvm-cov's JSON export (\(error))")
        }
        for file in export.data.flatMap(\.files) {
            let summary = file.summary
            files[file.filename, default: FileCoverage(path: file.filename)].summary = FileSummary(
                lines: CoverageCount(covered: summary.lines.covered, total: summary.lines.count),
                functions: CoverageCount(covered: summary.functions.covered, total: summary.functions.count))
        }
    }

    /// The lcov tracefile: files sorted by path, lines by number, functions by line then name.
    public func lcov() -> String {
        var out = ""
        for file in files.values.sorted(by: { $0.path < $1.path }) {
            out += "SF:\(file.path)\n"
            let functions = file.functions.sorted { ($0.value.line, $0.key) < ($1.value.line, $1.key) }
            for (name, function) in functions { out += "FN:\(function.line),\(name)\n" }
            for (name, function) in functions { out += "FNDA:\(function.count),\(name)\n" }
            let counts = file.functionCount
            out += "FNF:\(counts.total)\nFNH:\(counts.covered)\n"
            for (line, count) in file.lines.sorted(by: { $0.key < $1.key }) { out += "DA:\(line),\(count)\n" }
            let lines = file.distinctLines
            out += "LF:\(lines.total)\nLH:\(lines.covered)\nend_of_record\n"
        }
        return out
    }
}
