import Foundation
import PipelineCore
import TestRun
import Testing

@Suite("a shared run's settings")
struct RunSharingTests {
    let folder = URL(fileURLWithPath: "/tmp")

    @Test("--queue alone takes the CI's run id, in the CIs' order; none set is a usage error")
    func runID() throws {
        let ci = RunSharing(
            queue: RunSharing.queueFromCI, workingDirectory: folder,
            variables: ["BITRISE_BUILD_NUMBER": "7", "BITRISEIO_PIPELINE_ID": "p-1"])
        #expect(try ci.runID() == "p-1")
        #expect(try RunSharing(queue: "run-9", workingDirectory: folder, variables: [:]).runID() == "run-9")
        #expect(try RunSharing(workingDirectory: folder, variables: ["GITHUB_RUN_ID": "1"]).runID() == nil)
        #expect(throws: RequestError.self) {
            try RunSharing(queue: "ci", workingDirectory: folder, variables: [:]).runID()
        }
    }

    @Test("a node's report is kept in the run's folder only when the timings are in a store")
    func keptInRun() {
        let environment = ["GITHUB_RUN_ID": "42"]
        #expect(RunSharing(workingDirectory: folder, variables: environment).keptInRun == nil)
        #expect(
            RunSharing(timings: .file(path: "t.json"), workingDirectory: folder, variables: environment)
                .keptInRun
                == nil)
        #expect(
            RunSharing(timings: .store(.develop), workingDirectory: folder, variables: environment).keptInRun
                == "42")
    }
}
