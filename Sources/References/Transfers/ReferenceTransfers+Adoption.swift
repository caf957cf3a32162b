import Foundation
import SnapshotConventions

/// What a store a team's own scripts filled holds, read against the checkout before pipeline
/// takes it over (`init --existing-store`): develop's references per test, the snapshot tests
/// with none there, and the references whose test is gone. It writes nothing.
public struct StoreAdoption: Sendable, Encodable, Equatable {
    /// A test's references in develop: how many, how large, in which render environment's set.
    public struct Held: Sendable, Encodable, Equatable {
        public let test: String
        public let objects: Int
        public let bytes: Int64
        public var set: String? = nil
    }

    /// Develop's address, as the spec will name it.
    public let develop: String
    /// The tests whose references develop holds (test files in the checkout), by name.
    public let tests: [Held]
    /// Test files that keep snapshot references (`SnapshotTestSource.keepsReferences`) with no
    /// reference in develop: their first run fails until they are recorded.
    public let unreferenced: [String]
    /// References in develop whose test file is not in the checkout (another layout, a renamed
    /// or deleted test).
    public let orphans: [Orphan]
    /// How many objects feature holds (a branch's references not yet merged), when it is set.
    public let featureObjects: Int?

    /// The report as people read it: the counts, then each list (long ones cut short).
    public func render(listLimit: Int = 20) -> [String] {
        let objects = tests.reduce(0) { $0 + $1.objects }
        var lines = [
            "\(develop): \(objects) references of \(tests.count) tests in this checkout"
                + (featureObjects.map { "; feature holds \($0) objects" } ?? "")
        ]
        func list(_ heading: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            lines.append(heading)
            lines += items.prefix(listLimit).map { "  " + $0 }
            if items.count > listLimit { lines.append("  … and \(items.count - listLimit) more") }
        }
        list(
            "references per test:",
            tests.map { "\($0.set.map { "\($0)/" } ?? "")\($0.test): \($0.objects) (\(Self.size($0.bytes)))" })
        list("snapshot tests with no references in develop (they fail until recorded):", unreferenced)
        list(
            "references in develop whose test is not in this checkout (another layout? see --develop):",
            orphans.map { "\($0.place): \($0.objects)" })
        return lines
    }

    static func size(_ bytes: Int64) -> String {
        bytes < 1_000_000 ? "\((bytes + 999) / 1000) kB" : String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}

extension ReferenceTransfers {
    /// Reads develop (and feature) against the checkout's test files, writing nothing. A develop
    /// holding no reference of any test here is refused: the layout named is not the store's.
    public func adoption() async throws -> StoreAdoption {
        let local = stores.local(testPattern: testPattern)
        let held = try await referencesByTest(in: .develop)
        let develop = stores.settings.address(of: .develop)?.description ?? "develop"
        let tests = held.filter { local.testFiles.contains($0.key.test) }
            .map {
                StoreAdoption.Held(test: $0.key.test, objects: $0.value.objects, bytes: $0.value.bytes, set: $0.key.set)
            }
            .sorted { ($0.set ?? "", $0.test) < ($1.set ?? "", $1.test) }
        if held.keys.contains(where: { $0.set == SnapshotFile.folderName }) {
            throw ReferenceError.notAdoptable(
                "\(develop) keeps its references one folder deeper, in \(SnapshotFile.folderName)/: name that folder "
                    + "(init: --develop develop/\(SnapshotFile.folderName) --feature feature/\(SnapshotFile.folderName)); "
                    + "nothing was written")
        }
        guard !tests.isEmpty else {
            let found =
                held.isEmpty
                ? "holds no references"
                : "holds references of \(held.count) tests, none of them a test file here "
                    + "(\(held.keys.map(\.test).sorted().prefix(3).joined(separator: ", ")))"
            throw ReferenceError.notAdoptable(
                "\(develop) \(found): check --store and --develop (a layout like develop/\(SnapshotFile.folderName) "
                    + "is --develop develop/\(SnapshotFile.folderName)) and the credentials; nothing was written")
        }
        let referenced = Set(tests.map(\.test))
        let unreferenced = local.testFilePaths.filter { test, file in
            guard !referenced.contains(test), let text = try? String(contentsOf: file, encoding: .utf8) else {
                return false
            }
            return SnapshotTestSource.keepsReferences(text)
        }.keys.sorted()
        let orphans = try await orphans()
        let feature =
            stores.settings.address(of: .feature) == nil ? nil : try await stores.everyObject(.feature).count
        return StoreAdoption(
            develop: develop, tests: tests, unreferenced: unreferenced, orphans: orphans, featureObjects: feature)
    }
}
