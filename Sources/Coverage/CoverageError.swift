import PipelineCore

/// Why coverage could not be measured or reported. Each says what to do about it in one line.
public enum CoverageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The toolchain has no `tool` beside its `swift`.
    case toolMissing(tool: String, swift: String?, lookedIn: [String])
    /// A profile tool failed.
    case toolFailed(command: String, output: String)
    /// The run left no profile to merge.
    case noProfiles(folder: String)
    /// A coverage file that cannot be read (a node's lcov.info, a profile).
    case unreadable(path: String, reason: String)
    /// The output folder cannot be written.
    case unwritable(path: String, reason: String)
    /// A --coverage-include or --coverage-exclude that is not a regular expression.
    case badPattern(String, reason: String)
    /// Nodes of a shared run whose coverage never reached the store.
    case nodesMissing([String], store: String)
    /// Line coverage below the threshold a pipeline sets.
    case belowThreshold(percent: Double, minimum: Double)

    public var description: String {
        switch self {
        case .toolMissing(let tool, let swift, let folders):
            let found = swift.map { "the Swift toolchain's swift is \($0)" } ?? "no swift was found on PATH"
            return "\(tool) not found: coverage needs the toolchain's own llvm-profdata and llvm-cov "
                + "(an older LLVM's reject its profiles); \(found), and \(tool) is not in "
                + "\(folders.isEmpty ? "any folder" : folders.joined(separator: " or "))"
        case .toolFailed(let command, let output):
            let last = output.split(separator: "\n").suffix(3).joined(separator: " | ")
            return "\(command) failed: \(last.isEmpty ? "no output" : last)"
        case .noProfiles(let folder):
            return "the test processes wrote no coverage profile in \(folder) (were the tests built with coverage?)"
        case .unreadable(let path, let reason):
            return "cannot read coverage from \(path): \(reason)"
        case .unwritable(let path, let reason):
            return "cannot write coverage to \(path): \(reason)"
        case .badPattern(let pattern, let reason):
            return "'\(pattern)' is not a regular expression: \(reason)"
        case .nodesMissing(let nodes, let store):
            return "the coverage of node \(nodes.joined(separator: ", ")) never reached \(store); "
                + "re-run those nodes, or pass --allow-partial to report the others' alone"
        case .belowThreshold(let percent, let minimum):
            return "line coverage \(Percent.text(percent)) is below the minimum of \(Percent.text(minimum))"
        }
    }
}

enum Percent {
    /// `82.4 %`, one decimal, rounded down so a threshold is never reported as met when it is not.
    static func text(_ percent: Double) -> String {
        let tenths = (percent * 10).rounded(.down) / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) %" : "\(tenths) %"
    }
}

extension CoverageError: ExitCoded {
    public var exitStatus: ExitStatus {
        switch self {
        case .unwritable, .badPattern: .usage
        default: .coverage
        }
    }
}
