import Foundation

/// A number of bytes, written in specs as `512KB`, `1MB`, `2GiB` or plain `1024`.
public struct ByteCount: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bytes: Int

    public init(_ bytes: Int) { self.bytes = bytes }

    private static let units: [(suffix: String, factor: Int)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30),
        ("kb", 1_000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("b", 1),
    ]

    /// Parses `512KB`, `1.5MB`, `2GiB` or `1024`; nil when the text is not a size.
    public init?(parsing text: String) {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        let unit = Self.units.first { lowered.hasSuffix($0.suffix) }
        let number = unit.map { String(lowered.dropLast($0.suffix.count)) } ?? lowered
        guard let value = DecimalNumber.parse(number.trimmingCharacters(in: .whitespaces)) else { return nil }
        let bytes = value * Double(unit?.factor ?? 1)
        guard bytes < Double(Int.max / 2) else { return nil }
        self.bytes = Int(bytes.rounded())
    }

    public static func < (lhs: ByteCount, rhs: ByteCount) -> Bool { lhs.bytes < rhs.bytes }

    public var description: String {
        let units = ["bytes", "KB", "MB", "GB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1_000, index < units.count - 1 {
            value /= 1_000
            index += 1
        }
        return index == 0 ? "\(bytes) bytes" : String(format: "%.1f %@", value, units[index])
    }
}

/// Parsing of a plain non-negative decimal number (no exponent, no sign, at most 12 digits).
enum DecimalNumber {
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, text.count <= 12,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts.count == 1 || !parts[1].isEmpty
        else { return nil }
        return Double(text)
    }
}

extension Duration {
    private static let units: [(suffix: String, milliseconds: Double)] = [
        ("ms", 1), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000),
    ]

    /// Parses durations as written in specs: `90s`, `2m`, `1h`, `1h30m`, `500ms`, `1.5s`, `30d`.
    /// A leading `-` is accepted here so validation can say "must be greater than zero".
    public init?(parsingSpec text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count)
            guard let value = DecimalNumber.parse(String(number)),
                let unit = Self.units.first(where: { rest.hasPrefix($0.suffix) })
            else { return nil }
            rest = rest.dropFirst(unit.suffix.count)
            total += value * unit.milliseconds
        }
        guard total < 1e12 else { return nil }
        self = .milliseconds(Int64((negative ? -total : total).rounded()))
    }

    /// The duration as a spec would write it: `90ms`, `45s`, `2m`, `1h30m`, `1.5s`.
    public var specText: String {
        let milliseconds = components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = abs(milliseconds)
        if magnitude == 0 { return "0s" }
        if magnitude < 1_000 { return "\(sign)\(magnitude)ms" }
        if magnitude % 1_000 != 0 || magnitude < 60_000 {
            let seconds = Double(magnitude) / 1_000
            return sign + (seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s")
        }
        let seconds = magnitude / 1_000
        var text = sign
        if seconds >= 3_600 { text += "\(seconds / 3_600)h" }
        if seconds % 3_600 >= 60 { text += "\(seconds % 3_600 / 60)m" }
        if seconds % 60 != 0 { text += "\(seconds % 60)s" }
        return text
    }

    /// Seconds as a floating-point number, for JSON and reports.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Where a set of references lives: a folder (the default) or an S3 bucket and prefix.
public enum StoreAddress: Sendable, Hashable, CustomStringConvertible {
    case folder(path: String)
    case s3(bucket: String, prefix: String)

    /// Parses `some/folder` or `s3://bucket/prefix`; nil for any other URL scheme.
    public init?(parsing text: String) {
        if text.hasPrefix("s3://") {
            let rest = text.dropFirst("s3://".count)
            let bucket = rest.prefix { $0 != "/" }
            let prefix = rest.dropFirst(bucket.count).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            self = .s3(bucket: String(bucket), prefix: prefix)
        } else if text.contains("://") {
            return nil
        } else {
            self = .folder(path: text)
        }
    }

    public var description: String {
        switch self {
        case .folder(let path): path
        case .s3(let bucket, let prefix): prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
        }
    }
}

/// Where recorded test durations are kept: a test stage's `timings:`, `--timings`. Kept in a store,
/// they are shared by every CI machine, and shared runs keep their work queues beside them.
public enum TimingsAddress: Sendable, Hashable, CustomStringConvertible {
    /// The package's own file, `.build/pipeline/timings.json` (`local`).
    case local
    /// A JSON file on this machine or a shared disk.
    case file(path: String)
    /// The spec's feature or develop store: `pipeline-timings.json` under its prefix.
    case store(StoreRole)
    /// An S3 prefix: `s3://bucket/prefix/pipeline-timings.json`.
    case s3(bucket: String, prefix: String)

    /// Whether only develop's jobs (and this machine) write what is kept here: the package's file, a
    /// file, or the develop store (a pull request's job keeps its own in feature). Feature, and an
    /// S3 prefix any job with write access may write, are not.
    public var writtenByDevelopOnly: Bool {
        switch self {
        case .local, .file, .store(.develop): true
        case .store, .s3: false
        }
    }

    /// Parses `local`, `feature`, `develop`, `s3://bucket/prefix` or a file path; nil for another URL scheme.
    public init?(parsing text: String) {
        if text == "local" {
            self = .local
            return
        }
        if let role = StoreRole(rawValue: text) {
            self = .store(role)
            return
        }
        switch StoreAddress(parsing: text) {
        case .s3(let bucket, let prefix)?: self = .s3(bucket: bucket, prefix: prefix)
        case .folder(let path)?: self = .file(path: path)
        case nil: return nil
        }
    }

    public var description: String {
        switch self {
        case .local: "local"
        case .file(let path): path
        case .store(let role): role.rawValue
        case .s3(let bucket, let prefix): StoreAddress.s3(bucket: bucket, prefix: prefix).description
        }
    }
}

/// How many shards a test stage runs: as many as the machine has cores, or a fixed number.
public enum ShardCount: Sendable, Hashable, CustomStringConvertible {
    case auto
    case fixed(Int)

    public init?(parsing text: String) {
        if text == "auto" {
            self = .auto
        } else if let number = Int(text) {
            self = .fixed(number)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .fixed(let count): "\(count)"
        }
    }

    /// The number of shards on a machine with `cores` cores.
    public func resolved(cores: Int) -> Int {
        switch self {
        case .auto: max(1, cores)
        case .fixed(let count): count
        }
    }
}

/// A share written as a percentage: `10%` (or `10`), from above 0 to 100.
public struct Percentage: Sendable, Hashable, CustomStringConvertible {
    /// The share from 0 to 1.
    public let share: Double

    /// Parses `10%` or `10`; nil outside (0, 100].
    public init?(parsing text: String) {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number), percent > 0, percent <= 100 else { return nil }
        share = percent / 100
    }

    public var description: String { "\(share * 100)%" }
}
