import Foundation
import PipelineCore
import TestRun
import Testing

@Suite("a shared run's settings")
struct SharedRunSettingsTests {
    let folder = URL(fileURLWithPath: "/tmp")

    @Test("--queue alone takes the CI's run id, in the CIs' order; none set is a usage error")
    func runID() throws {
        let ci = SharedRunSettings(
            queue: SharedRunSettings.queueFromCI, workingDirectory: folder,
            variables: ["BITRISE_BUILD_NUMBER": "7", "BITRISEIO_PIPELINE_ID": "p-1"])
        #expect(try ci.runID() == "p-1")
        #expect(try SharedRunSettings(queue: "run-9", workingDirectory: folder, variables: [:]).runID() == "run-9")
        #expect(try SharedRunSettings(workingDirectory: folder, variables: ["GITHUB_RUN_ID": "1"]).runID() == nil)
        #expect(throws: RequestError.self) {
            try SharedRunSettings(queue: "ci", workingDirectory: folder, variables: [:]).runID()
        }
    }

    @Test("a node's report is kept in the run's folder only when the timings are in a store")
    func keptInRun() {
        let environment = ["GITHUB_RUN_ID": "42"]
        #expect(SharedRunSettings(workingDirectory: folder, variables: environment).keptInRun == nil)
        #expect(
            SharedRunSettings(timings: .file(path: "t.json"), workingDirectory: folder, variables: environment)
                .keptInRun
                == nil)
        #expect(
            SharedRunSettings(timings: .store(.develop), workingDirectory: folder, variables: environment).keptInRun
                == "42")
    }
}
