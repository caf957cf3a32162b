import Foundation

/// Writes a `PipelineSpec` back as YAML-lite text that `SpecLoader` reads to the same value.
/// Every setting is written out, defaults included, so the text shows what the pipeline will do.
public enum SpecWriter {
    public static func yaml(_ spec: PipelineSpec) -> String {
        var lines = ["name: \(quoted(spec.name))", "description: \(quoted(spec.description))", "changes:"]
        lines.append("  compare: \(spec.changes.compare.rawValue)")
        lines.append("  tests: \(quoted(spec.changes.tests))")
        optional("base", spec.changes.base, indent: 2, into: &lines)
        optional("head", spec.changes.head, indent: 2, into: &lines)
        if let references = spec.references {
            lines.append("references:")
            optional("local", references.local, indent: 2, into: &lines)
            optional("feature", references.feature?.description, indent: 2, into: &lines)
            optional("develop", references.develop?.description, indent: 2, into: &lines)
            optional("endpoint", references.endpoint, indent: 2, into: &lines)
            optional("region", references.region, indent: 2, into: &lines)
            optional("profile", references.profile, indent: 2, into: &lines)
            lines.append("  allow-http: \(references.allowHTTP)")
            optional("review-url", references.reviewURL, indent: 2, into: &lines)
            if let presigned = references.presignedLinks { lines.append("  presigned-links: \(presigned)") }
            optional("environment", references.environment, indent: 2, into: &lines)
            if !references.fallback.isEmpty {
                lines.append("  fallback: [" + references.fallback.map(quoted).joined(separator: ", ") + "]")
            }
        }
        lines.append("stages:")
        for stage in spec.stages {
            lines.append("  - \(stage.kind.rawValue):")
            switch stage {
            case .pull(let pull):
                lines.append("      from: \(pull.from.rawValue)")
                lines.append("      changed-from: \(pull.changedFrom?.rawValue ?? "none")")
            case .test(let test):
                lines.append("      shards: \(test.shards)")
                lines.append("      timeout: \(test.timeout.specText)")
                if !test.historyTimeout { lines.append("      history-timeout: false") }
                lines.append("      retries: \(test.retries)")
                if let limit = test.maxRetried { lines.append("      max-retried: \(limit)") }
                lines.append("      select: \(test.select.rawValue)")
                lines.append("      flaky: \(test.flaky.rawValue)")
                optional("timings", test.timings?.description, indent: 6, into: &lines)
                optional("junit", test.junit, indent: 6, into: &lines)
                lines.append("      package: \(quoted(test.package))")
                lines.append("      configuration: \(test.configuration.rawValue)")
                lines.append("      output-limit: \(test.outputLimit.bytes)")
                if test.recordsImpact { lines.append("      impact: record") }
                if !test.keepsCandidates { lines.append("      candidates: false") }
                if let cache = test.buildCache { lines.append("      build-cache: \(quoted(cache.description))") }
                if let system = test.buildSystem { lines.append("      build-system: \(system.rawValue)") }
                if let use = test.verdicts { lines.append("      verdicts: \(use.rawValue)") }
                if let bound = test.fullEvery { lines.append("      full-every: \(bound)") }
                if let coverage = test.coverage, coverage == CoverageSpec() {
                    lines.append("      coverage: true")
                } else if let coverage = test.coverage {
                    lines.append("      coverage:")
                    optional("min-lines", coverage.minLines.map { "\($0.share * 100)" }, indent: 8, into: &lines)
                    optional("dir", coverage.dir, indent: 8, into: &lines)
                    optional("include", coverage.include, indent: 8, into: &lines)
                    optional("exclude", coverage.exclude, indent: 8, into: &lines)
                }
            case .promote(let promote):
                lines.append("      from: \(promote.from.rawValue)")
                lines.append("      to: \(promote.to.rawValue)")
                lines.append("      prune: \(promote.prune)")
                lines.append("      even-if-tests-fail: \(promote.evenIfTestsFail)")
            case .push(let push):
                lines.append("      to: \(push.to.rawValue)")
                lines.append("      prune: \(push.prune)")
            case .orphans(let orphans):
                lines.append("      in: \(orphans.store.rawValue)")
                lines.append("      fail: \(orphans.fail)")
            case .review(let review):
                lines.append("      output: \(quoted(review.output))")
                lines.append("      new: \(review.new.rawValue)")
                lines.append("      reference: \(review.reference.rawValue)")
                lines.append("      tolerance: \(review.tolerance)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func optional(_ key: String, _ value: String?, indent: Int, into lines: inout [String]) {
        guard let value else { return }
        lines.append(String(repeating: " ", count: indent) + "\(key): \(quoted(value))")
    }

    /// A double-quoted YAML string: always a string, whatever characters it holds.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
