import Foundation

/// The tests to split, from `xcodebuild … -enumerate-tests -test-enumeration-format json`, in its
/// flat style (`values[].enabledTests[].identifier`, `Target/Class/method()`) or its hierarchical
/// one (`values[].children` of kinds plan, target, class and test, each possibly `disabled`), or
/// from an xcresult tests JSON (every test case it ran).
public enum TestEnumeration {
    public static func read(_ data: Data, origin: String) throws(XcodeResultsError) -> [XcodeTestName] {
        let root = try JSONInput.object(data, origin: origin)
        if root["testNodes"] != nil { return try XCResultReader.tests(data, origin: origin) }
        guard let values = root["values"] as? [Any] else {
            throw .notReadable(
                file: origin,
                reason:
                    "$.values: missing, so this is neither `xcodebuild -enumerate-tests` JSON nor xcresult tests JSON")
        }
        var tests: [XcodeTestName] = []
        var seen: Set<String> = []
        func add(_ name: XcodeTestName) {
            if seen.insert(name.key).inserted { tests.append(name) }
        }
        for (index, value) in values.enumerated() {
            guard let plan = value as? [String: Any] else { continue }
            for (row, entry) in (plan["enabledTests"] as? [Any] ?? []).enumerated() {
                guard let identifier = (entry as? [String: Any])?["identifier"] as? String,
                    let name = XcodeTestName(identifier: identifier)
                else {
                    throw .notReadable(
                        file: origin,
                        reason: "$.values[\(index)].enabledTests[\(row)].identifier: not Target/Class/method")
                }
                add(name)
            }
            walk(plan, path: [], add: add)
        }
        let errors = (root["errors"] as? [Any] ?? []).compactMap {
            $0 as? String ?? ($0 as? [String: Any])?.description
        }
        guard !tests.isEmpty else {
            throw .noTests(
                file: origin,
                reason: "no enabled test"
                    + (errors.isEmpty ? "" : " (xcodebuild said: \(errors.joined(separator: "; ")))"))
        }
        return tests.sorted()
    }

    /// The hierarchical style: a `test` under its `class` under its `target`; a disabled node
    /// and everything below it left out.
    private static func walk(_ node: [String: Any], path: [(kind: String, name: String)], add: (XcodeTestName) -> Void)
    {
        for child in node["children"] as? [[String: Any]] ?? [] where child["disabled"] as? Bool != true {
            let kind = child["kind"] as? String ?? ""
            let name = child["name"] as? String ?? ""
            let here = path + [(kind, name)]
            if kind == "test" {
                let target = here.first { $0.kind == "target" }?.name
                let suites = here.filter { $0.kind == "class" || $0.kind == "suite" }.map(\.name)
                if let target, !name.isEmpty { add(XcodeTestName(target: target, suites: suites, method: name)) }
            } else {
                walk(child, path: here, add: add)
            }
        }
    }
}
