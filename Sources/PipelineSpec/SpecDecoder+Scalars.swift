import Foundation

/// Scalars: strings, booleans, numbers, durations, storage addresses and choices, each checked where it is read.
extension SpecDecoder {
    mutating func string(_ node: YAMLNode, _ path: SpecKeyPath) -> String? {
        scalar(node, path, expected: "a string") { $0 }
    }

    /// A list of strings (`[a, b]`, or lines starting with `- `), each item's place remembered.
    mutating func strings(_ node: YAMLNode, _ path: SpecKeyPath) -> [String]? {
        guard case .sequence(let items) = node.value else {
            report(node.location, path, "expected a list of names ([a, b]), found \(node.kindDescription)")
            return nil
        }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.appending(index: index)
            sourceMap.remember(itemPath, item.location)
            guard let text = string(item, itemPath) else { return nil }
            strings.append(text)
        }
        return strings
    }

    mutating func bool(_ node: YAMLNode, _ path: SpecKeyPath) -> Bool? {
        scalar(node, path, expected: "true or false") { ["true": true, "false": false][$0] }
    }

    mutating func integer(_ node: YAMLNode, _ path: SpecKeyPath) -> Int? {
        scalar(node, path, expected: "a whole number") { Int($0) }
    }

    mutating func duration(_ node: YAMLNode, _ path: SpecKeyPath) -> Duration? {
        scalar(node, path, expected: "a duration, written like 90s, 2m or 1h", parse: Duration.init(parsingSpec:))
    }

    mutating func storage(_ node: YAMLNode, _ path: SpecKeyPath) -> StoreAddress? {
        scalar(node, path, expected: "a folder path or s3://bucket/prefix", parse: StoreAddress.init(parsing:))
    }

    mutating func choice<E: SpecEnum>(_ node: YAMLNode, _ path: SpecKeyPath) -> E? {
        guard case .scalar(let text) = node.value else {
            return scalar(node, path, expected: "a \(E.noun)") { E(rawValue: $0) }
        }
        guard let choice = E(rawValue: text) else {
            let names = E.allCases.map(\.rawValue)
            report(node.location, path, "'\(text)' is not a \(E.noun); " + Suggestion.phrase(for: text, in: names))
            return nil
        }
        return choice
    }

    mutating func scalar<T>(
        _ node: YAMLNode, _ path: SpecKeyPath, expected: String,
        parse: (String) -> T?
    ) -> T? {
        guard case .scalar(let text) = node.value else {
            report(node.location, path, "expected \(expected), found \(node.kindDescription)")
            return nil
        }
        guard let value = parse(text) else {
            report(node.location, path, "expected \(expected), found '\(text)'")
            return nil
        }
        return value
    }
}
