import Foundation
import TestCore

/// Reads xcodebuild's (and XCTest's) console output: serial lines
/// (`Test Case '-[Target.Class method]' passed (0.002 seconds).`), parallel testing's
/// (`Test case 'Class.method()' passed on 'Clone 1 of iPhone 13 mini - xctest (32505)' (0.002 seconds)`),
/// Swift Testing's (`✔ Test f() passed after 0.001 seconds.`, `✘ Test f() failed after …`), the
/// `error:` lines that give a failure its message, and a crash: a test that started and never
/// finished (the process died, xcodebuild restarted it, or the log ends) crashed, and a test run
/// again after a restart is its next attempt.
public struct XcodebuildLogReader {
    private var results: [XcodeResult] = []
    private var counter = AttemptCounter()
    /// Started and not finished yet, by the name as printed, with the message gathered so far.
    private var running: [String: (name: XcodeTestName, message: String?, line: Int)] = [:]
    private var lastStarted: String?
    /// The last lines that look like a crash's cause (`Fatal error: …`), for the crashed test's message.
    private var crashCause: String?

    public init() {}

    public static func read(_ data: Data, origin: String) throws(XcodeResultsError) -> XcodeRun {
        var reader = XcodebuildLogReader()
        var number = 0
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            number += 1
            reader.consume(String(line), number: number)
        }
        reader.end()
        guard !reader.results.isEmpty else {
            throw .noTests(
                file: origin,
                reason:
                    "no test result line (`Test Case '…' passed`, `Test case '…' failed on '…'`, `✔ Test … passed`) "
                    + "in \(number) line(s)")
        }
        return XcodeRun(origin: origin, results: reader.results)
    }

    mutating func consume(_ line: String, number: Int) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if let rest = Self.after(["Test Case '", "Test case '"], in: trimmed) {
            xctest(rest, number: number)
        } else if let rest = Self.after(
            ["✔ Test ", "✘ Test ", "➜ Test ", "↪ Test ", "􀟈 Test ", "􀢄 Test "], in: trimmed)
        {
            swiftTesting(rest)
        } else if trimmed.hasPrefix("Restarting after unexpected exit, crash, or test timeout") {
            crashAll(
                because: crashCause
                    ?? "the test process exited unexpectedly, crashed or timed out; xcodebuild restarted it")
        } else if trimmed.contains(": error: ") {
            failureMessage(trimmed)
        } else if trimmed.contains("Fatal error") || trimmed.hasPrefix("Child process terminated with signal")
            || trimmed.contains("Terminating app due to uncaught exception")
        {
            crashCause = crashCause.map { $0 + "; " + trimmed } ?? trimmed
        }
    }

    /// The end of the log: what started and never finished crashed.
    mutating func end() {
        crashAll(because: crashCause ?? "started and never finished: the log ends (the test process stopped)")
    }

    private mutating func xctest(_ rest: String, number: Int) {
        guard let quote = rest.firstIndex(of: "'") else { return }
        let printed = String(rest[..<quote])
        let verdict = rest[rest.index(after: quote)...].trimmingCharacters(in: .whitespaces)
        guard let name = XcodeTestName(printed: printed) else { return }
        if verdict.hasPrefix("started") {
            running[printed] = (name, nil, number)
            lastStarted = printed
            crashCause = nil
            return
        }
        guard let status = Self.status(verdict) else { return }
        let started = running.removeValue(forKey: printed)
        finish(started?.name ?? name, status: status, seconds: Self.seconds(in: verdict), message: started?.message)
    }

    private mutating func swiftTesting(_ rest: String) {
        guard !rest.hasPrefix("run with ") else { return }  // the run's own summary line
        // `f() passed after 0.001 seconds.`, `f() failed after 0.001 seconds with 1 issue.`,
        // `f() recorded an issue at File.swift:17:9: message`, `f() skipped.`; a name may hold spaces
        // when it is a display name in quotes.
        for (word, status) in [
            (" passed after ", TestStatus.passed), (" failed after ", .failed), (" skipped", .skipped),
        ] {
            guard let range = rest.range(of: word) else { continue }
            let printed = Self.unquoted(String(rest[..<range.lowerBound]))
            guard let name = XcodeTestName(printed: printed) else { return }
            let started = running.removeValue(forKey: printed)
            finish(
                name, status: status, seconds: Self.seconds(in: String(rest[range.upperBound...])),
                message: started?.message)
            return
        }
        if let range = rest.range(of: " recorded an issue") {
            let printed = Self.unquoted(String(rest[..<range.lowerBound]))
            guard let name = XcodeTestName(printed: printed) else { return }
            let issue = String(rest[range.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: " :"))
            var entry = running[printed] ?? (name, nil, 0)
            entry.message = entry.message.map { $0 + "\n" + issue } ?? issue
            running[printed] = entry
        }
    }

    /// `path:12: error: -[T.C m] : message`: the message of the test it names, else of the last started.
    private mutating func failureMessage(_ line: String) {
        let after = String(line.split(separator: ": error: ", maxSplits: 1).last ?? "")
        var message = after
        var key = lastStarted
        if after.hasPrefix("-["), let close = after.firstIndex(of: "]") {
            key = String(after[...close])
            message = String(after[after.index(after: close)...]).trimmingCharacters(
                in: CharacterSet(charactersIn: " :"))
        }
        guard let key, var entry = running[key] else { return }
        let location = line.components(separatedBy: ": error: ").first ?? ""
        let text = location.isEmpty ? message : "\(location): \(message)"
        entry.message = entry.message.map { $0 + "\n" + text } ?? text
        running[key] = entry
    }

    private mutating func finish(_ name: XcodeTestName, status: TestStatus, seconds: Double?, message: String?) {
        results.append(
            XcodeResult(
                name: name, status: status, seconds: seconds ?? 0,
                message: status == .failed ? (message ?? "failed") : nil, attempt: counter.next(name)))
    }

    private mutating func crashAll(because cause: String) {
        for (_, entry) in running.sorted(by: { $0.value.line < $1.value.line }) {
            results.append(
                XcodeResult(
                    name: entry.name, status: .crashed, seconds: 0,
                    message: [entry.message, cause].compactMap { $0 }.joined(separator: "\n"),
                    attempt: counter.next(entry.name)))
        }
        running.removeAll()
        lastStarted = nil
        crashCause = nil
    }

    static func after(_ prefixes: [String], in line: String) -> String? {
        for prefix in prefixes where line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
        return nil
    }

    static func status(_ verdict: String) -> TestStatus? {
        if verdict.hasPrefix("passed") { return .passed }
        if verdict.hasPrefix("failed") { return .failed }
        if verdict.hasPrefix("skipped") { return .skipped }
        return nil
    }

    /// The last `N seconds` (or `(N seconds)`) in a verdict.
    static func seconds(in verdict: String) -> Double? {
        let words = verdict.replacingOccurrences(of: "(", with: " ").split(separator: " ")
        for (index, word) in words.enumerated().reversed() where index > 0 && word.hasPrefix("second") {
            if let value = Double(words[index - 1].replacingOccurrences(of: ",", with: ".")) { return value }
        }
        return nil
    }

    static func unquoted(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }
}
