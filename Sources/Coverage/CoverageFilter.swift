import Foundation

/// Which source files a report shows, and under which path: files of the package (paths relative
/// to its folder), without its tests, `.build` (derived sources, dependencies' checkouts) or files
/// outside it. `include` adds files whose path matches one of its regular expressions (relative
/// path inside the package, absolute outside it); `exclude` then leaves out the matching ones.
public struct CoverageFilter: Sendable {
    public let package: URL
    public let include: [String]
    public let exclude: [String]

    /// Checks that every pattern is a regular expression.
    public init(package: URL, include: [String] = [], exclude: [String] = []) throws(CoverageError) {
        self.package = package.standardizedFileURL
        self.include = include
        self.exclude = exclude
        _ = try Self.compile(include + exclude)
    }

    private static func compile(_ patterns: [String]) throws(CoverageError) -> [NSRegularExpression] {
        var compiled: [NSRegularExpression] = []
        for pattern in patterns {
            do {
                compiled.append(try NSRegularExpression(pattern: pattern))
            } catch {
                throw .badPattern(pattern, reason: (error as NSError).localizedDescription)
            }
        }
        return compiled
    }

    /// A path-renaming selector for `LineCoverage.selecting`: the path to show, nil to leave out.
    public func selector() -> (String) -> String? {
        let included = (try? Self.compile(include)) ?? []
        let excluded = (try? Self.compile(exclude)) ?? []
        let roots = Set([package.path, package.resolvingSymlinksInPath().path]).map {
            $0.hasSuffix("/") ? $0 : $0 + "/"
        }
        return { path in
            let relative = roots.first(where: path.hasPrefix).map { String(path.dropFirst($0.count)) }
            let shown = relative ?? path
            func matches(_ expressions: [NSRegularExpression]) -> Bool {
                let range = NSRange(shown.startIndex..., in: shown)
                return expressions.contains { $0.firstMatch(in: shown, range: range) != nil }
            }
            let byDefault =
                relative.map { !$0.hasPrefix("Tests/") && !$0.hasPrefix(".build/") && !$0.contains("/.build/") }
                ?? false
            guard byDefault || matches(included), !matches(excluded) else { return nil }
            return shown
        }
    }
}
