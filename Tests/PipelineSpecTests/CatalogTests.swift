import Foundation
import Testing

@testable import PipelineSpec

@Suite("Finding pipelines")
struct CatalogTests {
    /// A temporary repository: `.git` at the top, `pipelines/` holding the given specs.
    private func repository(_ specs: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("pipelines"), withIntermediateDirectories: true)
        for (name, text) in specs {
            try Data(text.utf8).write(to: root.appendingPathComponent("pipelines/\(name)"))
        }
        return root
    }

    @Test("pipelines/ is found from a subfolder, and names come from .yml and .yaml files")
    func locateFromSubfolder() throws {
        let root = try repository([
            "b.yml": "name: b\ndescription: B\nstages: [test]\n",
            "a.yaml": "name: a\ndescription: A\nstages: [test]\n",
            "notes.txt": "not a pipeline",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let sub = root.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let catalog = try PipelineCatalog.locate(from: sub)
        #expect(catalog.names() == ["a", "b"])
        #expect(try catalog.load(named: "b").description == "B")
        #expect(catalog.displayPath(of: catalog.folder.appendingPathComponent("b.yml")).hasSuffix("/pipelines/b.yml"))
    }

    @Test("the search stops at the repository root")
    func stopsAtRepositoryRoot() throws {
        let root = try repository([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let inner = root.appendingPathComponent("inner")
        try FileManager.default.createDirectory(
            at: inner.appendingPathComponent(".git"), withIntermediateDirectories: true)
        do {
            _ = try PipelineCatalog.locate(from: inner)
            Issue.record("found a pipelines/ folder above the repository root")
        } catch {
            #expect(
                error.description == "no pipelines/ folder in \(inner.path) or its parents up to the repository root; "
                    + "create pipelines/<name>.yml, or run 'pipeline init' to write the specs and CI files")
        }
    }

    @Test("an unknown name lists the pipelines that exist")
    func unknownName() throws {
        let root = try repository(["post-merge.yml": "", "nightly.yml": ""])
        defer { try? FileManager.default.removeItem(at: root) }
        let catalog = try PipelineCatalog.locate(from: root)
        do {
            _ = try catalog.load(named: "post-merg")
            Issue.record("loaded a pipeline that does not exist")
        } catch {
            #expect(error.description == "no pipeline named 'post-merg' in pipelines/; available: nightly, post-merge")
        }
    }
}
