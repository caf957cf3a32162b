import Foundation

/// The one Swift lexer: a file's text read line by line into code without comments (nested ones
/// too), with string literals (raw, multi-line, interpolated) kept or blanked, and the braces each
/// line opens and closes outside them. `SwiftSource` builds impact selection's view of a file on
/// it, and `TestDeclarations` the tests a file declares.
extension SwiftSource {
    fileprivate enum State {
        case code
        case lineComment
        case blockComment(depth: Int)
        case string(hashes: Int, multiline: Bool)
        /// `\( … )` inside a string: code, until its parentheses close.
        case interpolation(parentheses: Int)
    }

    /// What `scan` does with a string literal: keeps it (it is code: a changed literal is a changed
    /// line), or drops all of it but its opening delimiter, interpolations and the closing
    /// delimiter too (where only the code's shape matters, as for the test declarations a file makes).
    enum Literals { case kept, blanked }

    /// Each line's code (comments removed; string literals as `strings` says) and the braces it
    /// opens (true) and closes (false), in order, outside strings and comments.
    static func scan(_ text: String, strings: Literals = .kept) -> [(code: String, braces: [Bool])] {
        let bytes = Array(text.utf8)
        let (slash, star, quote, hash, backslash) = (
            UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "\\")
        )
        var result: [(code: String, braces: [Bool])] = []
        var code: [UInt8] = []
        var braces: [Bool] = []
        var stack: [State] = [.code]
        func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }
        func quotes(_ index: Int) -> Bool { at(index) == quote && at(index + 1) == quote && at(index + 2) == quote }
        func hashes(from index: Int) -> Int {
            var count = 0
            while at(index + count) == hash { count += 1 }
            return count
        }
        /// Whether the scan is inside a string literal (or an interpolation in one).
        var inLiteral: Bool {
            stack.contains {
                if case .string = $0 { true } else { false }
            }
        }
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            // Blanking: scanned as when kept, but what a literal's inside adds is dropped.
            let (mark, blanking) = (code.count, strings == .blanked && byte != UInt8(ascii: "\n") && inLiteral)
            defer { if blanking, code.count > mark { code.removeSubrange(mark...) } }
            if byte == UInt8(ascii: "\n") {
                result.append((String(decoding: code, as: UTF8.self), braces))
                code = []
                braces = []
                switch stack.last {
                case .lineComment: stack.removeLast()
                case .string(_, multiline: false): stack.removeLast()  // unterminated: the line ends it
                default: break
                }
                i += 1
                continue
            }
            switch stack.last ?? .code {
            case .lineComment:
                i += 1
            case .blockComment(let depth):
                if byte == star, at(i + 1) == slash {
                    stack.removeLast()
                    if depth > 1 { stack.append(.blockComment(depth: depth - 1)) }
                    i += 2
                } else if byte == slash, at(i + 1) == star {
                    stack.removeLast()
                    stack.append(.blockComment(depth: depth + 1))
                    i += 2
                } else {
                    i += 1
                }
            case .string(let count, let multiline):
                // Whitespace in a string is content: kept apart from the whitespace that collapses.
                code.append(byte == UInt8(ascii: " ") ? Self.space : byte == UInt8(ascii: "\t") ? Self.tab : byte)
                i += 1
                if byte == backslash {
                    let raw = hashes(from: i)
                    if raw == count, at(i + raw) == UInt8(ascii: "(") {
                        code += bytes[i...(i + raw)]
                        i += raw + 1
                        stack.append(.interpolation(parentheses: 0))
                    } else if count == 0, i < bytes.count, bytes[i] != UInt8(ascii: "\n") {
                        code.append(bytes[i])
                        i += 1
                    }
                } else if byte == quote, !multiline || (at(i) == quote && at(i + 1) == quote) {
                    let end = multiline ? i + 2 : i
                    if hashes(from: end) >= count {
                        code += bytes[i..<(end + count)]
                        i = end + count
                        stack.removeLast()
                    }
                }
            case .code, .interpolation:
                if byte == slash, at(i + 1) == slash {
                    stack.append(.lineComment)
                    code.append(UInt8(ascii: " "))
                    i += 2
                    continue
                }
                if byte == slash, at(i + 1) == star {
                    stack.append(.blockComment(depth: 1))
                    code.append(UInt8(ascii: " "))
                    i += 2
                    continue
                }
                let raw = byte == hash ? hashes(from: i) : 0
                if at(i + raw) == quote, byte == hash || byte == quote {
                    let multiline = quotes(i + raw)
                    let length = raw + (multiline ? 3 : 1)
                    code += bytes[i..<min(bytes.count, i + length)]
                    i += length
                    stack.append(.string(hashes: raw, multiline: multiline))
                    continue
                }
                if case .interpolation(let depth) = stack.last {
                    if byte == UInt8(ascii: "(") {
                        stack[stack.count - 1] = .interpolation(parentheses: depth + 1)
                    } else if byte == UInt8(ascii: ")") {
                        if depth == 0 {
                            stack.removeLast()
                        } else {
                            stack[stack.count - 1] = .interpolation(parentheses: depth - 1)
                        }
                    }
                } else if byte == UInt8(ascii: "{") {
                    braces.append(true)
                } else if byte == UInt8(ascii: "}") {
                    braces.append(false)
                }
                code.append(byte)
                i += 1
            }
        }
        result.append((String(decoding: code, as: UTF8.self), braces))
        return result
    }

    /// What a space and a tab inside a string literal become in `Line.text` and `tokens`.
    static let (space, tab): (UInt8, UInt8) = (1, 2)

    /// `text` as written: a string literal's spaces and tabs restored.
    static func display(_ text: String) -> String {
        String(text.map { $0 == "\u{1}" ? " " : $0 == "\u{2}" ? "\t" : $0 })
    }

    /// See `tokens`.
    static func tokens(_ lines: [String]) -> String {
        var result: [Character] = []
        var space = false
        func word(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        for line in lines {
            for character in line {
                if character == " " || character == "\t" || character == "\r" {
                    space = true
                    continue
                }
                if space, let last = result.last, word(last), word(character) { result.append(" ") }
                if character == ")" || character == "]", result.last == "," { result.removeLast() }
                result.append(character)
                space = false
            }
            space = true
        }
        return String(result)
    }
}
