import ChildProcesses
import Foundation
import PipelineCore

/// The Swift the generated Linux jobs build with, and what decided it: `--swift-version`, else the
/// package's `.swift-version`, else the toolchain `init` runs with (its major and minor version,
/// whose image follows the patch releases), never below the package's `swift-tools-version`, which
/// is a minimum. Never a constant: a package asking for 6.2 gets 6.2.
public struct SwiftToolchain: Sendable, Equatable {
    /// `6.2` or `6.2.1`.
    public let version: String
    /// What decided it, as init says it.
    public let source: String

    /// The official image with this Swift: Ubuntu 24.04's from 6.0 on, Ubuntu 22.04's before (both
    /// with a glibc the release runs on, 2.35 or newer). A container job brings its own userland, so
    /// the job works whatever Ubuntu `ubuntu-latest` is.
    public var image: String { "swift:\(version)-\(Self.numbers(version)?.first ?? 6 >= 6 ? "noble" : "jammy")" }

    /// `6.2`, `6.2.1`, `swift-6.2-RELEASE` (swiftly's and swiftenv's forms) as numbers; nil otherwise.
    static func numbers(_ text: String) -> [Int]? {
        var word = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if word.hasPrefix("swift-") { word.removeFirst("swift-".count) }
        if word.hasSuffix("-RELEASE") { word.removeLast("-RELEASE".count) }
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }) else {
            return nil
        }
        let numbers = parts.compactMap { Int($0) }
        return numbers.count == parts.count ? numbers : nil
    }

    /// Whether `a` is below `b`, comparing the numbers present (6.2 is not below 6.2.0).
    private static func below(_ a: [Int], _ b: [Int]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x < y }
        return false
    }

    /// The choice from what was found. `file` is `.swift-version`'s text; `toolsVersion` the
    /// manifest's first line's version; `toolchain` what `swift --version` says.
    public static func choose(
        flag: String?, file: String?, toolsVersion: String?, toolchain: String?
    ) throws(RequestError) -> SwiftToolchain {
        let oldest = [5, 7]  // the first release with an Ubuntu 22.04 image
        func checked(_ text: String, _ source: String, what: String) throws(RequestError) -> SwiftToolchain {
            let word = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let numbers = numbers(word) else {
                throw RequestError(
                    "\(what) '\(word)': a Swift release such as 6.2 or 6.2.1 (the swift:<version> image)")
            }
            guard !below(numbers, oldest) else {
                throw RequestError(
                    "\(what) \(word): the generated Linux jobs run Swift 5.7 or newer (the release needs glibc 2.35)")
            }
            return SwiftToolchain(version: numbers.map(String.init).joined(separator: "."), source: source)
        }
        if let flag { return try checked(flag, "--swift-version", what: "--swift-version") }
        if let file {
            let line = file.split(separator: "\n").first.map(String.init) ?? ""
            return try checked(line, ".swift-version", what: ".swift-version:1:")
        }
        let minimum = toolsVersion.flatMap(numbers)
        if let toolchain, let found = numbers(toolchain) {
            let line = Array(found.prefix(2))
            if let minimum, below(line, minimum) {
                return try checked(
                    minimum.map(String.init).joined(separator: "."),
                    "Package.swift's swift-tools-version (the swift here, \(toolchain), is older)",
                    what: "Package.swift")
            }
            return try checked(
                line.map(String.init).joined(separator: "."), "the swift init ran with (\(toolchain))",
                what: "swift --version")
        }
        if let minimum {
            return try checked(
                minimum.map(String.init).joined(separator: "."), "Package.swift's swift-tools-version",
                what: "Package.swift")
        }
        throw RequestError(
            "no Swift version for the Linux jobs: write it in .swift-version (such as 6.2) or pass --swift-version")
    }

    /// Reads `repository`'s `.swift-version` and `Package.swift`, and asks the swift on PATH when
    /// neither the flag nor the file decides.
    public static func detect(in repository: URL, flag: String?) async throws(RequestError) -> SwiftToolchain {
        func read(_ name: String) -> String? {
            (try? Data(contentsOf: repository.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
        }
        let file = read(".swift-version")
        let toolsVersion = read("Package.swift").flatMap { manifest -> String? in
            guard let first = manifest.split(separator: "\n").first,
                let marker = first.range(of: "swift-tools-version:")
            else { return nil }
            return first[marker.upperBound...].trimmingCharacters(in: .whitespaces).prefix { $0 != ";" }.description
        }
        let toolchain = flag == nil && file == nil ? await Toolchain.swiftVersion.value : nil
        return try choose(flag: flag, file: file, toolsVersion: toolsVersion, toolchain: toolchain)
    }
}

/// The Xcode the generated macOS jobs select (`--xcode-version`, else the one init runs with on a
/// Mac, else the default of GitHub's newest macOS image), and the runner images that carry it.
public struct XcodeChoice: Sendable, Equatable {
    public let version: String
    public let source: String

    /// What `macos-26` selects by default (actions/runner-images, 2026-11); used only where init
    /// runs without Xcode and is not told.
    static let fallback = "26.1"

    /// GitHub's hosted image carrying this Xcode: macos-15 has Xcode 16, macos-26 Xcode 26.
    var gitHubRunner: String { major >= 26 ? "macos-26" : "macos-15" }
    /// Bitrise's stack of this Xcode.
    var bitriseStack: String { "osx-xcode-\(version.split(separator: ".").prefix(2).joined(separator: ".")).x" }
    private var major: Int { Int(version.split(separator: ".").first ?? "") ?? 0 }

    /// `flag`, else the Xcode here (on a Mac), else the fallback.
    public static func detect(flag: String?) async throws(RequestError) -> XcodeChoice {
        try choose(flag: flag, installed: flag == nil ? await Toolchain.xcodeVersion.value : nil)
    }

    public static func choose(flag: String?, installed: String?) throws(RequestError) -> XcodeChoice {
        let (text, source) =
            flag.map { ($0, "--xcode-version") } ?? installed.map { ($0, "the Xcode init ran with") }
            ?? (fallback, "macos-26's default (pass --xcode-version to choose)")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
            let major = Int(parts[0]), major == 16 || major == 26
        else {
            throw RequestError(
                "--xcode-version \(text): an Xcode GitHub's images carry, such as 16.4 (macos-15) or 26.1 (macos-26)")
        }
        return XcodeChoice(version: text, source: source)
    }
}
