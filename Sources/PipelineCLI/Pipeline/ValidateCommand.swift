import ArgumentParser
import Foundation
import PipelineCore
import PipelineSpec

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract:
            "Check pipeline specs (and pipelines/quarantine.yml) and report every problem as FILE:LINE:COLUMN: message.",
        discussion: "With no files, checks every .yml file in pipelines/. Exits 0 when all are valid, 3 otherwise."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Spec files to check (default: all of pipelines/).", valueName: "file"))
    var files: [String] = []

    func run() async throws {
        let targets = try SpecValidation.targets(files, from: global.workingDirectory)
        var problems = 0
        var invalidFiles = 0
        for target in targets {
            do throws(SpecError) {
                Console.out(try SpecValidation.check(target))
            } catch {
                invalidFiles += 1
                error.lines.forEach { Console.error($0) }
                problems += error.lines.count
            }
        }
        if invalidFiles > 0 {
            throw CLIFailure(
                status: .spec,
                message:
                    "\(invalidFiles) of \(counted(targets.count, "file")) invalid, \(counted(problems, "problem")) in all"
            )
        }
    }
}
