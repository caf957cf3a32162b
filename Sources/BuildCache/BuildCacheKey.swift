import ChildProcesses
import Foundation
import ObjectStorage

/// Everything that makes a package's build tree unusable elsewhere: a restored tree is used only
/// where each part is the same. Entries are kept under the key's hash; the parts themselves are
/// kept beside them, so a miss can say which part differs.
public struct BuildCacheKey: Sendable, Codable, Equatable {
    /// `swift --version`, and where that `swift` is (a build tree names the toolchain's paths).
    public var toolchain: String
    /// The target triple (`swift --version`'s `Target:` line).
    public var triple: String
    public var configuration: String
    /// The build's own arguments, as given to `swift build` (the cache's file hashing included).
    public var flags: [String]
    /// `Package.resolved`'s pins, `identity@revision` each, sorted; empty when there is none.
    public var pins: [String]
    /// The package's absolute path: a build tree is not relocatable (its module caches and
    /// dependency files name it).
    public var path: String
    /// The build system that builds (`native`, `swiftbuild`): named by the flags, else the toolchain's default.
    public var buildSystem: String

    public init(
        toolchain: String, triple: String, configuration: String, flags: [String], pins: [String], path: String,
        buildSystem: String
    ) {
        (self.toolchain, self.triple, self.configuration, self.flags) = (toolchain, triple, configuration, flags)
        (self.pins, self.path, self.buildSystem) = (pins, path, buildSystem)
    }

    /// The key of building `package` here with `buildSystem`, with the `swift` on `variables`'s PATH.
    public static func current(
        package: URL, configuration: String, flags: [String], buildSystem: String, variables: [String: String],
        scratch: URL
    ) async throws(BuildCacheError) -> BuildCacheKey {
        let swift = Toolchain(variables: variables).swift
        let log = scratch.appendingPathComponent("swift-version.log")
        let result: ProcessResult
        do {
            result = try await ChildProcess.run(
                [swift?.path ?? "swift", "--version"], variables: variables, log: log,
                timeout: .seconds(60))
        } catch {
            throw .toolchain(reason: error.description)
        }
        guard result.termination == .exited(0) else {
            throw .toolchain(reason: "swift --version \(result.termination): \(result.output.prefix(300))")
        }
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let version = lines.filter { !$0.hasPrefix("Target:") && !$0.isEmpty }.joined(separator: "; ")
        let triple = lines.first { $0.hasPrefix("Target:") }.map { String($0.dropFirst("Target:".count)) } ?? ""
        return BuildCacheKey(
            toolchain: version + " at " + (swift?.deletingLastPathComponent().path ?? "PATH"),
            triple: triple.trimmingCharacters(in: .whitespaces), configuration: configuration, flags: flags,
            pins: pins(of: package), path: package.standardizedFileURL.path,
            buildSystem: buildSystem)
    }

    /// Resolves `package`'s dependencies (`swift package resolve`) when it has no `Package.resolved`,
    /// so its pins can be read before a build; a resolution that fails leaves none, which the build
    /// then reports. SwiftPM's clones go to a folder of `scratch`, removed after: the package's own
    /// `.build` stays as it was (a build cache restores into a checkout with none).
    public static func resolvePins(package: URL, variables: [String: String], scratch: URL) async {
        guard !FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.resolved").path)
        else { return }
        let resolving = scratch.appendingPathComponent("resolve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: resolving) }
        _ = try? await ChildProcess.run(
            [
                Toolchain(variables: variables).swift?.path ?? "swift", "package", "--package-path", package.path,
                "--scratch-path", resolving.path, "resolve",
            ], variables: ProcessInfo.processInfo.environment.merging(variables) { $1 },
            log: scratch.appendingPathComponent("resolve.log"), timeout: .seconds(600))
    }

    /// `Package.resolved`'s pins (versions 1 to 3 of its format); the file's hash when it reads
    /// otherwise, so a change is never missed.
    static func pins(of package: URL) -> [String] {
        guard let data = FileManager.default.contents(atPath: package.appendingPathComponent("Package.resolved").path)
        else { return [] }
        struct State: Decodable {
            let revision: String?
            let version: String?
            let branch: String?
        }
        struct Pin: Decodable {
            let identity: String?
            let package: String?
            let location: String?
            let repositoryURL: String?
            let state: State
        }
        struct File: Decodable {
            struct Object: Decodable { let pins: [Pin] }
            let pins: [Pin]?
            let object: Object?
        }
        guard let file = try? JSONDecoder().decode(File.self, from: data),
            let pins = file.pins ?? file.object?.pins
        else {
            return ["Package.resolved sha256 " + ((try? Digest.hex(of: data, .sha256)) ?? "unreadable")]
        }
        return pins.map { pin in
            let name = pin.identity ?? pin.package ?? pin.location ?? pin.repositoryURL ?? "?"
            return "\(name)@\(pin.state.revision ?? pin.state.version ?? pin.state.branch ?? "?")"
        }.sorted()
    }

    /// The key's name in the store: a hash of every part.
    public var hash: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(((try? Digest.hex(of: data, .sha256)) ?? "unhashable").prefix(24))
    }

    /// The parts that differ from `other`'s, each said with both values (`toolchain: … here, … in the cache`).
    public func differences(from other: BuildCacheKey) -> [String] {
        func said(_ part: String, _ mine: String, _ theirs: String) -> String? {
            mine == theirs ? nil : "\(part) ('\(mine)' here, '\(theirs)' in the cache)"
        }
        let pinsSaid: String? = {
            guard pins != other.pins else { return nil }
            let moved = Set(pins).symmetricDifference(other.pins).sorted()
            return "Package.resolved's pins (\(moved.prefix(4).joined(separator: ", ")))"
        }()
        return [
            said("toolchain", toolchain, other.toolchain), said("target", triple, other.triple),
            said("configuration", configuration, other.configuration),
            said("build flags", flags.joined(separator: " "), other.flags.joined(separator: " ")), pinsSaid,
            said("package path", path, other.path), said("build system", buildSystem, other.buildSystem),
        ].compactMap { $0 }
    }
}
