import Foundation
import Testing

@Suite("pipeline plan: a CI matrix of nodes sharing one split")
struct PlanCommandTests {
    /// A timings file of 30 tests in 6 suites, 0.5–3.4 s each.
    private func timings(in folder: URL) throws -> URL {
        var tests: [String: [String: Double]] = [:]
        for index in 0..<30 {
            tests["App.Suite\(index % 6)/test\(index)"] = ["seconds": 0.5 + Double(index % 7) * 0.5, "samples": 1]
        }
        let url = folder.appendingPathComponent("timings.json")
        try JSONSerialization.data(withJSONObject: ["version": 1, "tests": tests]).write(to: url)
        return url
    }

    @Test("github-matrix is one line of nodes; json gives each node's share, together the whole suite, balanced")
    func matrix() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try timings(in: folder)
        let matrix = try PipelineBinary.run(
            ["plan", "--nodes", "3", "--format", "github-matrix", "--timings", file.path], in: folder)
        #expect(matrix.status == 0, "\(matrix.stderr)")
        #expect(matrix.stdout == #"{"include":[{"node":"1/3"},{"node":"2/3"},{"node":"3/3"}]}"# + "\n")

        let json = try PipelineBinary.run(["plan", "--nodes", "3", "--timings", file.path], in: folder)
        let nodes = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(nodes.map { $0["node"] as? String } == ["1/3", "2/3", "3/3"])
        #expect(nodes.compactMap { $0["tests"] as? Int }.reduce(0, +) == 30)
        let expected = nodes.compactMap { $0["expectedSeconds"] as? Double }
        #expect(expected.count == 3 && expected.max()! - expected.min()! <= 0.15 * expected.max()!, "\(expected)")

        let bad = try PipelineBinary.run(["plan", "--nodes", "0"], in: folder)
        #expect(bad.status == 2)

        // A shared run: the batches the nodes would claim, and where the queue would be. Nothing is written.
        let queued = try PipelineBinary.run(
            ["plan", "--nodes", "3", "--timings", file.path, "--queue", "R-1"], in: folder)
        #expect(queued.status == 0, "\(queued.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(queued.stdout.utf8)) as? [String: Any])
        #expect(plan["queue"] as? String == folder.standardizedFileURL.path + "/pipeline-runs/R-1/")
        #expect(plan["timings"] as? String == file.standardizedFileURL.path)
        let batches = try #require(plan["batches"] as? [[String: Any]])
        let names = batches.flatMap { ($0["tests"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names.count == 30 && Set(names).count == 30)
        let seconds = batches.compactMap { $0["expectedSeconds"] as? Double }
        #expect(seconds.first! > seconds.last!, "longest first, shrinking: \(seconds)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pipeline-runs").path))
    }
}
