import Foundation

/// The files of a run that keeps suites apart, one or more per process, named after the suite:
/// `<hex of the suite's name>-<rest>` (coverage profiles, read traces). A suite whose process
/// crashed and went on has several.
public enum SuiteFiles {
    /// The name of a file of `suite`'s: its hex prefix, then `rest`.
    public static func name(of suite: String, _ rest: String) -> String {
        suite.utf8.map { String(format: "%02x", $0) }.joined() + "-" + rest
    }

    /// The files in `folder` whose names end with `suffix`, by suite.
    public static func bySuite(in folder: URL, suffix: String) -> [String: [URL]] {
        var result: [String: [URL]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasSuffix(suffix) {
            guard let hex = name.split(separator: "-").first, hex.count % 2 == 0 else { continue }
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                guard let byte = UInt8(hex[index..<next], radix: 16) else { break }
                bytes.append(byte)
                index = next
            }
            guard bytes.count * 2 == hex.count, let suite = String(bytes: bytes, encoding: .utf8) else { continue }
            result[suite, default: []].append(folder.appendingPathComponent(name))
        }
        return result
    }
}
