import Foundation
import TestCore

/// Reads Swift Testing's JSON Lines event stream (`--event-stream-version 0`) as it grows.
/// A function's ID continues with `/File.swift:line:column`; that suffix is dropped to get the
/// listed name. Issues that are not known issues or warnings fail the test.
struct SwiftTestingEventParser {
    private let expected: Set<String>
    private var tests: [String: TestID]
    private var started: [String: Double] = [:]
    private var issues: [String: [String]] = [:]
    private var pending: [UInt8] = []
    private let decoder = JSONDecoder()

    init(tests: [TestID]) {
        self.tests = Dictionary(tests.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        expected = Set(self.tests.keys)
    }

    /// Every issue message recorded so far for a test, for its report.
    func issueMessages(of test: TestID) -> [String] { issues[test.name] ?? [] }

    mutating func consume(_ bytes: some Sequence<UInt8>) -> [TestEvent] {
        pending.append(contentsOf: bytes)
        var events: [TestEvent] = []
        var lineStart = 0
        defer { pending.removeFirst(lineStart) }
        while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
            let line = Data(pending[lineStart..<newline])
            lineStart = newline + 1
            guard let record = try? decoder.decode(EventLine.self, from: line), record.kind == "event",
                let event = record.payload, let id = event.testID
            else { continue }
            let name = Self.listedName(id)
            guard expected.contains(name), let test = tests[name] else { continue }
            switch event.kind {
            case "testStarted":
                started[name] = event.instant?.absolute ?? 0
                events.append(.started(test, offset: 0))
            case "issueRecorded":
                guard event.issue?.isKnown != true, event.issue?.severity ?? "error" == "error" else { continue }
                // `Issue.record("…")` (as swift-snapshot-testing reports) heads its comment with
                // "Issue recorded": the comment is the message.
                var texts = event.messages?.map(\.text) ?? []
                if texts.count > 1, texts[0] == "Issue recorded" { texts.removeFirst() }
                let text = texts.isEmpty ? "issue recorded" : texts.joined(separator: "\n")
                let location = event.issue?.sourceLocation.map { "\($0.fileID):\($0.line): " } ?? ""
                issues[name, default: []].append(location + text)
            case "testSkipped":
                events.append(
                    .finished(test, status: .skipped, seconds: 0, message: event.messages?.first?.text, range: nil))
            case "testEnded":
                let seconds = max(0, (event.instant?.absolute ?? 0) - (started[name] ?? event.instant?.absolute ?? 0))
                let failures = issues[name] ?? []
                events.append(
                    .finished(
                        test, status: failures.isEmpty ? .passed : .failed, seconds: seconds,
                        message: failures.isEmpty ? nil : failures.joined(separator: "\n"), range: nil))
            default:
                continue
            }
        }
        return events
    }

    /// `Module.Suite/name()/File.swift:9:6` → `Module.Suite/name()`.
    static func listedName(_ id: String) -> String {
        guard let slash = id.lastIndex(of: "/") else { return id }
        let last = id[id.index(after: slash)...]
        let parts = last.split(separator: ":")
        guard parts.count >= 3, parts.suffix(2).allSatisfy({ Int($0) != nil }) else { return id }
        return String(id[..<slash])
    }

    private struct EventLine: Decodable {
        let kind: String
        let payload: Event?
    }

    private struct Event: Decodable {
        let kind: String?
        let testID: String?
        let instant: Instant?
        let messages: [Message]?
        let issue: Issue?
    }

    private struct Instant: Decodable { let absolute: Double }
    private struct Message: Decodable { let text: String }
    private struct Issue: Decodable {
        let isKnown: Bool?
        let severity: String?
        let sourceLocation: Location?
    }
    private struct Location: Decodable {
        let fileID: String
        let line: Int
    }
}

/// What a parser saw in a test process's output.
enum TestEvent: Equatable {
    case started(TestID, offset: Int)
    case finished(TestID, status: TestStatus, seconds: Double, message: String?, range: Range<Int>?)
}
