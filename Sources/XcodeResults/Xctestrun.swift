import Foundation

/// A `.xctestrun` property list (`xcodebuild build-for-testing` writes it; `test-without-building
/// -xctestrun` reads it), made per node: each test target runs only the node's tests
/// (`OnlyTestIdentifiers`, `Class/method`), and a target with none of them is left out. Format 1
/// keeps targets at the top level (beside `__xctestrun_metadata__`), format 2 in
/// `TestConfigurations[].TestTargets[]`, each named by its `BlueprintName`.
public struct Xctestrun {
    let origin: String
    var root: [String: Any]

    public init(contentsOf url: URL) throws(XcodeResultsError) {
        origin = url.path
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .notReadable(file: origin, reason: "no such file")
        }
        let value: Any
        do {
            value = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw .notReadable(file: origin, reason: "not a property list: \(error.localizedDescription)")
        }
        guard let root = value as? [String: Any] else {
            throw .notReadable(file: origin, reason: "not a dictionary at the top: not an .xctestrun")
        }
        self.root = root
        guard !targets.isEmpty else { throw .noTests(file: origin, reason: "no test target") }
    }

    static let metadata = "__xctestrun_metadata__"

    /// The test targets' names.
    public var targets: [String] {
        if let configurations = root["TestConfigurations"] as? [[String: Any]] {
            return configurations.flatMap { ($0["TestTargets"] as? [[String: Any]] ?? []).compactMap(Self.name) }
        }
        return root.filter { $0.key != Self.metadata && $0.value is [String: Any] }.map(\.key).sorted()
    }

    static func name(of target: [String: Any]) -> String? { target["BlueprintName"] as? String }

    /// The property list for `tests` alone.
    public func only(_ tests: [XcodeTestName]) throws(XcodeResultsError) -> Data {
        let byTarget = Dictionary(grouping: tests) { $0.target ?? "" }
        func restricted(_ target: [String: Any], name: String) -> [String: Any]? {
            guard let tests = byTarget[name], !tests.isEmpty else { return nil }
            var target = target
            target["OnlyTestIdentifiers"] = tests.map { ($0.suites + [$0.method]).joined(separator: "/") }
            return target
        }
        var root = self.root
        if let configurations = root["TestConfigurations"] as? [[String: Any]] {
            root["TestConfigurations"] = configurations.map { configuration in
                var configuration = configuration
                configuration["TestTargets"] = (configuration["TestTargets"] as? [[String: Any]] ?? []).compactMap {
                    target in Self.name(of: target).flatMap { restricted(target, name: $0) }
                }
                return configuration
            }
        } else {
            for (key, value) in self.root where key != Self.metadata {
                guard let target = value as? [String: Any] else { continue }
                root[key] = restricted(target, name: key)
            }
        }
        let unknown = Set(byTarget.keys).subtracting(targets).sorted()
        guard unknown.isEmpty else {
            throw .notReadable(
                file: origin,
                reason:
                    "no test target named \(unknown.joined(separator: ", ")) (it has \(targets.joined(separator: ", ")))"
            )
        }
        do {
            return try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
        } catch {
            throw .notReadable(file: origin, reason: "cannot be written back: \(error.localizedDescription)")
        }
    }

    /// Writes each node's own `.xctestrun` beside the others in `folder` (`<name>-node-I-of-N.xctestrun`)
    /// and names it in the node.
    public func write(_ nodes: inout [XcodeNode], into folder: URL) throws(XcodeResultsError) {
        let stem = URL(fileURLWithPath: origin).deletingPathExtension().lastPathComponent
        for index in nodes.indices {
            let url = folder.appendingPathComponent(
                "\(stem)-node-\(nodes[index].index)-of-\(nodes[index].count).xctestrun")
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try only(nodes[index].members).write(to: url, options: .atomic)
            } catch let error as XcodeResultsError {
                throw error
            } catch {
                throw .notReadable(file: url.path, reason: "cannot be written: \(error.localizedDescription)")
            }
            nodes[index].xctestrun = url.path
        }
    }
}
