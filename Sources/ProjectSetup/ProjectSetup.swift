import Foundation
import GitChanges
import PipelineCore
import PipelineSpec

/// One file `pipeline init` writes, relative to the repository.
public struct SetupFile: Sendable, Equatable {
    public let path: String
    public let text: String
    /// Written into the team's own file of that name (bitrise.yml), beside what it held.
    public var joined = false
    /// What the team must know of it: for the bitrise.yml patch, what became of each trigger.
    public var notes: [String] = []

    /// The join of a team's bitrise.yml whose triggers take what pipeline's need, as a patch to
    /// review and apply (`git apply`): the file itself is left as it is.
    public static let bitrisePatch = "bitrise.yml.pipeline.patch"

    /// Where a CI without GitHub's action finds the install script and the releases: `init --action
    /// OWNER/REPO@REF`'s repository (its script at REF, its GitHub releases), `--releases URL` over
    /// the latter; the CI's own PIPELINE_INSTALL_SCRIPT and PIPELINE_RELEASES over both.
    static func install(_ request: SetupRequest) -> (script: String, releases: String) {
        let parts = request.action.split(separator: "@", maxSplits: 1).map(String.init)
        let script = "https://raw.githubusercontent.com/\(parts[0])/\(parts[1])/scripts/install.sh"
        let releases = request.releases ?? "https://github.com/\(parts[0])/releases/download"
        return ("${PIPELINE_INSTALL_SCRIPT:-\(script)}", "${PIPELINE_RELEASES:-\(releases)}")
    }
}

/// `pipeline init`: the specs and the CI's files for a team starting out, written only where
/// nothing exists yet, and the commands that come next.
public enum ProjectSetup {
    /// The files for `request`: the two specs, then the CI's; each begins with init's marker line.
    public static func files(_ request: SetupRequest) -> [SetupFile] {
        unstampedFiles(request).map {
            SetupFile(path: $0.path, text: InitMarker.stamp($0.text, version: request.version, flags: request.flags))
        }
    }

    private static func unstampedFiles(_ request: SetupRequest) -> [SetupFile] {
        let specs = [
            SetupFile(path: "pipelines/pull-request.yml", text: SetupSpecs.pullRequest(request)),
            SetupFile(path: "pipelines/post-merge.yml", text: SetupSpecs.postMerge(request)),
        ]
        if let app = request.xcode {
            switch request.ci {
            case .github: return specs + XcodeWorkflows.gitHub(request, app)
            default: return specs + XcodeWorkflows.bitrise(request, app)
            }
        }
        switch request.ci {
        case .github: return specs + GitHubWorkflows.files(request)
        case .bitrise: return specs + BitriseWorkflows.files(request)
        case .gitlab: return specs + GitLabWorkflows.files(request)
        }
    }

