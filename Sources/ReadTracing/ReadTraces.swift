import Foundation
import PipelineCore

/// What one suite's processes read, from their trace files.
public enum SuiteReads: Sendable, Equatable {
    /// The absolute paths opened for reading (or listed), `.` and `..` taken out as written: a
    /// path through a symbolic link stays that path.
    case read(Set<String>)
    /// The reads cannot be told: a trace was cut short (the process crashed or was killed before
    /// its end) or is not a trace. Never "read nothing".
    case unknown(String)
}

/// The trace files of a recording (`<hex of the suite>-<pid>.trace`, `SuiteFiles`), read by suite.
public enum ReadTraces {
    public static let header = "pipeline-read-trace 1"

    /// Each suite's reads, from the traces in `folder`. A suite with no trace is absent.
    public static func read(folder: URL) -> [String: SuiteReads] {
        var result: [String: SuiteReads] = [:]
        for (suite, files) in SuiteFiles.bySuite(in: folder, suffix: ".trace") {
            var paths: Set<String> = []
            var unknown: String?
            for file in files.sorted(by: { $0.path < $1.path }) {
                switch parse(file) {
                case .read(let read): paths.formUnion(read)
                case .unknown(let why): unknown = unknown ?? why
                }
            }
            result[suite] = unknown.map { .unknown($0) } ?? .read(paths)
        }
        return result
    }

    /// One process's trace. Complete when it ends with the line `end` (a process that replaced its
    /// image by `exec` appends a new header to the same file, and only its last image must end).
    static func parse(_ file: URL) -> SuiteReads {
        let process = file.deletingPathExtension().lastPathComponent.split(separator: "-").last.map(String.init) ?? "?"
        guard let data = try? Data(contentsOf: file) else {
            return .unknown("the read trace of process \(process) cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix(header + "\n") else {
            return .unknown("the read trace of process \(process) is not one (no \"\(header)\" line first)")
        }
        guard text.hasSuffix("\nend\n") else {
            return .unknown(
                "the read trace of process \(process) was cut short: it crashed or was killed before its end")
        }
        var paths: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("r /") {
            paths.insert(standardized(String(line.dropFirst(2))))
        }
        return .read(paths)
    }

    /// `path` with `.`, `..` and repeated slashes taken out, without following links.
    public static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
