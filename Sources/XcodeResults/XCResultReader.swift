import Foundation
import TestCore

/// Reads `xcrun xcresulttool get test-results tests` JSON (Xcode 16 and later, `--compact` or
/// not): a tree of `testNodes`, each with a `nodeType`, a `name`, a `result` and, on a test case,
/// a `nodeIdentifier`, a `duration` written in the machine's locale (`"0,0011s"`, `"2s"`,
/// `"1m 5s"`) and, in later versions, `durationInSeconds` and `nodeIdentifierURL`; read when
/// present, never needed. Retries are `Repetition` children, parameterised cases `Arguments`
/// children. Unknown node types are walked through, unknown fields ignored. The legacy object
/// graph of earlier Xcode versions goes to `LegacyXCResultReader`.
public enum XCResultReader {
    public static func read(_ data: Data, origin: String) throws(XcodeResultsError) -> XcodeRun {
        let root = try JSONInput.object(data, origin: origin)
        if root["_type"] != nil { return try LegacyXCResultReader.read(root, origin: origin) }
        guard let nodes = root["testNodes"] as? [Any] else {
            throw .notReadable(
                file: origin,
                reason: "$.testNodes: missing, so this is not the output of `xcresulttool get test-results tests`")
        }
        var reader = Walk()
        for (index, node) in nodes.enumerated() {
            reader.visit(node, path: "$.testNodes[\(index)]", target: nil, suites: [])
        }
        guard !reader.results.isEmpty else {
            throw .noTests(file: origin, reason: "no test case in $.testNodes")
        }
        let device = (root["devices"] as? [[String: Any]])?.first.flatMap { device -> (String, String)? in
            guard let name = device["deviceName"] as? String ?? device["modelName"] as? String else { return nil }
            return (name, device["osVersion"] as? String ?? "")
        }
        return XcodeRun(origin: origin, results: reader.results, notes: reader.notes, device: device)
    }

    /// The test cases of an xcresult tests JSON, as a test list (for `pipeline plan`).
    public static func tests(_ data: Data, origin: String) throws(XcodeResultsError) -> [XcodeTestName] {
        try read(data, origin: origin).tests
    }

    /// The walk down the tree: the enclosing bundle is the target, the enclosing suites the path
    /// when a test case has no identifier.
    struct Walk {
        var results: [XcodeResult] = []
        var notes: [String] = []
        var counter = AttemptCounter()

        mutating func visit(_ value: Any, path: String, target: String?, suites: [String]) {
            guard let node = value as? [String: Any] else { return }
            let type = node["nodeType"] as? String ?? ""
            let name = node["name"] as? String
            let children = node["children"] as? [Any] ?? []
            switch type {
            case "Test Case":
                testCase(node, path: path, target: target, suites: suites)
                return
            case _ where type.hasSuffix("test bundle"):
                for (index, child) in children.enumerated() {
                    visit(child, path: "\(path).children[\(index)]", target: name ?? target, suites: [])
                }
            case "Test Suite":
                for (index, child) in children.enumerated() {
                    visit(child, path: "\(path).children[\(index)]", target: target, suites: suites + [name ?? ""])
                }
            default:
                for (index, child) in children.enumerated() {
                    visit(child, path: "\(path).children[\(index)]", target: target, suites: suites)
                }
            }
        }

