import ArgumentParser
import Foundation
import Orchestrator
import PipelineSpec
import SharedRun
import TestSharding

/// Where recorded durations are kept and which shared run a node joins: `pipeline test`, `plan`
/// and `report`. Timings kept in a store are shared by every CI machine; a shared run's work queue
/// lives beside them.
struct SharedRunOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the recorded test durations are kept: a JSON file, s3://bucket/prefix, or feature or develop "
                               + "(a store of the spec). Default: <package>/.build/pipeline/timings.json.", valueName: "location"))
    var timings: String?

    @Option(help: ArgumentHelp("Share the suite among the CI nodes through a work queue kept beside the timings. RUN names the run; "
                               + "without it, the CI's run id (GITHUB_RUN_ID, BITRISEIO_PIPELINE_ID, BITRISE_BUILD_NUMBER, BUILDKITE_BUILD_ID, "
                               + "CI_PIPELINE_ID).",
                               valueName: "run"))
    var queue: String?

    @Option(help: ArgumentHelp("The pipeline whose references --timings feature/develop and S3 settings come from "
                               + "(default: the one pipeline that sets references).", valueName: "name"))
    var pipeline: String?

    /// Where the timings (and a shared run's queue) are, for the package tested.
    func place(_ global: GlobalOptions, package: URL) throws -> SharedPlace {
        try Self.place(timings, pipeline: pipeline, global, package: package)
    }

    /// Where `timings` (as `--timings` takes it) are; the package's own file without it.
    static func place(_ timings: String?, pipeline: String?, _ global: GlobalOptions, package: URL) throws -> SharedPlace {
        guard let timings else { return try SharedPlace(file: TestSession.defaultTimings(of: package)) }
        guard let location = TimingsLocation(parsing: timings) else {
            throw CLIFailure(status: .usage, message: "--timings '\(timings)' must be a file, s3://bucket/prefix, feature or develop")
        }
        if case .file(let path) = location { return try SharedPlace(file: global.resolve(path)) }
        let (spec, origin, base) = try global.referenceSource(pipeline: pipeline)
        return try ReferenceStores(settings: spec?.references ?? ReferenceSettings(), base: base, origin: origin).shared(location)
    }

    /// The CI run whose folder in the store keeps each node's report for `--failed`: the CI's run id
    /// when the timings are kept in a store (not a file).
    func keptInRun(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let timings, let location = TimingsLocation(parsing: timings) else { return nil }
        if case .file = location { return nil }
        return Self.ciRun(environment: environment)
    }

    /// The shared run's id: `--queue RUN`, or the CI's run id for `--queue` alone; nil without `--queue`.
    func run(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        guard let queue else { return nil }
        guard queue == Self.fromCI else { return queue }
        guard let id = Self.ciRun(environment: environment) else {
            throw CLIFailure(status: .usage, message: "--queue needs a run id: none of \(Self.ciVariables.joined(separator: ", ")) "
                             + "is set here; pass --queue RUN, the same on every node of the run")
        }
        return id
    }

    /// The CI's run id, when a CI sets one.
    static func ciRun(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        ciVariables.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    /// The run id variables of GitHub Actions, Bitrise, Buildkite and GitLab: the same for every
    /// job of one run, and kept when a failed job is re-run. On Bitrise each parallel copy of a
    /// pipeline's workflow is a build of its own, so the pipeline's id comes before the build's.
    static let ciVariables = ["GITHUB_RUN_ID", "BITRISEIO_PIPELINE_ID", "BITRISE_BUILD_NUMBER", "BUILDKITE_BUILD_ID", "CI_PIPELINE_ID"]
    static let fromCI = "ci"

    /// `--queue` given without a value (last, or before another option) becomes `--queue=ci`.
    static func expanded(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return result + arguments[index...] }
            let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
            result.append(argument == "--queue" && (next == nil || next!.hasPrefix("-")) ? "--queue=\(fromCI)" : argument)
        }
        return result
    }
}
