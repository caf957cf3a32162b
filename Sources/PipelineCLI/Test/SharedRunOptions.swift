import ArgumentParser
import CISystem
import PipelineSpec
import TestRun

/// Where recorded durations are kept and which shared run a node joins: `pipeline test`, `plan`
/// and `report`. Timings kept in a store are shared by every CI machine; a shared run's work queue
/// lives beside them.
struct SharedRunOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where the recorded test durations are kept: a JSON file, s3://bucket/prefix, or feature or develop "
                + "(a store of the spec). Default: <package>/.build/pipeline/timings.json.", valueName: "location"),
        transform: timingsAddress("--timings"))
    var timings: TimingsAddress?

    @Option(
        help: ArgumentHelp(
            "Share the suite among the CI nodes through a work queue kept beside the timings. RUN names the run; "
                + "without it, the CI's run id (\(CIContext.runVariables.joined(separator: ", "))).",
            valueName: "run"))
    var queue: String?

    @Option(
        help: ArgumentHelp(
            "The pipeline whose references --timings feature/develop and S3 settings come from "
                + "(default: the one pipeline that sets references).", valueName: "name"))
    var pipeline: String?

    /// The settings these options give, from the working folder.
    func settings(_ global: GlobalOptions) -> RunSharing {
        RunSharing(timings: timings, pipeline: pipeline, queue: queue, workingDirectory: global.workingDirectory)
    }

    /// `--queue` given without a value (last, or before another option) becomes `--queue=ci`.
    static func expanded(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return result + arguments[index...] }
            let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
            let bare = argument == "--queue" && (next.map { $0.hasPrefix("-") } ?? true)
            result.append(bare ? "--queue=\(RunSharing.queueFromCI)" : argument)
        }
        return result
    }
}
