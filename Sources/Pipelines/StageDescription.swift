import PipelineSpec

/// One-line, human descriptions of a pipeline's parts, shared by `pipeline list` and the dry-run plan.
public struct StageDescription: Sendable {
    /// The cores `shards: auto` resolves to on this machine.
    public let availableCores: Int

    public init(availableCores: Int) {
        self.availableCores = availableCores
    }

    public func describe(_ test: TestStage) -> String {
        let shards =
            switch test.shards {
            case .auto: "auto shards (\(availableCores) on this machine)"
            case .fixed(let count): count == 1 ? "1 shard" : "\(count) shards"
            }
        var parts = [shards, "\(test.timeout.specText) per test"]
        switch test.retries {
        case 0: parts.append("no retries")
        case let count:
            let flaky = test.flaky == .fail ? "flaky tests fail the run" : "flaky tests are reported, not failed"
            let limit = test.maxRetried.map { "; none when more than \($0) fail" } ?? ""
            parts.append("\(count) \(count == 1 ? "retry" : "retries") (\(flaky)\(limit))")
        }
        parts.append(test.select == .all ? "all tests" : "only tests affected by the change")
        if test.package != "." { parts.append("package \(test.package)") }
        if test.configuration != .debug { parts.append("\(test.configuration.rawValue) build") }
        return parts.joined(separator: ", ")
    }

    public func describe(_ promote: PromoteStage) -> String {
        let prune =
            promote.prune
            ? "delete files \(promote.from.rawValue) no longer has"
            : "keep files \(promote.from.rawValue) no longer has"
        return "\(promote.from.rawValue) → \(promote.to.rawValue) for the changed tests, \(prune)"
            + (promote.evenIfTestsFail ? ", even if the tests fail" : "")
    }

    /// `parents`: how many parents the head has, where the repository was read (nil: not).
    public func describe(_ changes: ChangeSettings, parents: Int? = nil) -> String {
        let head = changes.head ?? "HEAD"
        let compared =
            switch (changes.compare, parents) {
            case (.merge, 0?): "\(head) (a root commit) against the empty tree"
            case (.merge, 1?):
                "\(head) (one parent: a squash merge, a rebase's last commit or a direct push) against its parent"
            case (.merge, _?): "\(head) (a merge commit) against its first parent"
            case (.merge, nil): "\(head) against its first parent (what a merge, a squash or a rebase brought in)"
            case (.range, _): "\(changes.base ?? "--base") against \(changes.head ?? "--head")"
            case (.mergeBase, _): "\(changes.head ?? "--head") against its merge base with \(changes.base ?? "--base")"
            }
        return "\(compared); test directories named \(changes.tests)"
    }
}