    /// Writes `request`'s files below `repository`. Any of them existing already stops it before
    /// anything is written, except a bitrise.yml, which pipeline's workflows join (`BitriseJoin`;
    /// its clashes stop it); each spec is read back by the spec loader first.
    public static func write(_ request: SetupRequest, in repository: URL) throws -> [SetupFile] {
        var files = files(request)
        for (index, file) in files.enumerated() {
            let url = repository.appendingPathComponent(file.path)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            guard file.path == "bitrise.yml", let data = FileManager.default.contents(atPath: url.path) else {
                throw RequestError(
                    "\(file.path) exists already: pipeline init writes only new files (move it aside to regenerate)")
            }
            let existing = String(decoding: data, as: UTF8.self)
            do {
                let text = try BitriseJoin.join(existing: existing, generated: file.text, base: request.base)
                files[index] = SetupFile(path: file.path, text: text, joined: true)
            } catch {
                // Only their triggers in the way: the join, pipeline's triggers first, as a patch to review.
                guard
                    let (text, notes) = try? BitriseJoin.joinAheadOfTriggers(
                        existing: existing, generated: file.text, base: request.base)
                else {
                    throw RequestError(
                        (error.clashes.map { "\(file.path):\($0.line): \($0.reason)" }
                            + ["pipeline init joins bitrise.yml only where nothing clashes: nothing was written"])
                            .joined(separator: "\n"))
                }
                files[index] = SetupFile(
                    path: SetupFile.bitrisePatch, text: try TextMerge.diff(from: existing, to: text, path: file.path),
                    notes: notes)
            }
        }
        for file in files where file.path.hasPrefix("pipelines/") {
            let stem = URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
            _ = try SpecLoader.parse(file.text, file: file.path, fileStem: stem)
        }
        for file in files {
            let url = repository.appendingPathComponent(file.path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: url, options: file.joined ? .atomic : .withoutOverwriting)
            } catch {
                throw FileError.cannotWrite(path: url.path, reason: error.localizedDescription)
            }
        }
        return files
    }

    /// What the team must know about the files written: a folder store on a hosted CI, an action
    /// still the placeholder.
    public static func warnings(_ request: SetupRequest) -> [String] {
        var lines: [String] = []
        if request.usesFolder {
            lines.append(
                "the store is a folder: it works on a self-hosted runner that keeps it between jobs; a hosted "
                    + "runner's folders (GitHub's, GitLab's shared runners, Bitrise's VMs) are gone when the job ends: "
                    + "use --store s3://bucket/prefix there")
        }
        if request.ci == .github, request.actionIsPlaceholder {
            lines.append(
                "the workflows install pipeline with \(request.action): pass --action OWNER/REPO@REF (the repository "
                    + "that publishes its releases), or edit the 'uses:' lines")
        } else if request.actionIsPlaceholder {
            lines.append(
                "the install step fetches the install script\(request.releases == nil ? " and the releases" : "") from "
                    + "\(SetupRequest.defaultActionRepository): pass --action OWNER/REPO@REF (the repository that "
                    + "publishes pipeline's releases)\(request.releases == nil ? " or --releases URL" : "")")
        }
        return lines
    }

    /// The specs in `repository`'s pipelines folder that init did not write (the team's own),
    /// which it leaves alone.
    public static func otherSpecs(in repository: URL, written files: [SetupFile]) -> [String] {
        let folder = repository.appendingPathComponent("pipelines")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.map { "pipelines/" + $0 }
            .filter { path in !files.contains { $0.path == path } }.sorted()
    }

    /// What to run next, one command per line with what it does. With `others` (the team's own
    /// specs, left alone), the reference commands name init's post-merge spec, whose stores these are.
    /// Adds to the repository's `.gitignore` (made when there is none) what git must not commit:
    /// `.build/` of a package, and a folder store inside the repository; the lines added, nil when
    /// none was missing.
    public static func completeGitignore(_ request: SetupRequest, in root: URL) throws -> [String]? {
        var folder: String?
        if case .folder(let path) = request.store { folder = path }
        let missing = ProjectDoctor.missingIgnores(root, store: folder)
        guard !missing.isEmpty else { return nil }
        let file = root.appendingPathComponent(".gitignore")
        var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        text += missing.map { $0 + "\n" }.joined()
        do {
            try Data(text.utf8).write(to: file, options: .atomic)
        } catch {
            throw RequestError("\(file.path): cannot be written (\(error.localizedDescription))")
        }
        return missing
    }

    /// `adopting`: the store holds the team's references already, so nothing is recorded or
    /// promoted; the steps check the checkout's tests against them instead.
    public static func nextSteps(
        _ request: SetupRequest, files: [SetupFile], others: [String] = [], adopting: Bool = false
    ) -> [String] {
        let patch = files.contains { $0.path == SetupFile.bitrisePatch }
        let folders = Set(
            files.map {
                $0.path == SetupFile.bitrisePatch
                    ? "bitrise.yml" : ($0.path.split(separator: "/").first.map(String.init) ?? $0.path)
            }
        ).sorted()
        let spec = others.isEmpty ? "" : " --pipeline post-merge"
        let record =
            request.xcode.map { app in
                "pipeline refs record --all --xcode --scheme \(app.scheme) --destination '\(app.destination)'"
                    + (app.container.isEmpty ? "" : " --\(app.container[0].dropFirst()) \(app.container[1])")
            } ?? "pipeline refs record --all                 "
        let commit =
            (patch ? "git apply \(SetupFile.bitrisePatch) && rm \(SetupFile.bitrisePatch) && " : "")
            + "git add \(folders.joined(separator: " ")) && git commit -m 'CI: pipeline'"
        var lines =
            adopting
            ? [
                ("pipeline refs pull" + spec, "# develop's references into this checkout, as CI pulls them"),
                ("pipeline run pull-request --dry-run", "# the run CI makes (without --dry-run: your tests on them)"),
            ].map { $0.0.padding(toLength: 36, withPad: " ", startingAt: 0) + " " + $0.1 } + [commit]
            : [
                record + spec + " # record every snapshot test's references",
                "pipeline refs promote --all --force --yes\(spec)   # store them in develop (and feature)",
                commit,
            ]
        if !others.isEmpty {
            lines.insert(
                "(left alone: \(others.joined(separator: ", ")); the commands name --pipeline post-merge, init's spec)",
                at: 0)
        }
        lines += credentialSteps(request)
        return lines
    }

    /// What the team gives CI for an S3 store: each trust's credential where only its jobs reach
    /// it, and the region the specs name (or that none is named).
    static func credentialSteps(_ request: SetupRequest) -> [String] {
        guard request.usesS3 else { return [] }
        let policies = "docs/ci.md#bucket-policies-pull-request-credentials-write-feature-and-their-own-records-only"
        var lines: [String]
        let (pullRequest, develop) = (
            Trust.pullRequest.secrets.joined(separator: " and "), Trust.develop.secrets.joined(separator: " and ")
        )
        switch (request.ci, request.credentials) {
        case (.github, .roles(let pullRequestRole, let developRole)):
            lines = [
                "then let GitHub's OIDC tokens assume the roles (\(policies)): \(pullRequestRole) for pull requests "
                    + "and the merge queue, \(developRole) for pushes to \(request.base) only"
            ]
        case (.github, _):
            lines = [
                "then give CI two credentials (\(policies)): repository secrets \(pullRequest) (writes feature/ only), "
                    + "and \(develop) as secrets of the environment '\(Trust.gitHubEnvironment)' whose deployment "
                    + "branches are \(request.base) only (writes develop/)"
            ]
        case (.bitrise, _):
            lines = [
                "then give CI two credentials (\(policies)): secrets \(pullRequest) with Expose for Pull Requests on "
                    + "(writes feature/ only), and \(develop) with it off (writes develop/)"
            ]
        case (.gitlab, _):
            lines = [
                "then give CI two credentials (\(policies)): CI/CD variables \(pullRequest) (writes feature/ only), "
                    + "and \(develop) marked Protected, with \(request.base) a protected branch (writes develop/)"
            ]
        }
        if let region = request.region {
            lines.append(
                "the store's region: \(region) (from \(request.regionSource ?? "--region"), written in the specs)")
        } else if request.endpoint == nil {
            lines.append(
                "no region named (no --region, AWS_REGION or AWS_DEFAULT_REGION): the jobs use their AWS_REGION, else "
                    + "us-east-1; pass --region if the bucket is elsewhere")
        }
        return lines
    }
}
