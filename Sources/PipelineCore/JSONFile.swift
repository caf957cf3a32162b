import Foundation

/// The JSON files runs keep (timings, reports): stable key order, written whole or not at all, and
/// decoding errors said in a line.
public enum JSONFile {
    /// `value` with sorted keys, pretty-printed; `what` names it in errors.
    public static func encode(_ value: some Encodable, what: String) throws(FileError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw .cannotWrite(path: what, reason: error.localizedDescription)
        }
    }

    /// Writes a file whole (its folder made first), through a temporary file, so a reader never sees half of it.
    public static func write(_ data: Data, to url: URL) throws(FileError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Why `data` did not decode, in one line: the key path and the problem, or that it is not JSON
    /// of `format` at all.
    public static func reason(_ error: Error, format: String) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON of the \(format) format" : "\(path): \(context.debugDescription)"
        default:
            return error.localizedDescription
        }
    }
}

/// A file that could not be written, with why.
public enum FileError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
