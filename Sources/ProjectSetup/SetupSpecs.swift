import PipelineSpec

/// The two specs `pipeline init` writes, the same for every CI: a pull request's (develop's
/// references with the branch's pushes over them, then the tests, failed snapshots kept in feature
/// for review) and the one post-merge spec (pull, test, promote). A CI whose machines share a run
/// runs their parts with `pipeline run NAME --only …`.
enum SetupSpecs {
    static let junit = ".build/pipeline/junit.xml"

    static func pullRequest(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`: a pull request into \(request.base). See `pipeline list`.
        name: pull-request
        description: Develop's references with the branch's own pushes over them, then the tests; failed snapshots kept for review.
        changes:
          compare: merge-base
          base: \(SpecWriter.quoted("origin/" + request.base))
        \(references(request))
        \(pullAndTest(request, retries: 1, verdicts: .reuse, extra: request.nodes == 1 ? Self.byImpact : []))

        """
    }

    /// The pull request's test stage on one machine: what its change reaches from develop's
    /// verified tree, composed with that tree's verdict (docs/ci.md, "Composed verdicts"). Machines
    /// sharing a run (`--nodes`) run the whole suite: a shared run does not compose.
    static let byImpact = [
        "# What the change reaches from develop's last verified tree runs; the rest is that run's.",
        "# select: all runs every test.", "select: impacted",
    ]

    /// The post-merge test stage: the whole suite records the impact map the pull requests select
    /// by; a merge whose tree a check verified runs nothing, but not past 20 composed verdicts.
    static let recordsImpact = ["impact: record", "full-every: 20"]

    static func postMerge(_ request: SetupRequest) -> String {
        """
        # Written by `pipeline init`: after a pull request merges into \(request.base) (\(request.mergeStyle.phrase); every style promotes).
        name: post-merge
        description: After a merge, pull develop's references and the merged branch's, test, and promote the branch's references to develop.
        changes:
          compare: merge
        \(references(request))
        \(pullAndTest(request, retries: 0, verdicts: .reuse, extra: request.nodes == 1 ? Self.recordsImpact : []))
          - promote:
              from: feature
              to: develop

        """
    }

    /// Both specs' first stages: develop's references with the branch's pushes over them, then the
    /// tests, balanced by the timings kept in develop, built from the build cache.
    /// `verdicts`: the pull request's check keeps its verdict, the merge's run reuses it when the
    /// merge's tree is the one verified (docs/ci.md, "Tested once").
    private static func pullAndTest(
        _ request: SetupRequest, retries: Int, verdicts: VerdictUse, extra: [String]
    ) -> String {
        // An app tested with xcodebuild: the workflow's nodes run the tests and import their results.
        guard request.xcode == nil else {
            return """
                stages:
                  - pull:
                      from: develop
                      changed-from: feature
                """
        }
        return """
            stages:
              - pull:
                  from: develop
                  changed-from: feature
              - test:
                  shards: auto\(retries > 0 ? "\n      retries: \(retries)" : "")
                  timings: develop
                  junit: \(junit)
                  build-cache: \(SpecWriter.quoted(request.buildCache))
                  verdicts: \(verdicts.rawValue)
            """ + extra.map { "\n      " + $0 }.joined()
    }

    private static func references(_ request: SetupRequest) -> String {
        var lines = [
            "references:", "  feature: \(SpecWriter.quoted(request.address(request.layout.feature)))",
            "  develop: \(SpecWriter.quoted(request.address(request.layout.develop)))",
        ]
        if let region = request.region { lines.append("  region: \(SpecWriter.quoted(region))") }
        if let endpoint = request.endpoint {
            lines.append("  endpoint: \(SpecWriter.quoted(endpoint))")
            if endpoint.hasPrefix("http://") { lines.append("  allow-http: true") }
        }
        return lines.joined(separator: "\n")
    }
}
