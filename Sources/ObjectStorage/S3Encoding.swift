import Foundation

/// The encodings S3 signatures need, since libcurl 7.88 signs URLs exactly as written.
enum S3Encoding {
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Every byte but `A-Za-z0-9-._~` (and `/` when `keepSlash`) as `%XX`, uppercase.
    static func encode(_ text: String, keepSlash: Bool) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                result.append("/")
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func path(_ key: String) -> String { encode(key, keepSlash: true) }

    /// Query parameters sorted by name, names and values fully encoded.
    static func query(_ parameters: [(String, String)]) -> String {
        parameters.sorted { $0.0 < $1.0 }
            .map { "\(encode($0.0, keepSlash: false))=\(encode($0.1, keepSlash: false))" }
            .joined(separator: "&")
    }
}
