import Foundation
import GitChanges

/// What a build tree restored from the cache may hold, checked in its staging folder before it is
/// put in place: build products, and dependency checkouts that are exactly the revisions this
/// checkout's `Package.resolved` pins (checked with git, by content: `PinnedCheckout`).
///
/// - A checkout that is not its pin's tree (a file changed, added or missing), that no pin names,
///   or that cannot be checked refuses the whole tree: the products beside it were built from it.
/// - Without pins (a package that does not commit `Package.resolved`), nothing says which
///   revisions the checkouts must be: they are left out with SwiftPM's clones and workspace
///   state, and SwiftPM checks its dependencies out again.
/// - Downloads and plugin outputs are never restored (`leftOut`): SwiftPM downloads binary
///   artifacts again (checking their checksums) and runs build plugins again.
struct RestoredTree {
    /// The staged `.build` folder.
    let build: URL
    /// Where it goes: the package's `.build` (the path a checkout's alternates name its objects by).
    let destination: URL
    /// `Package.resolved`'s pins of this checkout: `identity@revision` (`BuildCacheKey.pins`).
    let pins: [String]

    /// Folders of `.build` neither kept nor restored: binary targets and prebuilt modules
    /// downloaded, registry downloads, build plugins' compiled tools and outputs.
    static let leftOut = ["artifacts", "prebuilts", "registry", "plugins"]

    /// Removes what is never restored and checks the checkouts; why the tree is refused, or nil.
    func vet() -> String? {
        let manager = FileManager.default
        for name in Self.leftOut {
            try? manager.removeItem(at: build.appendingPathComponent(name))
        }
        let checkouts = build.appendingPathComponent("checkouts")
        let folders = ((try? manager.contentsOfDirectory(atPath: checkouts.path)) ?? []).sorted()
        guard !folders.isEmpty else { return nil }
        guard !pins.isEmpty else {
            for name in ["checkouts", "repositories", "workspace-state.json"] {
                try? manager.removeItem(at: build.appendingPathComponent(name))
            }
            return nil
        }
        // identity → revision; SwiftPM names a checkout's folder after its identity, in any case.
        var revisions: [String: String] = [:]
        for pin in pins {
            guard let at = pin.lastIndex(of: "@") else { continue }
            revisions[pin[..<at].lowercased()] = String(pin[pin.index(after: at)...])
        }
        for folder in folders {
            guard let revision = revisions[folder.lowercased()] else {
                return "its dependency checkout '\(folder)' is pinned by no entry of Package.resolved"
            }
            do {
                let checkout = checkouts.appendingPathComponent(folder)
                let differences = try PinnedCheckout(
                    folder: checkout, revision: revision, objectFolders: stagedAlternates(of: checkout)
                ).differences(limit: 3)
                if !differences.isEmpty {
                    return "its dependency checkout '\(folder)' is not the pinned revision "
                        + "\(revision.prefix(12)): " + differences.joined(separator: "; ")
                }
            } catch {
                return "its dependency checkout '\(folder)' cannot be checked against the pinned revision "
                    + "\(revision.prefix(12)): \(error)"
            }
        }
        return nil
    }

    /// A checkout's alternates (SwiftPM's: the clone in `.build/repositories`) that name the
    /// destination, named in the staging folder instead.
    private func stagedAlternates(of checkout: URL) -> [URL] {
        let file = checkout.appendingPathComponent(".git/objects/info/alternates")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        let final = destination.standardizedFileURL.path + "/"
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix(final) else { return nil }
            return build.appendingPathComponent(String(line.dropFirst(final.count)))
        }
    }
}
