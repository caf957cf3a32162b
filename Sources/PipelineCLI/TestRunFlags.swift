import ArgumentParser
import Foundation
import PipelineSpec
import SharedRun
import TestSharding

/// How `pipeline test` runs the tests: shards, this node's part, limits, retries and selection.
struct TestRunFlags: ParsableArguments {
    @Option(help: ArgumentHelp("How many shards run at once: a number, or 'auto' for one per core.", valueName: "n|auto"))
    var shards = "auto"

    @Option(help: ArgumentHelp("Run only part I of N of the suite, for N CI machines sharing one plan.", valueName: "I/N"))
    var node = "1/1"

    @Option(help: ArgumentHelp("Kill a test running longer than this (e.g. 90s, 10m).", valueName: "duration"))
    var timeout = "10m"

    @Option(help: "Run a failing test again up to this many times; one that then passes is flaky.")
    var retries = 0

    @Option(help: ArgumentHelp("When more tests than this fail, retry none of them: a mass failure is a breakage, not flakiness.",
                               valueName: "n"))
    var maxRetried: Int?

    @Flag(help: "Run only the tests that did not pass in the last run here (<package>/.build/pipeline/last-run.json).")
    var failed = false

    @Option(name: .customLong("repeat"), help: ArgumentHelp(
        "Hunt flakiness: run the selected tests this many times, each run in fresh processes, and report each test's failure "
        + "rate and first failure (no retries; nothing recorded).", valueName: "n"))
    var repeatCount: Int?

    @Flag(help: "With --repeat: start no run after one failed.")
    var untilFailure = false

    @Option(help: ArgumentHelp("Name the tests flaky or failing in this share of their recent runs (at least 5 recorded), "
                               + "with the line that quarantines them.", valueName: "percent"))
    var flakeThreshold = "10%"

    @Option(name: .customLong("quarantine"), help: ArgumentHelp("The quarantine file: tests whose failures do not fail the run (default: pipelines/quarantine.yml "
                               + "of the package's repository, when there is one; see docs/quarantine.md).", valueName: "path"))
    var quarantineFile: String?

    @Option(help: ArgumentHelp("Whether a flaky test fails the run: fail or pass.", valueName: "fail|pass"))
    var flaky = "fail"

    @Option(help: ArgumentHelp("Output kept per failing test (e.g. 64KiB).", valueName: "size"))
    var outputLimit = "1MiB"

    @Option(help: ArgumentHelp("Run only tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var filter: [String] = []

    @Option(help: ArgumentHelp("Leave out tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var skip: [String] = []

    @Option(help: ArgumentHelp("With --queue: how long a claim on a batch holds beyond three times the batch's expected time; "
                               + "after that another node takes the batch over.", valueName: "duration"))
    var queueLease = "2m"

    @Option(help: ArgumentHelp("With --queue: how far apart the nodes' clocks may be; a lease is taken over only this much after "
                               + "it ran out.", valueName: "duration"))
    var clockSkew = "1m"

    /// `--flake-threshold` as a share from 0 to 1.
    func flakeShare() throws -> Double {
        let number = flakeThreshold.hasSuffix("%") ? String(flakeThreshold.dropLast()) : flakeThreshold
        guard let percent = Double(number), (0...100).contains(percent), percent > 0 else {
            throw CLIFailure(status: .usage, message: "--flake-threshold '\(flakeThreshold)' must be a percentage from 1% to 100%")
        }
        return percent / 100
    }

    /// The quarantine `--quarantine` names, or the one of the repository around `package`.
    func quarantine(package: URL, global: GlobalOptions) throws -> Quarantine? {
        guard let quarantineFile else { return try QuarantineLoader.find(from: package) }
        return try QuarantineLoader.load(global.resolve(quarantineFile), displayPath: quarantineFile)
    }

    /// The work queue of `run` at `place`, with these leases.
    func queue(_ run: String, at place: SharedPlace, node: Node) throws -> WorkQueue {
        var queue = try place.queue(run: run, node: node)
        for (name, text, keyPath) in [("--queue-lease", queueLease, \WorkQueue.leaseMargin), ("--clock-skew", clockSkew, \WorkQueue.clockSkew)] {
            guard let duration = Duration(parsingSpec: text), duration >= .zero else {
                throw CLIFailure(status: .usage, message: "\(name) '\(text)' must be a duration such as 90s or 2m")
            }
            queue[keyPath: keyPath] = duration.seconds
        }
        return queue
    }

    func runOptions(cores: Int) throws -> TestRunOptions {
        guard let count = ShardCount(parsing: shards), count.resolved(cores: cores) > 0 else {
            throw TestRunError.invalidShards(shards)
        }
        guard let limit = Duration(parsingSpec: timeout), limit > .zero else {
            throw CLIFailure(status: .usage, message: "--timeout '\(timeout)' must be a positive duration such as 90s or 10m")
        }
        guard retries >= 0, retries <= 100 else {
            throw CLIFailure(status: .usage, message: "--retries \(retries) must be between 0 and 100")
        }
        guard (maxRetried ?? 0) >= 0 else {
            throw CLIFailure(status: .usage, message: "--max-retried \(maxRetried!) must be 0 or more")
        }
        if let repeatCount, !(1...100_000).contains(repeatCount) {
            throw CLIFailure(status: .usage, message: "--repeat \(repeatCount) must be between 1 and 100000")
        }
        if untilFailure, repeatCount == nil {
            throw CLIFailure(status: .usage, message: "--until-failure goes with --repeat N")
        }
        if repeatCount != nil, node != "1/1" {
            throw CLIFailure(status: .usage, message: "--repeat hunts on one machine; leave out --node")
        }
        guard flaky == "fail" || flaky == "pass" else {
            throw CLIFailure(status: .usage, message: "--flaky '\(flaky)' must be 'fail' or 'pass'")
        }
        guard let output = ByteCount(parsing: outputLimit), output.bytes > 0 else {
            throw CLIFailure(status: .usage, message: "--output-limit '\(outputLimit)' must be a size such as 64KiB or 1MiB")
        }
        return TestRunOptions(shards: count.resolved(cores: cores), node: try Node(parsing: node),
                              limits: RunLimits(timeout: limit, outputLimit: Int(output.bytes)), retries: retries, maxRetried: maxRetried,
                              flakyFails: flaky == "fail", filters: filter, skips: skip)
    }
}
