import ArgumentParser
import GitChanges
import PipelineSpec

/// How `changes` and `run` choose the commits to compare: flags first, then the pipeline's spec.
struct ChangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The commit to compare to (default: HEAD).", valueName: "rev"))
    var head: String?

    @Option(help: ArgumentHelp("Compare this commit with --head, instead of the merge's first parent.", valueName: "rev"))
    var base: String?

    @Option(name: .customLong("merge-base"), parsing: .upToNextOption,
            help: ArgumentHelp("Compare the merge base of two revisions with the second (like git diff A...B).",
                               valueName: "base> <head"))
    var mergeBase: [String] = []

    @Flag(name: .customLong("no-renames"), help: "Report a rename as a deletion and an addition, like git diff --no-renames.")
    var noRenames = false

    func validate() throws {
        if !mergeBase.isEmpty {
            guard mergeBase.count == 2 else {
                throw ValidationError("--merge-base takes two revisions, such as --merge-base develop feature")
            }
            guard base == nil, head == nil else {
                throw ValidationError("--merge-base cannot be combined with --base or --head")
            }
        }
    }

    /// The comparison the flags ask for, falling back to `settings` from a spec.
    func comparison(settings: ChangeSettings = ChangeSettings()) throws -> Comparison {
        if mergeBase.count == 2 {
            return .mergeBase(base: mergeBase[0], head: mergeBase[1])
        }
        let head = head ?? settings.head ?? "HEAD"
        if let base {
            return .range(base: base, head: head)
        }
        switch settings.compare {
        case .merge:
            return .merge(head: head)
        case .range, .mergeBase:
            guard let base = settings.base else {
                throw CLIFailure(status: .usage, message:
                    "changes.compare is \(settings.compare.rawValue) but no base is given; pass --base REV or set changes.base")
            }
            return settings.compare == .range ? .range(base: base, head: head) : .mergeBase(base: base, head: head)
        }
    }
}

/// How test directories and files are named, for the commands that look for tests in a checkout.
struct TestPatternOption: ParsableArguments {
    @Option(help: ArgumentHelp("Name pattern of test directories and files (default: the spec's changes.tests, or *Tests).",
                               valueName: "pattern"))
    var tests: String?

    func pattern(settings: ChangeSettings = ChangeSettings()) -> String {
        tests ?? settings.tests
    }
}
