/// The little XML S3 answers with (listings, errors), read without libxml2: start tags, end tags
/// and text, entities decoded, namespaces' prefixes dropped. Comments, declarations and processing
/// instructions are skipped and CDATA is text. Malformed input ends the events early; it never
/// traps, and nothing it holds is trusted beyond being text.
///
/// Foundation's `XMLParser` (libxml2) was used before: it leaks on malformed input (found by
/// fuzzing, `FuzzCorpusTests.s3ErrorLeak`), and it is one more library to load.
enum S3XML {
    enum Event: Equatable {
        case start(String)
        case end(String)
        case text(String)
    }

    static func events(_ data: some Collection<UInt8>) -> [Event] {
        let bytes = Array(data)
        var events: [Event] = []
        var index = 0
        func starts(_ prefix: String, at position: Int) -> Bool {
            let needle = Array(prefix.utf8)
            return position + needle.count <= bytes.count && Array(bytes[position..<position + needle.count]) == needle
        }
        func find(_ terminator: String, from position: Int) -> Int? {
            let needle = Array(terminator.utf8)
            guard needle.count <= bytes.count else { return nil }
            var at = position
            while at + needle.count <= bytes.count {
                if bytes[at] == needle[0], Array(bytes[at..<at + needle.count]) == needle { return at }
                at += 1
            }
            return nil
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                events.append(.text(decode(String(decoding: bytes[index..<end], as: UTF8.self))))
                index = end
                continue
            }
            if starts("<!--", at: index) {
                guard let end = find("-->", from: index + 4) else { break }
                index = end + 3
            } else if starts("<![CDATA[", at: index) {
                guard let end = find("]]>", from: index + 9) else { break }
                events.append(.text(String(decoding: bytes[(index + 9)..<end], as: UTF8.self)))
                index = end + 3
            } else if starts("<?", at: index) || starts("<!", at: index) {
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { break }
                index = end + 1
            } else {
                // A tag: up to the `>` outside quoted attribute values.
                var end = index + 1
                var quote: UInt8?
                while end < bytes.count {
                    let byte = bytes[end]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                    end += 1
                }
                guard end < bytes.count else { break }
                let inside = Array(bytes[(index + 1)..<end])
                index = end + 1
                let closing = inside.first == UInt8(ascii: "/")
                let selfClosing = !closing && inside.last == UInt8(ascii: "/")
                let body = inside.dropFirst(closing ? 1 : 0)
                let nameBytes = body.prefix { !isSpace($0) && $0 != UInt8(ascii: "/") }
                var name = String(decoding: nameBytes, as: UTF8.self)
                if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
                guard !name.isEmpty else { break }
                if closing {
                    events.append(.end(name))
                } else {
                    events.append(.start(name))
                    if selfClosing { events.append(.end(name)) }
                }
            }
        }
        return events
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` and `&#…;`/`&#x…;`; anything else is kept as written.
    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = after
                continue
            }
            let entity = after[..<semicolon]
            var decoded: String?
            switch entity {
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "amp": decoded = "&"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    decoded = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if entity.hasPrefix("#") {
                    decoded = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let decoded {
                result += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }
}
