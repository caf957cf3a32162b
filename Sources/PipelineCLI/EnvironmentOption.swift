import ArgumentParser
import PipelineSpec

/// `--environment NAME`: the render environment whose set of references a command uses, over
/// `PIPELINE_ENVIRONMENT` and the spec's `references: environment:`.
struct EnvironmentOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The render environment whose set of references to use (over PIPELINE_ENVIRONMENT and the spec's "
                + "references.environment); pulls fall back along references.fallback, then the shared set.",
            valueName: "name"))
    var environment: String?

    func validate() throws {
        if let environment, let problem = EnvironmentName.problem(environment) {
            throw ValidationError("--environment \(problem)")
        }
    }
}
