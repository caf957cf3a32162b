import Foundation

/// One reference in a review, with what it takes to show it: the images (PNG data) and their
/// comparison, or a line diff for a text reference.
public struct ReviewEntry: Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// A snapshot test failed: the new value differs from the reference.
        case failed
        /// A snapshot test failed because the reference does not exist.
        case missing
        /// A reference was written during a CI run (where recording is off).
        case written
        /// Between two stores: changed, added, or gone.
        case changed, new, removed
    }

    /// `<Test>/<file>`.
    public let key: String
    public let status: Status
    public var comparison: ImageComparison? = nil
    public var reference: Data? = nil
    public var new: Data? = nil
    /// Whether there is a new value (an image, text or any other file): what CI keeps as a candidate.
    public var hasNewValue = false
    public var overlay: Data? = nil
    public var textDiff: TextDiff? = nil
    /// The failing test, as the runner names it, and its failure message.
    public var testName: String? = nil
    public var message: String? = nil
    /// Why the two sides could not be compared, or where a reference was looked for.
    public var note: String? = nil
    /// Where the reference was rendered, when that is not where the new value was.
    public var rendering: String? = nil

    public init(
        key: String, status: Status, comparison: ImageComparison? = nil, reference: Data? = nil,
        new: Data? = nil, overlay: Data? = nil, note: String? = nil
    ) {
        self.key = key
        self.status = status
        self.comparison = comparison
        self.reference = reference
        self.new = new
        hasNewValue = new != nil
        self.overlay = overlay
        self.note = note
    }

    /// The test file (reference folder) the entry belongs to.
    public var test: String { String(key.prefix { $0 != "/" }) }

    /// An entry comparing two files, either of which may be absent: PNG images get their match
    /// ratio and overlay; text gets a line diff; anything else is shown as it is. A file that
    /// cannot be read or decoded is named in the note, never fatal.
    public static func comparing(
        key: String, status: Status, reference: URL?, new: URL?,
        comparer: ImageComparer
    ) -> ReviewEntry {
        var entry = ReviewEntry(key: key, status: status)
        var problems: [String] = []
        func load(_ url: URL?) -> Data? {
            guard let url else { return nil }
            do { return try Data(contentsOf: url) } catch {
                problems.append("\(url.path): cannot be read (\(error.localizedDescription))")
                return nil
            }
        }
        let referenceData = load(reference)
        let newData = load(new)
        entry.hasNewValue = newData != nil
        let images = [referenceData, newData].compactMap { $0 }
        if !images.isEmpty, images.allSatisfy(Self.isPNG) {
            entry.reference = referenceData
            entry.new = newData
            if let reference, let new, referenceData != nil, newData != nil {
                do {
                    let old = try PNG.read(reference)
                    let now = try PNG.read(new)
                    entry.comparison = comparer.compare(old, now)
                    let overlay = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "pipeline-overlay-\(UUID().uuidString).png")
                    defer { try? FileManager.default.removeItem(at: overlay) }
                    try PNG.write(comparer.overlay(old, now), to: overlay)
                    entry.overlay = try? Data(contentsOf: overlay)
                } catch {
                    problems.append("not compared: \(error)")
                }
            }
        } else if let text = images.isEmpty ? nil : Self.texts(referenceData, newData) {
            entry.textDiff = TextDiff(reference: text.reference, new: text.new)
        } else if !images.isEmpty {
            let named = [(reference, referenceData), (new, newData)].compactMap { url, data in
                data.map { _ in url?.lastPathComponent ?? "" }
            }
            problems.append(
                "not compared: \(Set(named).sorted().joined(separator: ", ")) is neither a PNG image nor UTF-8 text "
                    + "(a corrupt or truncated image?)")
        }
        entry.note = problems.isEmpty ? nil : problems.joined(separator: "; ")
        return entry
    }

    static func isPNG(_ data: Data) -> Bool {
        data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// Both sides as text (an absent side is empty), when every present side is UTF-8 without NUL bytes.
    private static func texts(_ reference: Data?, _ new: Data?) -> (reference: String, new: String)? {
        func text(_ data: Data?) -> String? {
            guard let data else { return "" }
            guard !data.contains(0) else { return nil }
            return String(data: data, encoding: .utf8)
        }
        guard let old = text(reference), let now = text(new) else { return nil }
        return (old, now)
    }
}
