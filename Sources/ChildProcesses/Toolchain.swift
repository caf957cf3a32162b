import Foundation

/// Where the toolchain that builds the package keeps its tools: beside the real path of the
/// `swift` first on PATH (its symbolic links followed), and on macOS, where `/usr/bin/swift` is a
/// shim, also where `xcrun` would look. The tools first on PATH may be another LLVM's (Debian's).
public struct Toolchain: Sendable {
    /// The `swift` found on PATH, if any.
    public let swift: URL?
    /// The folders looked in, first first, without repeats.
    public let folders: [URL]

    public init(variables: [String: String]) {
        let swift = Self.executable("swift", in: variables["PATH"])
        var folders: [URL] = []
        if let swift {
            folders.append(swift.resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(swift.deletingLastPathComponent())
        }
        #if os(macOS)
            folders += Self.developerToolFolders(variables: variables)
        #endif
        var unique: [URL] = []
        for folder in folders where !unique.contains(folder) { unique.append(folder) }
        self.swift = swift
        self.folders = unique
    }

    /// `swift --version`'s version (`6.3.1`) of the `swift` on PATH, read once per process; nil when
    /// it cannot be run.
    public static let swiftVersion = Task<String?, Never> {
        await version(["swift", "--version"], after: "Swift version ")
    }

    /// `xcodebuild -version`'s version (`16.2` of `Xcode 16.2`), read once per process; nil without Xcode.
    public static let xcodeVersion = Task<String?, Never> {
        await version(["xcodebuild", "-version"], after: "Xcode ")
    }

    /// The build system SwiftPM builds with when none is named, as `swift build --help` says it
    /// (`--build-system … (default: native)`): `native`, or `swiftbuild` from SwiftPM 6.4 on. Read
    /// once per process; nil when it cannot be run or does not say.
    public static let defaultBuildSystem = Task<String?, Never> {
        guard let help = await output(of: ["swift", "build", "--help"]),
            let option = help.range(of: "--build-system"),
            let marker = help[option.upperBound...].range(of: "(default: ")
        else { return nil }
        let name = help[marker.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// The word after `marker` in what `arguments` print; nil when they cannot be run or do not say.
    static func version(_ arguments: [String], after marker: String) async -> String? {
        guard let output = await output(of: arguments), let range = output.range(of: marker) else { return nil }
        return output[range.upperBound...].prefix { !$0.isWhitespace }.description
    }

    /// What `arguments` print; nil when they cannot be run.
    public static func output(of arguments: [String]) async -> String? {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipeline-\(arguments[0])-\(getpid())-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        return try? await ChildProcess.run(
            arguments, variables: ProcessInfo.processInfo.environment, log: log, timeout: .seconds(30)
        ).output
    }

    /// The toolchain's `tool`, nil when none of the folders has it.
    public func tool(_ tool: String) -> URL? {
        for folder in folders {
            let candidate = folder.appendingPathComponent(tool)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The first executable `name` in the folders of `path`.
    public static func executable(_ name: String, in path: String?) -> URL? {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    #if os(macOS)
        /// Where `xcrun` finds the tools, without running it: the active developer folder
        /// (`DEVELOPER_DIR`, else `xcode-select`'s link), its default toolchain, and the Command Line Tools.
        /// Not yet run on a Mac.
        private static func developerToolFolders(variables: [String: String]) -> [URL] {
            var developer: [URL] = []
            if let path = variables["DEVELOPER_DIR"] { developer.append(URL(fileURLWithPath: path)) }
            let link = URL(fileURLWithPath: "/var/db/xcode_select_link")
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path) {
                developer.append(URL(fileURLWithPath: target))
            }
            developer.append(URL(fileURLWithPath: "/Library/Developer/CommandLineTools"))
            return developer.flatMap {
                [
                    $0.appendingPathComponent("Toolchains/XcodeDefault.xctoolchain/usr/bin"),
                    $0.appendingPathComponent("usr/bin"),
                ]
            }
        }
    #endif
}
