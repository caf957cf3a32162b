import TestCore

/// Reads XCTest's console output as it grows: `Test Case 'Class.method' started at …` and
/// `Test Case 'Class.method' passed (0.302 seconds)` (Linux), or `'-[Module.Class method]'` (macOS).
/// Output between the two lines belongs to the test; its `error:` lines give the failure message.
struct XCTestOutputParser {
    /// Tests by the name XCTest prints; a queue, as two modules may hold the same class name.
    private var expected: [String: [TestID]]
    private var current: (test: TestID, printed: String, offset: Int, message: String?)?
    private var pending: [UInt8] = []
    private var consumed = 0

    init(tests: [TestID]) {
        expected = Dictionary(grouping: tests, by: \.xctestPrintedName)
    }

    /// Feeds newly written bytes; returns the events they complete.
    mutating func consume(_ bytes: some Sequence<UInt8>) -> [TestEvent] {
        pending.append(contentsOf: bytes)
        var events: [TestEvent] = []
        var lineStart = 0
        while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
            let offset = consumed + lineStart
            let line = String(decoding: pending[lineStart..<newline], as: UTF8.self)
            lineStart = newline + 1
            if let event = parse(line, offset: offset, end: consumed + lineStart) { events.append(event) }
        }
        // Drop the complete lines at once: per line would be quadratic in a large chunk.
        pending.removeFirst(lineStart)
        consumed += lineStart
        return events
    }

    private mutating func parse(_ line: String, offset: Int, end: Int) -> TestEvent? {
        guard line.hasPrefix("Test Case '") else {
            if current != nil, current?.message == nil, line.contains(": error: ") {
                current?.message = String(line.split(separator: ": error: ", maxSplits: 1).last ?? "")
            }
            return nil
        }
        let rest = line.dropFirst("Test Case '".count)
        guard let quote = rest.firstIndex(of: "'") else { return nil }
        let printed = Self.printedName(String(rest[..<quote]))
        let verdict = rest[rest.index(after: quote)...].trimmingPrefix(" ")
        if verdict.hasPrefix("started") {
            guard var queue = expected[printed], !queue.isEmpty else { return nil }
            let test = queue.removeFirst()
            expected[printed] = queue
            current = (test, printed, offset, nil)
            return .started(test, offset: offset)
        }
        guard let running = current, running.printed == printed else { return nil }
        let status: TestStatus
        if verdict.hasPrefix("passed") {
            status = .passed
        } else if verdict.hasPrefix("failed") {
            status = .failed
        } else if verdict.hasPrefix("skipped") {
            status = .skipped
        } else {
            return nil
        }
        current = nil
        let seconds = Self.seconds(in: verdict) ?? 0
        return .finished(
            running.test, status: status, seconds: seconds,
            message: status == .failed ? (running.message ?? "failed") : nil, range: running.offset..<end)
    }

    /// `Class.method` from Linux's form or from macOS's `-[Module.Class method]`.
    static func printedName(_ quoted: String) -> String {
        guard quoted.hasPrefix("-["), quoted.hasSuffix("]") else { return quoted }
        let parts = quoted.dropFirst(2).dropLast().split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return quoted }
        let className = parts[0].split(separator: ".").last ?? parts[0]
        return "\(className).\(parts[1])"
    }

    /// The number in `(0.302 seconds)`.
    static func seconds(in verdict: Substring) -> Double? {
        guard let open = verdict.firstIndex(of: "("), let space = verdict[open...].firstIndex(of: " ") else {
            return nil
        }
        return Double(verdict[verdict.index(after: open)..<space])
    }
}
