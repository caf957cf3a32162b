import ArgumentParser

/// git's convention for the global option: `pipeline -C PATH changes` works like `git -C PATH`.
/// The argument parser takes `-C` only after the command it belongs to, so each `-C PATH`
/// (or `--directory PATH`, `-CPATH`, `--directory=PATH`) given before the command is moved after
/// it. Several join as git's do: each one is relative to the one before.
enum LeadingOptions {
    static func hoisted(_ arguments: [String], root: ParsableCommand.Type = PipelineCommand.self) -> [String] {
        var rest = arguments[...]
        var directory: String?
        while let first = rest.first {
            let value: String
            if first == "-C" || first == "--directory", rest.count > 1 {
                value = rest[rest.index(after: rest.startIndex)]
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--directory=") {
                value = String(first.dropFirst("--directory=".count))
                rest = rest.dropFirst()
            } else if first.hasPrefix("-C"), first.count > 2 {
                value = String(first.dropFirst(2))
                rest = rest.dropFirst()
            } else {
                break
            }
            directory = directory.map { value.hasPrefix("/") ? value : "\($0)/\(value)" } ?? value
        }
        guard let directory else { return arguments }
        // The option belongs right after the command path: `refs promote`, `changes`.
        var command = root
        var index = rest.startIndex
        while index < rest.endIndex,
            let next = command.configuration.subcommands.first(where: { $0._commandName == rest[index] })
        {
            command = next
            index += 1
        }
        return Array(rest[..<index]) + ["-C", directory] + Array(rest[index...])
    }
}
