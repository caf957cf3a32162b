import Testing

@testable import PipelineSpec

@Suite("environment names: one folder of a store, from a template over the render environment")
struct EnvironmentNameTests {
    @Test("a template's fields, made fit for a name")
    func expand() {
        let values = [
            "os": "Linux", "os-version": "debian 12", "arch": "x86_64", "swift": "6.3.1", "snapshot-testing": "1.19.7",
            "ci": "GitHub Actions",
        ]
        #expect(EnvironmentName.expand("{os}-{os-version}-{arch}", values: values) == "linux-debian-12-x86_64")
        #expect(EnvironmentName.expand("ci-{ci}-swift{swift}", values: values) == "ci-github-actions-swift6.3.1")
        #expect(EnvironmentName.expand("{snapshot-testing}", values: [:]) == "unknown")
        #expect(EnvironmentName.templateProblem("{os}-{arch}") == nil)
        #expect(EnvironmentName.templateProblem("{os") == "'{os' opens a '{' it does not close")
        #expect(EnvironmentName.templateProblem("os}") == "'os}' closes a '}' it did not open")
    }

    @Test("names that cannot be one folder: slash, dots, control characters, over 100 bytes, reserved")
    func problems() {
        #expect(EnvironmentName.problem("macos-15-arm64") == nil)
        #expect(EnvironmentName.problem("") == "is empty")
        #expect(EnvironmentName.problem("a/b")?.contains("holds '/'") == true)
        #expect(EnvironmentName.problem("..")?.contains("starts with '.'") == true)
        #expect(EnvironmentName.problem("a\u{7}b")?.contains("control character") == true)
        #expect(EnvironmentName.problem("a b")?.contains("U+0020") == true)
        #expect(EnvironmentName.problem("é")?.contains("not ASCII") == true)
        #expect(
            EnvironmentName.problem(String(repeating: "a", count: 101))
                == "is 101 bytes long; an environment name has at most 100")
        #expect(EnvironmentName.problem("pipeline-runs")?.contains("'pipeline-'") == true)
    }
}
