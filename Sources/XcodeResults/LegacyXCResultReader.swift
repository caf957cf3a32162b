import Foundation
import TestCore

/// Reads xcresulttool's legacy object graph (`xcrun xcresulttool get --legacy --format json`, the
/// only JSON before Xcode 16), whose shape its `formatDescription` documents: every value an object
/// with `_type._name`, scalars in `_value` (strings, numbers written as strings), arrays in
/// `_values`. The tests are in an `ActionTestPlanRunSummaries` (`get --legacy --format json --id
/// <testsRef>`): testable summaries (a target each), groups (`subtests`), and test metadata with
/// `identifier`, `testStatus` and `duration`. The top-level `ActionsInvocationRecord` holds only
/// the reference to them: given that, the error names the `--id` to ask for.
enum LegacyXCResultReader {
    static func read(_ root: [String: Any], origin: String) throws(XcodeResultsError) -> XcodeRun {
        switch typeName(root) {
        case "ActionTestPlanRunSummaries":
            var walk = Walk()
            for (index, summary) in values(root["summaries"]).enumerated() {
                for (number, testable) in values(summary["testableSummaries"]).enumerated() {
                    let target = string(testable["targetName"]) ?? string(testable["name"])
                    for test in values(testable["tests"]) {
                        walk.visit(test, target: target, path: "summaries[\(index)].testableSummaries[\(number)]")
                    }
                }
            }
            guard !walk.results.isEmpty else {
                throw .noTests(file: origin, reason: "no test in the legacy test summaries")
            }
            return XcodeRun(origin: origin, results: walk.results)
        case "ActionsInvocationRecord":
            let ids = values(root["actions"]).compactMap { action in
                ((action["actionResult"] as? [String: Any])?["testsRef"] as? [String: Any]).flatMap { string($0["id"]) }
            }
            throw .notReadable(
                file: origin,
                reason: "the legacy invocation record holds no tests, only their reference"
                    + (ids.isEmpty
                        ? " (and this one has none: did the action run tests?)"
                        : "; run `xcrun xcresulttool get --legacy --format json --path R.xcresult --id \(ids[0])` "
                            + "and import that"))
        case let other:
            throw .notReadable(
                file: origin, reason: "a legacy xcresult value of type \(other ?? "unknown"), not test summaries")
        }
    }

    struct Walk {
        var results: [XcodeResult] = []
        var counter = AttemptCounter()

        mutating func visit(_ node: [String: Any], target: String?, path: String) {
            if let status = string(node["testStatus"]) {
                let identifier = string(node["identifier"]) ?? string(node["name"]) ?? ""
                let name =
                    string(node["identifierURL"]).flatMap(XcodeTestName.init(url:))
                    ?? XcodeTestName(nodeIdentifier: identifier, target: target)
                guard let name else { return }
                let result: TestStatus =
                    switch status {
                    case "Success", "Expected Failure": .passed
                    case "Skipped": .skipped
                    default: .failed
                    }
                results.append(
                    XcodeResult(
                        name: name, status: result, seconds: string(node["duration"]).flatMap(Double.init) ?? 0,
                        message: result == .failed ? "failed (\(status)); its messages are in the test's summary" : nil,
                        attempt: counter.next(name)))
                return
            }
            for child in values(node["subtests"]) { visit(child, target: target, path: path) }
        }
    }

    static func typeName(_ value: [String: Any]) -> String? {
        (value["_type"] as? [String: Any])?["_name"] as? String
    }

    static func string(_ value: Any?) -> String? {
        guard let value = (value as? [String: Any])?["_value"] else { return nil }
        return value as? String ?? (value as? NSNumber)?.stringValue
    }

    static func values(_ value: Any?) -> [[String: Any]] {
        ((value as? [String: Any])?["_values"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
    }
}
