import ArgumentParser
import Foundation
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
        let base = global.workingDirectory
        let targets: [(url: URL, display: String)]
        if files.isEmpty {
            let catalog = try PipelineCatalog.locate(from: base)
            targets = (catalog.files() + [QuarantineLoader.file(in: catalog)].compactMap { $0 })
                .map { ($0, catalog.displayPath(of: $0)) }
            guard !targets.isEmpty else {
                throw CLIFailure(
                    status: .spec,
                    message:
                        "\(catalog.displayPath(of: catalog.folder))/ holds no .yml files; nothing to validate")
            }
        } else {
            targets = files.map { (URL(fileURLWithPath: $0, relativeTo: base).standardizedFileURL, $0) }
        }
        var problems = 0
        var invalidFiles = 0
        for target in targets {
            do throws(SpecError) {
                if target.url.lastPathComponent == Quarantine.fileName {
                    let quarantine = try QuarantineLoader.load(target.url, displayPath: target.display)
                    Console.out("ok: \(target.display) (\(quarantine.entries.count) quarantined)")
                } else {
                    let spec = try SpecLoader.load(target.url, displayPath: target.display)
                    Console.out(
                        "ok: \(target.display) (\(spec.stages.count) stage\(spec.stages.count == 1 ? "" : "s"))")
                }
            } catch {
                invalidFiles += 1
                error.lines.forEach { Console.error($0) }
                problems += error.lines.count
            }
        }
        if invalidFiles > 0 {
            throw CLIFailure(
                status: .spec,
                message: "\(invalidFiles) of \(targets.count) "
                    + "file\(targets.count == 1 ? "" : "s") invalid, \(problems) problem\(problems == 1 ? "" : "s") in all"
            )
        }
    }
}
