import Foundation

/// What an Xcode run is asked for, as the commands name it: the kind of output `pipeline import`
/// and `pipeline plan` read, how `plan` keeps tests together on a node, and what xcodebuild tests.
/// XcodeResults does the reading and the running.

/// What a file of Xcode's output holds.
public enum XcodeOutputKind: String, Sendable, CaseIterable {
    case xcresult
    case xcodebuildLog = "xcodebuild-log"
}

/// How tests are kept together on a node.
public enum XcodeSplit: String, Sendable, CaseIterable {
    /// Each test on its own, balanced finest.
    case test
    /// Each class whole, for xcodebuild's own parallel testing, which hands out classes.
    case `class`
}

/// What xcodebuild tests: a scheme to build (with `-project P` or `-workspace W` when given), or
/// the `.xctestrun` a build already wrote.
public enum XcodeProducts: Sendable, Equatable {
    case scheme(String, container: [String])
    case xctestrun(URL)
}
