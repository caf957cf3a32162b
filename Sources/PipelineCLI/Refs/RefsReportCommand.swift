import ArgumentParser
import Foundation
import PipelineSpec
import References

extension RefsCommand {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Write an HTML page reviewing reference changes: new, removed, and changed side by side.",
            discussion: """
                Reviewers of a pull request, and CI as an artifact: compares feature (what the branch \
                proposes) with develop, or any two folders (--new-folder, --reference-folder), and writes \
                one self-contained page (images inline, no network). Each changed reference is shown as \
                reference / new / overlay with its match ratio, worst first, with a filter by test. With \
                render environments, --environment A compares feature's and develop's sets of A, and \
                --new develop --environment A --against B one environment's set with another's.
                """
        )

        @OptionGroup var options: ReferenceOptions

        @Argument(
            help: ArgumentHelp("These tests (default: the tests the compared commits changed).", valueName: "test"))
        var tests: [String] = []

        @Flag(help: "Every test in either location, not only the changed ones.")
        var all = false

        @OptionGroup var changeOptions: ChangeOptions

        @Option(name: .customLong("new"), help: "The store with the proposed references.")
        var newRole: StoreRole = .feature

        @Option(name: .customLong("reference"), help: "The store with the references they replace.")
        var referenceRole: StoreRole = .develop

        @Option(
            help: ArgumentHelp(
                "Compare this folder of proposed references (<Test>/<image>) instead of a store.", valueName: "path"))
        var newFolder: String?

        @Option(help: ArgumentHelp("Compare with this folder of references instead of a store.", valueName: "path"))
        var referenceFolder: String?

        @Option(
            help: ArgumentHelp(
                "Compare with this render environment's set of the reference store, instead of the run's own "
                    + "(--environment A --against B: one environment against another).",
                valueName: "name"))
        var against: String?

        func validate() throws {
            if let against, let problem = EnvironmentName.problem(against) {
                throw ValidationError("--against \(problem)")
            }
            if against != nil, referenceFolder != nil {
                throw ValidationError("--against names a set of the reference store; it cannot take --reference-folder")
            }
        }

        @Option(help: "The largest difference of a channel (0–255) still counted as the same pixel.")
        var tolerance = 0

        @Option(
            name: [.short, .customLong("output")],
            help: ArgumentHelp(
                "Where to write the page (default: with pipeline's other outputs, out of the repository's tree).",
                valueName: "path"))
        var output = ".build/pipeline/reference-review.html"

        func run() async throws {
            var selection = ReviewSelection(tests: tests, all: all, changes: changeOptions.query)
            (selection.new, selection.reference) = (newRole, referenceRole)
            selection.newFolder = newFolder.map(options.global.resolve)
            selection.referenceFolder = referenceFolder.map(options.global.resolve)
            selection.against = against
            let review = try await options.context().review(
                selection, tolerance: tolerance, output: options.global.resolve(output))
            Console.error("\(review.entries.count) reference(s) compared")
            Console.out(review.summary)
        }
    }
}
