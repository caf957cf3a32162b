import ArgumentParser
import Foundation
import PipelineSpec
import TestCore

// The spec's value types, read from the command line as the spec reads them.

/// Reads the value of `option` as a duration: `90s`, `10m`, `1h30m`, `500ms`.
func duration(_ option: String) -> @Sendable (String) throws -> Duration {
    { text in
        guard let duration = Duration(parsingSpec: text) else {
            throw ValidationError("\(option) '\(text)' must be a duration such as 90s or 10m")
        }
        return duration
    }
}

/// `--history-timeout`: `off`, or `FACTORx/FLOOR` (`10x/60s`).
@Sendable func historyTimeout(_ text: String) throws -> HistoryTimeout? {
    if text == "off" { return nil }
    let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
    guard parts.count == 2, parts[0].hasSuffix("x"), let factor = Double(parts[0].dropLast()), factor >= 1,
        let floor = Duration(parsingSpec: parts[1]), floor > .zero
    else {
        throw ValidationError(
            "--history-timeout '\(text)' must be off or FACTORx/FLOOR, such as 10x/60s (FACTOR 1 or more)")
    }
    return HistoryTimeout(factor: factor, floor: floor)
}

/// A value the spec reads from text, read from the command line the same way.
protocol SpecText: ExpressibleByArgument {
    init?(parsing text: String)
}

extension SpecText {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}

/// `64KiB`, `1MiB`; a number or `auto`; a folder or `s3://bucket/prefix`; `10%`.
extension ByteCount: SpecText {}
extension ShardCount: SpecText {}
extension StoreAddress: SpecText {}
extension Percentage: SpecText {}
extension BuildConfiguration: ExpressibleByArgument {}
extension BuildSystemName: ExpressibleByArgument {}
extension FlakyPolicy: ExpressibleByArgument {}
extension StoreRole: ExpressibleByArgument {}

/// `--node I/N`, refused with the reason a node is not valid.
func parseNode(_ text: String) throws -> Node {
    try Node(parsing: text)
}

/// Reads the value of `option` as where timings are kept: a file, `s3://bucket/prefix`, `feature` or `develop`.
func timingsAddress(_ option: String) -> @Sendable (String) throws -> TimingsAddress {
    { text in
        guard let address = TimingsAddress(parsing: text) else {
            throw ValidationError("\(option) '\(text)' must be a file, s3://bucket/prefix, feature or develop")
        }
        return address
    }
}

/// xcodebuild's destination for `flag` (`--xcode`, `--render-new`): `--destination`, else
/// `PIPELINE_XCODE_DESTINATION` (which `pipeline init --xcode` sets in CI).
func xcodeDestination(_ destination: String?, for flag: String) throws -> String {
    let variable = "PIPELINE_XCODE_DESTINATION"
    guard let destination = destination ?? ProcessInfo.processInfo.environment[variable], !destination.isEmpty else {
        throw ValidationError(
            "\(flag) runs on a destination: pass --destination 'platform=iOS Simulator,name=iPhone 16' "
                + "(or set \(variable))")
    }
    return destination
}
