/// The first line of every file `pipeline init` writes:
/// `# pipeline init 0.1.0 · 3f9a0c21d4e8b7a6 · --ci github --store s3://team/app`: the version that
/// wrote it, a fingerprint of what it wrote (the rest of the file), and the flags that make the
/// same request again. `init --update` reads it to regenerate the file and to tell the team's
/// edits from init's text.
struct InitMarker: Equatable {
    static let prefix = "# pipeline init "
    let version: String
    /// The fingerprint of the file's text below this line.
    let fingerprint: String
    let flags: [String]

    var line: String {
        Self.prefix + "\(version) · \(fingerprint) · " + flags.map(SetupRequest.word).joined(separator: " ")
    }

    /// `text` with its marker line on top.
    static func stamp(_ text: String, version: String, flags: [String]) -> String {
        InitMarker(version: version, fingerprint: fingerprint(of: text), flags: flags).line + "\n" + text
    }

    /// The marker of `text` and the text below it; nil when its first line is none.
    static func read(_ text: String) -> (marker: InitMarker, body: String)? {
        let first = text.prefix { $0 != "\n" }
        guard first.hasPrefix(prefix) else { return nil }
        let fields = first.dropFirst(prefix.count).components(separatedBy: " · ")
        guard fields.count == 3, let flags = words(fields[2]) else { return nil }
        return (
            InitMarker(version: fields[0], fingerprint: fields[1], flags: flags),
            String(text.dropFirst(first.count + 1))
        )
    }

    /// Whether `text` is exactly what init wrote: its body's fingerprint is the marker's.
    static func isUnedited(_ text: String) -> Bool {
        guard let (marker, body) = read(text) else { return false }
        return fingerprint(of: body) == marker.fingerprint
    }

    /// FNV-1a over the UTF-8 bytes, 64 bits in hexadecimal: enough to tell two texts apart, not a
    /// security measure (nothing trusts it beyond choosing how to update a file).
    static func fingerprint(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Shell words as `SetupRequest.word` writes them: bare, or single-quoted with `'\''` for a
    /// quote; nil for anything else.
    static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var started = false
        var quoted = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "'" { quoted = false } else { current.append(character) }
            } else if character == "'" {
                quoted = true
                started = true
            } else if character == "\\", characters.first == "'" {
                current.append(characters.removeFirst())
            } else if character == " " {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        guard !quoted else { return nil }
        if started { words.append(current) }
        return words
    }
}
