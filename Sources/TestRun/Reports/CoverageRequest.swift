import Coverage
import Foundation
import TestCore

/// The coverage a command asks for (`--coverage`, or a test stage's `coverage:`), before its
/// tools and folder are checked.
public struct CoverageRequest: Sendable, Equatable {
    /// Where the reports go; nil: `<package>/.build/pipeline/coverage`.
    public var output: URL?
    /// Regular expressions over source paths: files to add, and to leave out.
    public var include: [String] = []
    public var exclude: [String] = []
    /// Line coverage (percent) below which the run fails.
    public var minLines: Double?

    public init(output: URL? = nil, include: [String] = [], exclude: [String] = [], minLines: Double? = nil) {
        self.output = output
        self.include = include
        self.exclude = exclude
        self.minLines = minLines
    }

    /// Checks the patterns and the output folder, and finds the toolchain's tools: before any build.
    /// Each node of a split keeps its profiles apart, should two run on one machine.
    func settings(package: URL, node: Node = .whole) throws -> CoverageSettings {
        try CoverageSettings(
            package: package, output: output, include: include, exclude: exclude, minLines: minLines,
            part: node.count > 1 ? node.label : nil)
    }
}
