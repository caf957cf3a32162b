import Foundation
import ImageDiff
import PipelineSpec
import References
import TestSupport
import Testing

/// A reviewer accepts what CI rendered instead of re-recording on their own machine: a CI run
/// keeps its failed snapshots' new values in feature, `refs accept` makes them the branch's push,
/// and the merge promotes them.
@Suite("pipeline refs accept: CI's renderings become the branch's references", .serialized)
struct AcceptCommandTests {
    static let login = SnapshotRepository.snapshots + "/LoginTests/test_login.1.png"
    static let ci = RenderEnvironment(os: "Linux ci 1", arch: "x86_64", swift: "6.2", ci: "GitHub Actions")

    /// Where a folder store says an object was rendered.
    private func renderedOn(_ repo: SnapshotRepository, _ store: String, _ key: String) throws -> String? {
        let sidecar = repo.root.appendingPathComponent("store/\(store)/.pipeline-metadata/\(key).json")
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: String]
        return metadata?["pipeline-rendered-on"]
    }

    /// Develop holds LoginTests' and ProfileTests' references, kept only in storage (or in git too).
    func repository(_ backend: RefsBackend, committed: Bool = false) async throws -> SnapshotRepository {
        let repo = try SnapshotRepository(references: try await backend.references())
        if !committed { try repo.keepReferencesOutOfGit() }
        #expect(try repo.pipeline("refs", "push", "LoginTests", "ProfileTests").status == 0)
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests").status == 0)
        return repo
    }

    /// What a CI run's test stage does after failed snapshots: keeps `artifacts` (`<Test>/<file>` →
    /// content; none for a run that passed) as the candidates of the checkout's HEAD.
    func ciRun(
        _ repo: SnapshotRepository, artifacts: [String: String], part: String? = nil,
        environment: [String: String] = ["GITHUB_RUN_ID": "77"]
    ) async throws -> [String] {
        try await ciRunKeepingReview(repo, artifacts: artifacts, part: part, environment: environment).lines
    }

    /// `ciRun` with a review page (`review`) kept beside the candidates.
    func ciRunKeepingReview(
        _ repo: SnapshotRepository, artifacts: [String: String], part: String? = nil,
        environment: [String: String] = ["GITHUB_RUN_ID": "77"], review: (page: URL, entries: [ReviewEntry])? = nil
    ) async throws -> (lines: [String], review: ReviewArchive.Published?) {
        let folder = repo.root.appendingPathComponent(".build/artifacts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (path, content) in artifacts { try Scratch.write(content, to: folder.appendingPathComponent(path)) }
        let source = try ReferenceSource.locate(from: repo.root, pipeline: nil)
        let stores = try await ReferenceStores(
            settings: source.references(ReferenceSettings()), base: source.base, origin: source.origin,
            variables: RefsBackend.environment)
        let transfers = ReferenceTransfers(stores: stores, testPattern: "*Tests")
        return await transfers.keepCandidates(
            artifacts: folder, commit: try repo.sha(), passed: artifacts.isEmpty, renderedOn: { Self.ci },
            variables: environment, part: part, review: review)
    }

    func branch(_ name: String, in repo: SnapshotRepository) throws {
        try repo.git("checkout", "-q", "develop")
        try repo.git("checkout", "-q", "-b", name)
        try repo.write("Sources/App/View.swift", "// \(name)\n")
        try repo.commitAll(name)
    }

    @Test("CI's rendering accepted into feature, then promoted by the merge", arguments: RefsBackend.available)
    func acceptAndPromote(backend: RefsBackend) async throws {
        let repo = try await repository(backend)
        try branch("view-x", in: repo)
        let commit = try repo.sha()
        let lines = try await ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        #expect(lines.count == 1)
        #expect(lines.first?.contains("pipeline refs accept LoginTests --commit \(commit)") == true, "\(lines)")
        #expect(lines.first?.contains(".candidates/\(commit)/") == true, "\(lines)")

        let unknown = try repo.pipeline("refs", "accept", "NopeTests")
        #expect(unknown.status == 2, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("'NopeTests'") && unknown.stderr.contains("it kept: LoginTests"))
        let develop = try repo.sha("develop")
        let none = try repo.pipeline("refs", "accept", "LoginTests", "--commit", "develop")
        #expect(none.status == 5, "\(none.stderr)")
        #expect(none.stderr.contains(String(develop.prefix(12))) && none.stderr.contains(".candidates/\(develop)/"))
        #expect(try repo.pipeline("refs", "accept").status == 2, "neither tests nor --all")

        let dry = try repo.report("refs", "accept", "LoginTests", "--dry-run")
        #expect(
            ((dry["reports"] as? [[String: Any]])?.first?["copied"] as? [String]) == ["LoginTests/test_login.1.png"])
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", commit).status == 0)
        #expect(repo.read(Self.login) == "login v1", "a dry run pushes nothing")

        let accepted = try repo.report("refs", "accept", "LoginTests")
        #expect(accepted["commit"] as? String == commit)
        #expect((accepted["run"] as? String)?.hasSuffix("-77") == true, "\(accepted)")
        #expect(((accepted["reports"] as? [[String: Any]])?.first?["action"] as? String) == "accept")
        let again = try repo.report("refs", "accept", "--all")
        #expect(
            ((again["reports"] as? [[String: Any]])?.first?["copied"] as? [String])?.isEmpty == true,
            "a re-run finds it done and is not refused by its own push")

        if backend == .folder {
            // An accept stopped after its files, before its push's record: the next one finishes it.
            let record = try #require(
                RecordFiles.find(
                    "\(PushArchive.recordsFolder)/LoginTests/\(commit).json",
                    of: repo.root.appendingPathComponent("store/feature")))
            try FileManager.default.removeItem(at: record)
            #expect(try repo.pipeline("refs", "accept", "LoginTests").status == 0)
            let written = try JSONDecoder().decode(PushManifest.self, from: Data(contentsOf: record))
            #expect(written.acceptedFrom == accepted["run"] as? String)
        }

        // The reviewer's checkout keeps references out of git: nothing written there.
        #expect(repo.read(Self.login) == "login v1")
        // A pull request's pipeline on the same commit now gets CI's rendering.
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", commit).status == 0)
        #expect(repo.read(Self.login) == "login ci")

        if backend == .folder {
            // The review of feature against develop tells the changes CI rendered from the others.
            let page = repo.root.appendingPathComponent("review.html")
            let report = try repo.pipeline("refs", "report", "LoginTests", "-o", page.path)
            #expect(report.stdout.contains("1 changed, 0 new, 0 removed (1 rendered elsewhere than their reference)"))
            #expect(
                try String(contentsOf: page, encoding: .utf8).contains(
                    "; new on Linux ci 1 x86_64, Swift 6.2 (GitHub Actions)</p>"), "\(report.stdout)")
        }

        try repo.git("reset", "-q", "--hard")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge view-x", "view-x")
        let promoted = try repo.report("refs", "promote")
        #expect(promoted["tests"] as? [String] == ["LoginTests"])
        #expect(promoted["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login ci", "develop holds what CI rendered")
        if backend == .folder {
            let key = "LoginTests/test_login.1.png"
            #expect(
                try renderedOn(repo, "feature", key) == Self.ci.metadataValue,
                "the accepted push says where CI rendered")
            #expect(try renderedOn(repo, "develop", key) == Self.ci.metadataValue, "and so does the promoted copy")
            #expect(
                try renderedOn(repo, "develop", "ProfileTests/test_プロフィール 1.png")?.hasPrefix("os=") == true,
                "a push from a checkout says where it was rendered")
        }
    }

    @Test(
        "a CI run split across nodes: each node keeps its own tests' candidates, accept --all takes every node's, a node that passed is no later pass, and the merge promotes them; unaccepted, the promotion exits 8"
    )
    func matrix() async throws {
        let repo = try await repository(.folder)
        try branch("view-m", in: repo)
        let commit = try repo.sha()
        let run = ["GITHUB_RUN_ID": "88", "GITHUB_RUN_ATTEMPT": "1"]
        _ = try await ciRun(
            repo, artifacts: ["LoginTests/test_login.1.png": "login ci"], part: "node-1-of-3", environment: run)
        _ = try await ciRun(repo, artifacts: ["ProfileTests/p.png": "p ci"], part: "node-2-of-3", environment: run)
        _ = try await ciRun(repo, artifacts: [:], part: "node-3-of-3", environment: run)

        // Merged as it is, nobody having accepted: the promotion names both and the command.
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge view-m unaccepted", "view-m")
        let refused = try repo.pipeline("refs", "promote")
        #expect(refused.status == 8, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stderr.contains("pipeline refs accept LoginTests ProfileTests --commit \(commit)"),
            "\(refused.stderr)")
        try repo.git("reset", "-q", "--hard", "HEAD^")

        try repo.git("checkout", "-q", "view-m")
        let accepted = try repo.report("refs", "accept", "--all")
        #expect(accepted["tests"] as? [String] == ["LoginTests", "ProfileTests"], "\(accepted)")
        #expect((accepted["run"] as? String)?.hasSuffix("-88.1-node-2-of-3") == true, "\(accepted)")
        try repo.git("checkout", "-q", "develop")
        try repo.git("merge", "-q", "--no-ff", "-m", "merge view-m", "view-m")
        let promoted = try repo.report("refs", "promote")
        #expect(
            Set(promoted["copied"] as? [String] ?? []) == ["LoginTests/test_login.1.png", "ProfileTests/p.png"],
            "\(promoted)")
        #expect(try repo.pipeline("refs", "pull", "LoginTests").status == 0)
        #expect(repo.read(Self.login) == "login ci")
    }

    @Test(
        "CI keeps the review page and its images beside the candidates: the links open, the page renders in Chromium",
        arguments: RefsBackend.available)
    func reviewKept(backend: RefsBackend) async throws {
        let repo = try await repository(backend)
        try branch("view-r", in: repo)
        let images = ["reference": Data("old png".utf8), "new": Data("new png".utf8), "overlay": Data("both".utf8)]
        var entry = ReviewEntry(key: "LoginTests/test_login.1.png", status: .failed)
        (entry.reference, entry.new, entry.overlay) = (images["reference"], images["new"], images["overlay"])
        let page = repo.root.appendingPathComponent(".build/snapshot-review.html")
        try Scratch.write(
            ReviewPage.html(
                title: "Snapshot review", subtitle: "CI", entries: [entry],
                accept: CandidateArchive.acceptCommand(commit: "x", environment: nil)), to: page
        )

        let kept = try await ciRunKeepingReview(
            repo, artifacts: ["LoginTests/test_login.1.png": "login ci"], review: (page, [entry]))
        let review = try #require(kept.review, "\(kept.lines)")
        let links = try #require(review.images[entry.key])
        #expect(kept.lines.last?.hasPrefix("review: \(review.page)") == true, "\(kept.lines)")
        let fetched = try [review.page, links.reference, links.new, links.overlay].map { address -> Data in
            let address = try #require(address)
            switch backend {
            case .folder:
                #expect(address.hasPrefix(repo.root.appendingPathComponent("store/.pipeline/").path), "\(address)")
                #expect(address.contains("/feature/.reviews/"), "\(address)")
                return try Data(contentsOf: URL(fileURLWithPath: address))
            case .s3:
                #expect(address.contains("X-Amz-Signature="), "a presigned link: \(address)")
                #expect(!address.contains("testing"), "the secret is never in a link")
                let get = try Shell.run("curl", ["-sf", "-D", "-", address])
                #expect(get.status == 0, "\(address) opens without credentials")
                return Data(get.stdout.utf8)
            }
        }
        #expect(String(decoding: fetched[0], as: UTF8.self).contains("Snapshot review"))
        #expect(String(decoding: fetched[2], as: UTF8.self).hasSuffix("new png"))
        if backend == .s3 {
            let headers = String(decoding: fetched[1], as: UTF8.self).lowercased()
            #expect(headers.contains("content-type: image/png"), "\(headers)")
            #expect(review.expires == "7 days")
            let tampered = try Shell.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", review.page + "0"])
            #expect(tampered.stdout == "403", "a changed signature is refused: \(tampered.stdout)")
            // A public repository's logs and summaries are anyone's: no presigned link unless the
            // spec says `presigned-links: true`.
            let event = repo.root.appendingPathComponent(".build/event.json")
            try Scratch.write(#"{"repository": {"visibility": "public", "private": false}}"#, to: event)
            let publicRun = try await ciRunKeepingReview(
                repo, artifacts: ["LoginTests/test_login.1.png": "login ci"],
                environment: ["GITHUB_RUN_ID": "78", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event.path],
                review: (page, [entry]))
            let unsigned = try #require(publicRun.review, "\(publicRun.lines)")
            #expect(unsigned.page.hasPrefix("s3://") && !unsigned.page.contains("X-Amz"), "\(unsigned.page)")
            #expect(unsigned.expires == nil && unsigned.images[entry.key]?.new?.hasPrefix("s3://") == true)
        }
        if Browser.chromium != nil {
            let address = backend == .folder ? URL(fileURLWithPath: review.page).absoluteString : review.page
            let shot = try Browser.screenshot(of: address, scratch: repo.root)
            #expect(Browser.badgePixels(shot) > 50, "the page renders from the store's address")
        }

        // Pruning old candidates takes their review with them.
        #expect(try repo.pipeline("refs", "prune", "--older-than", "0s").status == 0)
        switch backend {
        case .folder:
            #expect(!FileManager.default.fileExists(atPath: review.page), "\(review.page)")
        case .s3:
            let gone = try Shell.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", review.page])
            #expect(gone.stdout == "404", "the page's object was deleted: \(gone.stdout)")
        }
    }

    @Test("with review-url, the review's links are plain addresses under it: served by a web server over the folder")
    func reviewURL() async throws {
        let served = try Scratch.folder("served")
        defer { try? FileManager.default.removeItem(at: served) }
        let feature = served.appendingPathComponent("feature")
        try FileManager.default.createDirectory(at: feature, withIntermediateDirectories: true)
        let server = try FileServer(folder: served)
        let repo = try SnapshotRepository(
            references: "references:\n  feature: \(feature.path)\n  develop: store/develop\n"
                + "  review-url: \(server.address.absoluteString)/feature/\n")
        try repo.keepReferencesOutOfGit()
        #expect(try repo.pipeline("refs", "promote", "LoginTests", "ProfileTests", "--force", "--yes").status == 0)
        try branch("view-u", in: repo)
        var entry = ReviewEntry(key: "LoginTests/test_login.1.png", status: .failed)
        (entry.reference, entry.new, entry.overlay) = (Data("old".utf8), Data("new".utf8), Data("overlay".utf8))
        let page = repo.root.appendingPathComponent(".build/snapshot-review.html")
        try Scratch.write("<html>review</html>", to: page)
        let kept = try await ciRunKeepingReview(
            repo, artifacts: ["LoginTests/test_login.1.png": "login ci"], review: (page, [entry]))
        let review = try #require(kept.review, "\(kept.lines)")
        #expect(review.page.hasPrefix(server.address.absoluteString + "/.pipeline/"), "\(review.page)")
        #expect(review.page.contains("/feature/.reviews/"), "\(review.page)")
        #expect(review.expires == nil, "plain links do not expire")
        let new = try #require(review.images[entry.key]?.new)
        #expect(try Shell.run("curl", ["-sf", new]).stdout == "new")
        #expect(try Shell.run("curl", ["-sf", review.page]).stdout == "<html>review</html>")

        try repo.write(
            "pipelines/post-merge.yml",
            "name: post-merge\ndescription: d\nreferences:\n  feature: f\n  develop: d\n  review-url: ftp://x\nstages:\n  - pull:\n      from: develop\n"
        )
        let invalid = try repo.pipeline("validate")
        #expect(invalid.status == 3)
        #expect(invalid.stderr.contains("references.review-url: 'ftp://x' is not an http(s) URL"), "\(invalid.stderr)")
    }

    @Test(
        "one device's image accepted: that file alone, the test's others as the branch had them; an image CI kept no candidate of is refused"
    )
    func oneImage() async throws {
        let repo = try await repository(.folder)
        try branch("devices", in: repo)
        let iPhone = "LoginTests/test_login_iPhone15.1.png"
        let iPad = "LoginTests/test_login_iPadPro.1.png"
        _ = try await ciRun(repo, artifacts: [iPhone: "iPhone ci", iPad: "iPad ci"])
        let accepted = try repo.report("refs", "accept", iPhone)
        let copied = (accepted["reports"] as? [[String: Any]])?.first?["copied"] as? [String]
        #expect(copied?.contains(iPhone) == true && copied?.contains(iPad) == false, "\(accepted)")
        #expect(accepted["tests"] as? [String] == ["LoginTests"])
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature").status == 0)
        #expect(repo.read(SnapshotRepository.snapshots + "/" + iPhone) == "iPhone ci")
        #expect(repo.read(SnapshotRepository.snapshots + "/" + iPad) == nil, "the iPad's rendering was not accepted")
        #expect(repo.read(Self.login) == "login v1", "the test's other references as the branch had them")

        let missing = try repo.pipeline("refs", "accept", "LoginTests/test_login_iPhone16.1.png")
        #expect(missing.status == 2, "\(missing.stderr)")
        #expect(
            missing.stderr.contains("'LoginTests/test_login_iPhone16.1.png'")
                && missing.stderr.contains("kept no such candidate of LoginTests"), "\(missing.stderr)")
    }

    @Test("refused when the test passed since, or feature changed after the run; --force accepts")
    func refusals() async throws {
        let repo = try await repository(.folder)
        try branch("view-y", in: repo)
        _ = try await ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci", "ProfileTests/p.png": "p ci"])
        try repo.write(Self.login, "login laptop")
        #expect(try repo.pipeline("refs", "push", "LoginTests").status == 0)
        let refused = try repo.pipeline("refs", "accept", "LoginTests")
        #expect(refused.status == 8, "\(refused.stderr)")
        #expect(refused.stderr.contains("not accepting LoginTests: its references in feature were pushed from"))
        #expect(try repo.pipeline("refs", "accept", "ProfileTests").status == 0, "another test is not refused")

        _ = try await ciRun(repo, artifacts: [:])  // a later run that passed
        let passed = try repo.pipeline("refs", "accept", "ProfileTests")
        #expect(passed.status == 8 && passed.stderr.contains("it passed in a later run"), "\(passed.stderr)")
        let forced = try repo.pipeline("refs", "accept", "--all", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("warning: accepting LoginTests with --force"))
    }

    @Test("a candidate folder written by hand with a key escaping the prefix writes nothing outside")
    func escapingKey() async throws {
        let repo = try await repository(.folder)
        try branch("view-z", in: repo)
        let commit = try repo.sha()
        _ = try await ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        let runs = try #require(
            RecordFiles.find(".candidates/\(commit)", of: repo.root.appendingPathComponent("store/feature")))
        let run = try #require(
            try FileManager.default.contentsOfDirectory(atPath: runs.path).first { $0.hasSuffix(".json") })
        // A record naming a run outside the commit's folder.
        let record = runs.appendingPathComponent(run)
        let text = try String(contentsOf: record, encoding: .utf8)
        let name = String(run.dropLast(".json".count))
        try Scratch.write(text.replacingOccurrences(of: "\"\(name)\"", with: "\"..\\/..\\/..\\/escape\""), to: record)
        let result = try repo.pipeline("refs", "accept", "--all")
        #expect(result.status == 5, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent("store/escape").path))
        #expect(try repo.pipeline("refs", "pull", "LoginTests", "--from", "feature", "--commit", commit).status == 0)
        #expect(repo.read(Self.login) == "login v1", "nothing accepted")
    }

    @Test("an unreachable store stops with exit 5, naming it")
    func unreachable() async throws {
        let repo = try await repository(.folder)
        let result = try repo.pipeline(
            "refs", "accept", "LoginTests", "--feature", "s3://bucket/feature", "--endpoint", "http://127.0.0.1:9")
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1:9"))
    }

    @Test("where the checkout commits its references, CI's renderings are written there too, to be committed")
    func committedReferences() async throws {
        let repo = try await repository(.folder, committed: true)
        try branch("view-c", in: repo)
        _ = try await ciRun(repo, artifacts: ["LoginTests/test_login.1.png": "login ci"])
        let accepted = try repo.report("refs", "accept", "LoginTests")
        let reports = accepted["reports"] as? [[String: Any]] ?? []
        #expect(reports.map { $0["action"] as? String } == ["accept", "accept"], "feature, then the checkout")
        #expect(reports.last?["copied"] as? [String] == ["LoginTests/test_login.1.png"])
        #expect(repo.read(Self.login) == "login ci")
        #expect(try Git.run(["status", "--porcelain"], in: repo.root).contains("test_login.1.png"), "to be committed")
    }
}
