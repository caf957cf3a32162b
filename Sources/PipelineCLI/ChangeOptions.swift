import ArgumentParser
import References

/// How `changes`, `run`, `test --affected` and the reference commands choose the commits to
/// compare: flags first, then the pipeline's spec.
struct ChangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The commit to compare to (default: HEAD).", valueName: "rev"))
    var head: String?

    @Option(
        help: ArgumentHelp("Compare this commit with --head, instead of the merge's first parent.", valueName: "rev"))
    var base: String?

    @Option(
        name: .customLong("merge-base"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Compare the merge base of two revisions with the second (like git diff A...B).", valueName: "base> <head"))
    var mergeBase: [String] = []

    @Flag(
        name: .customLong("no-renames"),
        help: "Report a rename as a deletion and an addition, like git diff --no-renames.")
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

    /// The comparison these flags ask for; a spec's change settings fill in the rest.
    var query: ChangeQuery {
        ChangeQuery(
            head: head, base: base, mergeBase: mergeBase.count == 2 ? (mergeBase[0], mergeBase[1]) : nil,
            detectRenames: !noRenames)
    }
}

/// How test directories and files are named, for the commands that look for tests in a checkout.
struct TestPatternOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Name pattern of test directories and files (default: the spec's changes.tests, or *Tests).",
            valueName: "pattern"))
    var tests: String?
}
