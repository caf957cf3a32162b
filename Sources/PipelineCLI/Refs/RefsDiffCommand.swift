import ArgumentParser
import Foundation
import References

extension RefsCommand {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
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

        @Option(
            name: [.short, .customLong("output")],
            help: ArgumentHelp("Write the overlay image here.", valueName: "overlay.png"))
        var overlay: String?

        @Option(help: ArgumentHelp("Write a black and white mask of the differing pixels here.", valueName: "mask.png"))
        var mask: String?

        @Flag(help: "Print the comparison as JSON (see docs/json.md).")
        var json = false

        func validate() throws {
            guard (0...1).contains(precision) else { throw ValidationError("--precision must be between 0 and 1") }
            guard (0...255).contains(tolerance) else { throw ValidationError("--tolerance must be between 0 and 255") }
        }

        func run() throws {
            let check = try ImageCheck(
                reference: reference, new: new, precision: precision, tolerance: tolerance, overlay: overlay,
                mask: mask,
                resolve: global.resolve)
            json ? try Console.json(check) : check.render().forEach(Console.out)
            if !check.passed { throw QuietExit(status: .testsFailed) }
        }
    }
}
