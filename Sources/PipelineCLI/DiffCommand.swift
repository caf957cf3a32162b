import ArgumentParser
import Foundation
import GitChanges
import ImageDiff
import Orchestrator
import PipelineSpec
import ReferenceStore

extension RefsCommand {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare a reference image with a new one: match ratio, differing pixels, an overlay.",
            discussion: """
            Anyone looking at a failed snapshot test: instead of overlaying the two images by hand, \
            'pipeline refs diff REFERENCE.png NEW.png -o overlay.png' reports the share of matching \
            pixels and writes the reference tinted red and blended over the new image, with the \
            differing pixels in yellow. Exit 1 when the match is below --precision or the sizes differ \
            (then the common area is compared); exit 2 when an image cannot be read.
            """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The reference image (PNG).", valueName: "reference"))
        var reference: String

        @Argument(help: ArgumentHelp("The new image (PNG).", valueName: "new"))
        var new: String

        @Option(help: "The share of matching pixels needed to pass, 0–1.")
        var precision = 0.985

        @Option(help: "The largest difference of a channel (0–255) still counted as the same pixel.")
        var tolerance = 0

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write the overlay image here.", valueName: "overlay.png"))
        var overlay: String?

        @Option(help: ArgumentHelp("Write a black and white mask of the differing pixels here.", valueName: "mask.png"))
        var mask: String?

        @Flag(help: "Print the comparison as JSON (see docs/json.md).")
        var json = false

        func validate() throws {
            guard (0...1).contains(precision) else { throw ValidationError("--precision must be between 0 and 1") }
            guard (0...255).contains(tolerance) else { throw ValidationError("--tolerance must be between 0 and 255") }
        }

        struct Output: Encodable {
            let reference: String
            let new: String
            let comparison: ImageComparison
            let matchRatio: Double
            let precision: Double
            let passed: Bool
            let overlay: String?
            let mask: String?
        }

        func run() throws {
            let referenceImage = try PNG.read(global.resolve(reference))
            let newImage = try PNG.read(global.resolve(new))
            let comparer = ImageComparer(tolerance: tolerance)
            let comparison = comparer.compare(referenceImage, newImage)
            if let overlay { try PNG.write(comparer.overlay(referenceImage, newImage), to: global.resolve(overlay)) }
            if let mask { try PNG.write(comparer.mask(referenceImage, newImage), to: global.resolve(mask)) }
            let passed = comparison.passes(precision: precision)
            if json {
                try Console.json(Output(reference: reference, new: new, comparison: comparison, matchRatio: comparison.matchRatio,
                                        precision: precision, passed: passed, overlay: overlay, mask: mask))
            } else {
                if !comparison.sameSize {
                    Console.out("sizes differ: reference \(comparison.reference), new \(comparison.new); "
                                + "compared over the common \(min(comparison.reference.width, comparison.new.width))×"
                                + "\(min(comparison.reference.height, comparison.new.height))")
                }
                Console.out(String(format: "match %.4f%%: ", comparison.matchRatio * 100)
                            + "\(comparison.differingPixels) of \(comparison.comparedPixels) pixels differ (tolerance \(tolerance)); "
                            + "precision \(precision): \(passed ? "passed" : "failed")")
            }
            if !passed { throw QuietExit(status: .testsFailed) }
        }
    }
}

extension RefsCommand {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an HTML page reviewing reference changes: new, removed, and changed side by side.",
            discussion: """
            Reviewers of a pull request, and CI as an artifact: compares feature (what the branch \
            proposes) with develop, or any two folders (--new-folder, --reference-folder), and writes \
            one self-contained page (images inline, no network). Each changed reference is shown as \
            reference / new / overlay with its match ratio, worst first, with a filter by test.
            """
        )

        @OptionGroup var options: ReferenceOptions

        @Argument(help: ArgumentHelp("These tests (default: the tests the compared commits changed).", valueName: "test"))
        var tests: [String] = []

        @Flag(help: "Every test in either location, not only the changed ones.")
        var all = false

        @OptionGroup var changeOptions: ChangeOptions

        @Option(name: .customLong("new"), help: "The store with the proposed references.")
        var newRole: StoreRole = .feature

        @Option(name: .customLong("reference"), help: "The store with the references they replace.")
        var referenceRole: StoreRole = .develop

        @Option(help: ArgumentHelp("Compare this folder of proposed references (<Test>/<image>) instead of a store.", valueName: "path"))
        var newFolder: String?

        @Option(help: ArgumentHelp("Compare with this folder of references instead of a store.", valueName: "path"))
        var referenceFolder: String?

        @Option(help: "The largest difference of a channel (0–255) still counted as the same pixel.")
        var tolerance = 0

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where to write the page.", valueName: "path"))
        var output = "reference-review.html"

        func run() async throws {
            let (transfers, changeSettings) = try options.context()
            func location(_ folder: String?, _ role: StoreRole) throws -> StoreLocation {
                guard let folder else { return try transfers.stores.location(role) }
                return StoreLocation(store: FolderStore(root: options.global.resolve(folder)), prefix: nil)
            }
            let new = try location(newFolder, newRole), reference = try location(referenceFolder, referenceRole)
            let entries = try await ReferenceReview(tolerance: tolerance, parallelism: options.parallel)
                .entries(tests: try await selectedTests(transfers, settings: changeSettings),
                         reference: reference, new: new)
            let page = ReviewPage.html(title: "Reference review", subtitle: "\(new.name) against \(reference.name)", entries: entries)
            let url = options.global.resolve(output)
            do {
                try Data(page.utf8).write(to: url, options: .atomic)
            } catch {
                throw CLIFailure(status: .usage, message: "\(url.path): cannot write the page (\(error.localizedDescription))")
            }
            let changed = entries.filter { $0.status == .changed }
            Console.error("\(entries.count) reference(s) compared")
            Console.out("\(url.path): \(changed.count) changed, \(entries.filter { $0.status == .new }.count) new, "
                        + "\(entries.filter { $0.status == .removed }.count) removed")
        }

        /// The named tests, every test (nil), or the tests the compared commits changed.
        private func selectedTests(_ transfers: ReferenceTransfers, settings: ChangeSettings) async throws -> [String]? {
            if !tests.isEmpty { return tests }
            if all { return nil }
            let root = options.global.workingDirectory.path
            let detector = ChangeDetector(repositoryPath: root, testPattern: transfers.testPattern,
                                          detectRenames: !changeOptions.noRenames)
            do {
                let changes = try detector.changes(try changeOptions.comparison(settings: settings))
                return try await transfers.changedTests(changes, history: try CommitHistory(repositoryPath: root),
                                                        from: newRole, to: referenceRole).all
            } catch let error as GitError {
                throw CLIFailure(status: .git, message: "\(error); to review every test, pass --all, or name the tests")
            }
        }
    }
}
