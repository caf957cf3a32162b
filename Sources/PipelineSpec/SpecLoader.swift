import Foundation

/// Reads a pipeline spec: YAML-lite parsing, typed decoding, then validation; every problem at once.
public enum SpecLoader {
    /// Parses and validates spec text. `file` names it in messages; `fileStem` is the name it must carry.
    public static func parse(_ text: String, file: String, fileStem: String) throws(SpecError) -> PipelineSpec {
        let root = try document(text, file: file)
        var decoder = SpecDecoder(file: file)
        let decoded = decoder.decode(root)
        var diagnostics = decoder.diagnostics
        if let decoded {
            var validator = SpecValidator(file: file, fileStem: fileStem, decoder: decoder)
            validator.validate(decoded)
            diagnostics += validator.diagnostics
        }
        guard let spec = decoded, diagnostics.isEmpty else {
            // Sorted by place; the sort is stable, so problems at one place keep the order they were found in.
            throw .invalid(
                diagnostics.enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
                    .map(\.element))
        }
        return spec
    }

    /// The YAML-lite tree of `text`, or the problem that stops reading it.
    static func document(_ text: String, file: String) throws(SpecError) -> YAMLNode {
        do {
            return try YAMLDocument.parse(text, file: file)
        } catch {
            throw .invalid([error])
        }
    }

    /// Reads and parses the spec at `url`; `displayPath` names it in messages.
    public static func load(_ url: URL, displayPath: String) throws(SpecError) -> PipelineSpec {
        let text = try read(url, displayPath: displayPath)
        return try parse(text, file: displayPath, fileStem: url.deletingPathExtension().lastPathComponent)
    }

    static func read(_ url: URL, displayPath: String) throws(SpecError) -> String {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard attributes[.type] as? FileAttributeType != .typeDirectory else {
                throw SpecError.unreadable(file: displayPath, reason: "it is a folder, not a file")
            }
            size = (attributes[.size] as? Int) ?? 0
        } catch let error as SpecError {
            throw error
        } catch {
            throw .unreadable(file: displayPath, reason: "no such file")
        }
        // Refuse a huge file before reading it into memory.
        guard size <= YAMLDocument.maximumSize else {
            throw .invalid([
                Diagnostic(
                    file: displayPath, location: .start,
                    message:
                        "file is \(ByteCount(size)); a pipeline spec may be at most \(ByteCount(YAMLDocument.maximumSize))"
                )
            ])
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(file: displayPath, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .invalid([
                Diagnostic(
                    file: displayPath, location: invalidUTF8Location(in: data),
                    message: "file is not UTF-8 text")
            ])
        }
        return text
    }

    /// Where the first byte that is not UTF-8 sits.
    private static func invalidUTF8Location(in data: Data) -> SourceLocation {
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var location = SourceLocation.start
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" {
                location = SourceLocation(line: location.line + 1, column: 1)
            } else {
                location.column += 1
            }
        }
        return location
    }
}
