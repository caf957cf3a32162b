import Foundation

/// Reads an S3 `<Error><Code>…</Code><Message>…</Message></Error>` body.
enum ErrorParser {
    static func parse(_ data: Data) -> (code: String, message: String)? {
        var code: String?
        var message = ""
        var text = ""
        var sawError = false
        for event in S3XML.events(data) {
            switch event {
            case .start(let name):
                text = ""
                if name == "Error" { sawError = true }
            case .text(let string):
                text += string
            case .end(let name):
                if name == "Code" { code = text }
                if name == "Message" { message = text }
            }
        }
        guard sawError, let code else { return nil }
        return (code, message)
    }
}
