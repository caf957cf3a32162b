/// What this round of CI images retires, found in a CI file's text, one line each
/// (`path:line: why, and what to do`). GitHub's jobs are read block by block (a job is a key two
/// spaces in under `jobs:`):
/// - setup-swift on `ubuntu-latest` (Ubuntu 26.04 since 2026-11-19): setup-swift v2 refuses it
///   (swift-actions/setup-swift#805), and the image has no Swift;
/// - a job on a retired macOS image (macos-13, macos-14) or one with no `timeout-minutes`;
/// - an Xcode job that selects no Xcode (no `DEVELOPER_DIR`, no `xcode-select`): the image's
///   default moves when GitHub updates it;
/// - the one store key every job held (`PIPELINE_AWS_ACCESS_KEY_ID`), and any secret in a
///   workflow's top-level `env:`: a pull request's code would hold it.
enum RetiredPatterns {
    static func findings(in text: String, path: String) -> [String] {
        guard path.hasPrefix(".github/workflows/") else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let selectsXcode = text.contains("DEVELOPER_DIR") || text.contains("xcode-select")
        var findings: [String] = []
        var inJobs = false
        var job: (name: String, line: Int, body: [(Int, String)])?
        func close() {
            guard let job else { return }
            let body = job.body.map(\.1)
            let runsOn = job.body.first { $0.1.trimmingCharacters(in: .whitespaces).hasPrefix("runs-on:") }
            let label = runsOn.map {
                $0.1.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? ""
            }
            let location = "\(path):\(runsOn?.0 ?? job.line)"
            if let label, label.contains("ubuntu-latest") || label.contains("ubuntu-26"),
                !body.contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("container:") }),
                let setup = job.body.first(where: { $0.1.contains("swift-actions/setup-swift@") })
            {
                findings.append(
                    "\(path):\(setup.0): job \(job.name) sets up Swift with setup-swift on \(label), which is Ubuntu "
                        + "26.04: setup-swift v2 refuses it; run the job in the official image (container: "
                        + "swift:<version>-noble), as pipeline init --update writes it")
            }
            if let label, label.hasPrefix("macos") {
                if label == "macos-13" || label == "macos-14" {
                    findings.append("\(location): job \(job.name) runs on \(label), which GitHub no longer offers")
                }
                if !body.contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("timeout-minutes:") }) {
                    findings.append(
                        "\(location): job \(job.name) has no timeout-minutes: a hung simulator holds the runner for 6 hours"
                    )
                }
                if !selectsXcode, body.contains(where: { $0.contains("xcodebuild") }) {
                    findings.append(
                        "\(location): job \(job.name) selects no Xcode: set DEVELOPER_DIR (pipeline init --xcode-version)"
                    )
                }
            }
        }
        var inTopLevelEnv = false
        for (index, line) in lines.enumerated() {
            if line.contains("secrets.PIPELINE_AWS_ACCESS_KEY_ID") {
                findings.append(
                    "\(path):\(index + 1): one store key for every job (PIPELINE_AWS_ACCESS_KEY_ID): a pull request's "
                        + "code holds develop's write access; pipeline init --update gives each job its trust's key "
                        + "(docs/ci.md#each-ci-gives-each-job-its-own-credentials)")
            } else if inTopLevelEnv, line.hasPrefix(" "), line.contains("${{ secrets.") {
                findings.append(
                    "\(path):\(index + 1): a secret in the workflow's env: every step of every job holds it, the "
                        + "pull request's own test code too; give it to the steps that need it")
            }
            if !line.hasPrefix(" "), !line.isEmpty { inTopLevelEnv = line == "env:" }
            if line == "jobs:" {
                inJobs = true
                continue
            }
            guard inJobs else { continue }
            if !line.isEmpty, !line.hasPrefix(" "), !line.hasPrefix("#") {
                close()
                job = nil
                inJobs = false
            } else if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                close()
                job = (String(line.dropFirst(2).dropLast()), index + 1, [])
            } else {
                job?.body.append((index + 1, line))
            }
        }
        close()
        return findings
    }
}
