import CISystem
import ChildProcesses
import Foundation
import ObjectStorage

/// Where a reference or a candidate was rendered: the OS and its version, the CPU architecture,
/// the Swift version, swift-snapshot-testing's version, and the CI's name in CI; for an app tested
/// with xcodebuild, the simulator (its device and OS) and Xcode's version, which decide its pixels.
/// The same view renders differently where any of these but the CI's name differ.
///
/// Kept with each object as the metadata `pipeline-rendered-on` (S3 metadata, or a folder store's
/// sidecar): `os=Linux debian 12;arch=x86_64;swift=6.2.1;snapshot-testing=1.18.4;ci=GitHub Actions`.
public struct RenderEnvironment: Sendable, Equatable, CustomStringConvertible {
    public var os: String
    public var arch: String
    public var swift: String?
    public var snapshotTesting: String?
    public var ci: String?
    /// The simulator or device xcodebuild tests on (`iPhone 16`) and its OS's version (`18.2`).
    public var device: String?
    public var deviceOS: String?
    /// Xcode's version (`16.2`).
    public var xcode: String?

    public init(
        os: String, arch: String, swift: String? = nil, snapshotTesting: String? = nil, ci: String? = nil,
        device: String? = nil, deviceOS: String? = nil, xcode: String? = nil
    ) {
        self.os = os
        self.arch = arch
        self.swift = swift
        self.snapshotTesting = snapshotTesting
        self.ci = ci
        self.device = device
        self.deviceOS = deviceOS
        self.xcode = xcode
    }

    /// `macOS 15.1 arm64, Swift 6.2, swift-snapshot-testing 1.18.4, iPhone 16 (18.2), Xcode 16.2 (GitHub Actions)`.
    public var description: String {
        "\(os) \(arch)" + (swift.map { ", Swift \($0)" } ?? "")
            + (snapshotTesting.map { ", swift-snapshot-testing \($0)" } ?? "")
            + (device.map { ", \($0)" + (deviceOS.map { " (\($0))" } ?? "") } ?? "")
            + (xcode.map { ", Xcode \($0)" } ?? "") + (ci.map { " (\($0))" } ?? "")
    }

    /// Whether the same view renders the same here and in `other`: all but the CI's name agree.
    public func rendersLike(_ other: RenderEnvironment) -> Bool {
        (os, arch, swift, snapshotTesting) == (other.os, other.arch, other.swift, other.snapshotTesting)
            && (device, deviceOS, xcode) == (other.device, other.deviceOS, other.xcode)
    }

    /// The fields an environment name's template names (`EnvironmentName.fields`): `{os}` is the
    /// system's name (`Linux`, `macOS`), `{os-version}` the rest (`debian 12`, `15.1`); `{ci}` is
    /// `local` off CI.
    public var templateValues: [String: String] {
        let words = os.split(separator: " ", maxSplits: 1).map(String.init)
        var values = ["os": words.first ?? os, "arch": arch, "ci": ci ?? "local"]
        if words.count > 1 { values["os-version"] = words[1] }
        values["swift"] = swift
        values["snapshot-testing"] = snapshotTesting
        values["device"] = device
        values["device-os"] = deviceOS
        values["xcode"] = xcode
        return values
    }

    /// The metadata value: `key=value` pairs joined by `;`, printable ASCII only.
    public var metadataValue: String {
        let fields = [
            ("os", os), ("arch", arch), ("swift", swift), ("snapshot-testing", snapshotTesting), ("ci", ci),
            ("device", device), ("device-os", deviceOS), ("xcode", xcode),
        ]
        return fields.compactMap { key, value in value.map { "\(key)=\(Self.clean($0))" } }.joined(separator: ";")
    }

    /// Reads a metadata value; nil when it names no OS and architecture.
    public init?(metadata value: String) {
        var fields: [String: String] = [:]
        for pair in value.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let os = fields["os"], let arch = fields["arch"] else { return nil }
        self.init(
            os: os, arch: arch, swift: fields["swift"], snapshotTesting: fields["snapshot-testing"], ci: fields["ci"],
            device: fields["device"], deviceOS: fields["device-os"], xcode: fields["xcode"])
    }

    private static func clean(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != ";" && scalar != "=" ? Character(scalar) : " "
            })
    }

    /// This machine's, for the package at `package` (its `Package.resolved` names the library's
    /// version) with `environment`'s CI. The Swift version is the toolchain's on the PATH.
    /// For an app tested with xcodebuild (`PIPELINE_XCODE_DESTINATION` set, as the generated
    /// workflows set it), the destination's device and OS, and Xcode's version.
    public static func current(package: URL, variables: [String: String]) async -> RenderEnvironment {
        var environment = RenderEnvironment(
            os: operatingSystem(), arch: architecture(), swift: await Toolchain.swiftVersion.value,
            snapshotTesting: snapshotTestingVersion(package: package), ci: CIContext(variables).name)
        if let destination = variables[destinationVariable], !destination.isEmpty {
            (environment.device, environment.deviceOS) = Self.device(destination: destination)
            environment.xcode = await Toolchain.xcodeVersion.value
        }
        return environment
    }

    /// The variable naming xcodebuild's `-destination` in an Xcode team's CI.
    public static let destinationVariable = "PIPELINE_XCODE_DESTINATION"

    /// The device and OS an xcodebuild destination names (`platform=iOS Simulator,name=iPhone 16,OS=18.2`);
    /// nil for what it leaves to xcodebuild.
    public static func device(destination: String) -> (name: String?, os: String?) {
        var fields: [String: String] = [:]
        for part in destination.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { fields[pair[0].lowercased()] = pair[1] }
        }
        return (fields["name"], fields["os"].flatMap { $0 == "latest" ? nil : $0 })
    }

    static func operatingSystem() -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(macOS)
            return "macOS \(version.majorVersion).\(version.minorVersion)"
        #else
            // The kernel's version says little of how text and images are drawn; the distribution does.
            if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
                var fields: [String: String] = [:]
                for line in release.split(separator: "\n") {
                    let parts = line.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: ["\""]) }
                }
                if let id = fields["ID"] { return "Linux \(id)" + (fields["VERSION_ID"].map { " \($0)" } ?? "") }
            }
            return "Linux \(version.majorVersion).\(version.minorVersion)"
        #endif
    }

    static func architecture() -> String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.machine) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// swift-snapshot-testing's version in the package's `Package.resolved`; nil without one.
    static func snapshotTestingVersion(package: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: package.appendingPathComponent("Package.resolved").path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let pins = (object["pins"] ?? (object["object"] as? [String: Any])?["pins"]) as? [[String: Any]] ?? []
        let pin = pins.first {
            ($0["identity"] as? String ?? ($0["package"] as? String)?.lowercased()) == "swift-snapshot-testing"
        }
        return (pin?["state"] as? [String: Any])?["version"] as? String
    }

    /// Where the object `key` of `location` was rendered, when its metadata says.
    public static func of(_ key: ObjectKey, in location: StoreLocation) async -> RenderEnvironment? {
        let value = (try? await location.store.metadata(of: key.under(location.prefix)))?[StoreSync.renderedOnMetadata]
        return value.flatMap(RenderEnvironment.init(metadata:))
    }
}
