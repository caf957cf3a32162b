import ArgumentParser
import Foundation
import PipelineSpec
import TestCore
import TestRun

/// How `pipeline test` runs the tests: shards, this node's part, limits, retries and selection.
struct TestOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("How many shards run at once: a number, or 'auto' for one per core.", valueName: "n|auto"))
    var shards = ShardCount.auto

    @Option(
        help: ArgumentHelp("Run only part I of N of the suite, for N CI machines sharing one plan.", valueName: "I/N"),
        transform: parseNode)
    var node: Node = .whole

    @Option(
        help: ArgumentHelp("Kill a test running longer than this (e.g. 90s, 10m).", valueName: "duration"),
        transform: duration("--timeout"))
    var timeout = Duration.seconds(600)

    @Option(
        help: ArgumentHelp(
            "Stop a test whose recorded durations give a p90 once it runs FACTOR times that, FLOOR at least "
                + "(--timeout stays the ceiling); off gives every test the whole --timeout.",
            valueName: "FACTORx/FLOOR|off"))
    var historyTimeout = "10x/60s"

    @Option(help: "Run a failing test again up to this many times; one that then passes is flaky.")
    var retries = 0

    @Option(
        help: ArgumentHelp(
            "When more tests than this fail, retry none of them: a mass failure is a breakage, not flakiness.",
            valueName: "n"))
    var maxRetried: Int?

    @Flag(help: "Run only the tests that did not pass in the last run here (<package>/.build/pipeline/last-run.json).")
    var failed = false

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp(
            "Hunt flakiness: run the selected tests this many times, each run in fresh processes, and report each "
                + "test's failure rate and first failure (no retries; nothing recorded).", valueName: "n"))
    var repeatCount: Int?

    @Flag(help: "With --repeat: start no run after one failed.")
    var untilFailure = false

    @Option(
        help: ArgumentHelp(
            "Name the tests flaky or failing in this share of their recent runs (at least 5 recorded), "
                + "with the line that quarantines them.", valueName: "percent"))
    var flakeThreshold = Percentage(parsing: "10%")!

    @Option(
        name: .customLong("quarantine"),
        help: ArgumentHelp(
            "The quarantine file: tests whose failures do not fail the run (default: pipelines/quarantine.yml "
                + "of the package's repository, when there is one; see docs/quarantine.md).", valueName: "path"))
    var quarantineFile: String?

    @Option(help: ArgumentHelp("Whether a flaky test fails the run: fail or pass.", valueName: "fail|pass"))
    var flaky = FlakyPolicy.fail

    @Option(help: ArgumentHelp("Output kept per failing test (e.g. 64KiB).", valueName: "size"))
    var outputLimit = ByteCount(1 << 20)

    @Option(
        help: ArgumentHelp(
            "Run only tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var filter: [String] = []

    @Option(
        help: ArgumentHelp(
            "Leave out tests whose name matches this regular expression (repeatable).", valueName: "regex"))
    var skip: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --queue: how long a claim on a batch holds beyond three times the batch's expected time; "
                + "after that another node takes the batch over.", valueName: "duration"),
        transform: duration("--queue-lease"))
    var queueLease = Duration.seconds(120)

    @Option(
        help: ArgumentHelp(
            "With --queue: how far apart the nodes' clocks may be; a lease is taken over only this much after "
                + "it ran out.", valueName: "duration"),
        transform: duration("--clock-skew"))
    var clockSkew = Duration.seconds(60)

    func validate() throws {
        if case .fixed(let count) = shards, count < 1 { throw ValidationError("--shards must be 'auto' or at least 1") }
        _ = try PipelineCLI.historyTimeout(historyTimeout)
        guard timeout > .zero else { throw ValidationError("--timeout must be a positive duration such as 90s or 10m") }
        guard (0...100).contains(retries) else {
            throw ValidationError("--retries \(retries) must be between 0 and 100")
        }
        if let maxRetried, maxRetried < 0 { throw ValidationError("--max-retried \(maxRetried) must be 0 or more") }
        if let repeatCount, !(1...100_000).contains(repeatCount) {
            throw ValidationError("--repeat \(repeatCount) must be between 1 and 100000")
        }
        if untilFailure, repeatCount == nil { throw ValidationError("--until-failure goes with --repeat N") }
        if repeatCount != nil, node != .whole {
            throw ValidationError("--repeat hunts on one machine; leave out --node")
        }
        guard outputLimit.bytes > 0 else {
            throw ValidationError("--output-limit must be a size such as 64KiB or 1MiB")
        }
        guard queueLease >= .zero, clockSkew >= .zero else {
            throw ValidationError("--queue-lease and --clock-skew must be durations such as 90s or 2m")
        }
    }

    /// How the tests are split, bounded, retried and chosen, as asked.
    var limits: TestRequest.Limits {
        var limits = TestRequest.Limits(
            shards: shards, node: node, timeout: timeout, retries: retries, maxRetried: maxRetried, flaky: flaky,
            outputLimit: outputLimit, filters: filter, skips: skip, failedOnly: failed,
            flakeThreshold: flakeThreshold.share, queueLease: queueLease, clockSkew: clockSkew)
        limits.historyTimeout = try? PipelineCLI.historyTimeout(historyTimeout)
        return limits
    }

    /// `--repeat`'s flake hunt, else `fallback`.
    func mode(else fallback: TestRequest.Mode) -> TestRequest.Mode {
        repeatCount.map { .hunt(times: $0, untilFailure: untilFailure) } ?? fallback
    }

    /// `--quarantine FILE`, resolved, with the spelling given.
    func quarantine(_ global: GlobalOptions) -> (url: URL, display: String)? {
        quarantineFile.map { (global.resolve($0), $0) }
    }
}