        mutating func testCase(_ node: [String: Any], path: String, target: String?, suites: [String]) {
            let name =
                (node["nodeIdentifierURL"] as? String).flatMap(XcodeTestName.init(url:))
                ?? (node["nodeIdentifier"] as? String).flatMap { XcodeTestName(nodeIdentifier: $0, target: target) }
                ?? (node["name"] as? String).map { XcodeTestName(target: target, suites: suites, method: $0) }
            guard let name else {
                notes.append("\(path): a test case with no identifier and no name, left out")
                return
            }
            let children = node["children"] as? [[String: Any]] ?? []
            let repetitions = children.filter { $0["nodeType"] as? String == "Repetition" }
            let arguments = children.filter { $0["nodeType"] as? String == "Arguments" }
            let argumentRepetitions = arguments.map {
                ($0["children"] as? [[String: Any]] ?? []).filter { $0["nodeType"] as? String == "Repetition" }
            }
            if !repetitions.isEmpty {
                for repetition in repetitions {
                    results.append(
                        XcodeResult(
                            name: name, status: Self.status(repetition), seconds: Self.seconds(repetition) ?? 0,
                            message: Self.messages(repetition), attempt: counter.next(name)))
                }
            } else if let rounds = argumentRepetitions.map(\.count).max(), rounds > 0 {
                // Every argument repeated: round i is the i-th repetition of each argument.
                for round in 0..<rounds {
                    let parts = argumentRepetitions.compactMap { $0.indices.contains(round) ? $0[round] : nil }
                    let statuses = parts.map(Self.status)
                    let status: TestStatus =
                        statuses.contains(.failed)
                        ? .failed : statuses.allSatisfy { $0 == .skipped } ? .skipped : .passed
                    let messages = parts.compactMap(Self.messages)
                    results.append(
                        XcodeResult(
                            name: name, status: status, seconds: parts.compactMap(Self.seconds).reduce(0, +),
                            message: messages.isEmpty ? nil : messages.joined(separator: "\n"),
                            attempt: counter.next(name)))
                }
            } else {
                results.append(
                    XcodeResult(
                        name: name, status: Self.status(node), seconds: Self.seconds(node) ?? 0,
                        message: Self.messages(node), attempt: counter.next(name)))
            }
        }

        /// `Passed` and `Expected Failure` pass, `Skipped` skips; `Failed` and anything else fails.
        static func status(_ node: [String: Any]) -> TestStatus {
            switch node["result"] as? String {
            case "Passed", "Expected Failure": .passed
            case "Skipped": .skipped
            default: .failed
            }
        }

        /// `durationInSeconds` when present, else `duration` as the locale wrote it.
        static func seconds(_ node: [String: Any]) -> Double? {
            if let number = node["durationInSeconds"] as? Double { return number }
            return (node["duration"] as? String).flatMap(XcodeDuration.seconds)
        }

        /// The failure messages below a node (its arguments' too), one per line; nil when none.
        static func messages(_ node: [String: Any]) -> String? {
            var lines: [String] = []
            func collect(_ node: [String: Any]) {
                for child in node["children"] as? [[String: Any]] ?? [] {
                    if child["nodeType"] as? String == "Failure Message", let name = child["name"] as? String {
                        lines.append(name)
                    } else if child["nodeType"] as? String != "Repetition" {
                        collect(child)
                    }
                }
            }
            collect(node)
            return lines.isEmpty ? nil : lines.joined(separator: "\n")
        }
    }
}

/// A duration as xcresulttool writes it in the machine's locale: `"0,0011s"`, `"2s"`, `"0.5s"`,
/// `"1m 5s"`, `"1h 2m"`, `"120ms"`.
public enum XcodeDuration {
    public static func seconds(_ text: String) -> Double? {
        var total = 0.0
        var found = false
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" }) {
            let number = token.prefix { $0.isNumber || $0 == "," || $0 == "." }
            let unit = token.dropFirst(number.count)
            guard let value = Double(number.replacingOccurrences(of: ",", with: ".")) else { return nil }
            let scale: Double
            switch unit {
            case "s", "sec", "secs", "seconds": scale = 1
            case "ms": scale = 0.001
            case "m", "min", "mins": scale = 60
            case "h", "hr", "hrs": scale = 3600
            default: return nil
            }
            total += value * scale
            found = true
        }
        return found ? total : nil
    }
}

/// JSON read for the readers: an object at the top, or one line saying why not.
enum JSONInput {
    static func object(_ data: Data, origin: String) throws(XcodeResultsError) -> [String: Any] {
        guard !data.isEmpty else { throw .notReadable(file: origin, reason: "the file is empty") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw .notReadable(file: origin, reason: "not JSON (cut short, or another tool's output): \(reason)")
        }
        guard let object = value as? [String: Any] else {
            throw .notReadable(file: origin, reason: "$: a JSON \(value is [Any] ? "array" : "value"), not an object")
        }
        return object
    }
}
