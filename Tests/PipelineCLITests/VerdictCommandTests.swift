import Foundation
import TestSupport
import Testing

/// `pipeline test --reuse-verdicts LOCATION` on a small package in a real repository: a passing
/// run keeps its verdict under its key; a run of the same key runs nothing and reports that run;
/// anything that could change the outcome (the tree, a reference compared against, an uncommitted
/// file, `--no-reuse`) runs the tests, and a failing run keeps nothing.
@Suite("tested once: a verified tree's verdict stands, anything that could change it runs the tests", .serialized)
struct VerdictCommandTests {
    let root: URL
    let package: URL
    let store: URL

    init() throws {
        root = try Scratch.folder("verdicts")
        package = root.appendingPathComponent("pkg")
        store = root.appendingPathComponent("verdicts")
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Pkg",
                targets: [.target(name: "Pkg"), .testTarget(name: "PkgTests", dependencies: ["Pkg"])]
            )
            """,
            "Sources/Pkg/Pkg.swift": "public func twice(_ value: Int) -> Int { value * 2 }\n",
            "Tests/PkgTests/BadgeTests.swift": """
            import Pkg
            import XCTest

            final class BadgeTests: XCTestCase {
                func testTwice() { XCTAssertEqual(twice(2), 4) }
                func testZero() { XCTAssertEqual(twice(0), 0) }
            }
            """,
            // References kept out of git, pulled from storage before the tests, as the team does.
            ".gitignore": ".build/\n__Snapshots__/\n",
            "Tests/PkgTests/__Snapshots__/BadgeTests/testTwice.1.png": "reference v1",
        ]
        for (path, text) in files { try Scratch.write(text, to: package.appendingPathComponent(path)) }
        try Git.run(["init", "-q", "-b", "develop"], in: package)
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "the package"], in: package)
    }

    func test(_ arguments: String...) throws -> PipelineBinary.Result {
        try PipelineBinary.run(
            ["test", "--reuse-verdicts", store.path] + arguments, in: package, environment: ["CI": "false"])
    }

    func commit(_ path: String, _ text: String) throws {
        try Scratch.write(text, to: package.appendingPathComponent(path))
        try Git.run(["commit", "-q", "-am", "edit \(path)"], in: package)
    }

    @Test("kept after a pass, reused on the same key; a new tree, a changed reference, an edit or --no-reuse run")
    func reuse() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try test()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("kept this run's verdict"), "\(first.stderr)")

        // The same tree, build and references: nothing runs, the report and JUnit are that run's.
        let junit = root.appendingPathComponent("junit.xml")
        let again = try test("--junit", junit.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("verified already: 2 tests passed in run local on commit"), "\(again.stderr)")
        #expect(!again.stderr.contains("Running "), "nothing ran: \(again.stderr)")
        #expect(again.stdout.contains("2 passed, 0 failed"), "\(again.stdout)")
        #expect(try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "<testcase ").count == 3)

        // --no-reuse runs.
        let forced = try test("--no-reuse")
        #expect(forced.stderr.contains("Running 2 tests"), "\(forced.stderr)")

        // A reference the tests compare against changed (out of git, pulled from storage): the tests run.
        try Scratch.write(
            "reference v2",
            to: package.appendingPathComponent("Tests/PkgTests/__Snapshots__/BadgeTests/testTwice.1.png"))
        let newReference = try test()
        #expect(newReference.stderr.contains("Running 2 tests"), "\(newReference.stderr)")
        #expect(try test().stderr.contains("verified already"), "kept for the new reference")

        // An uncommitted edit: not used, said why.
        try Scratch.write(
            "public func twice(_ value: Int) -> Int { value + value }\n",
            to: package.appendingPathComponent("Sources/Pkg/Pkg.swift"))
        let dirty = try test()
        #expect(
            dirty.stderr.contains(
                "verdicts: not used: the working tree has uncommitted changes (Sources/Pkg/Pkg.swift)"),
            "\(dirty.stderr)")
        #expect(dirty.stderr.contains("Running 2 tests"))

        // Committed: another tree, which runs and is kept in its turn.
        try Git.run(["commit", "-q", "-am", "twice by addition"], in: package)
        let newTree = try test()
        #expect(newTree.stderr.contains("Running 2 tests") && newTree.stderr.contains("kept this run's verdict"))

        // A failing run keeps nothing: the same tree runs again.
        try commit("Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value * 3 }\n")
        let failing = try test()
        #expect(failing.status == 1)
        #expect(!failing.stderr.contains("kept this run's verdict"))
        let failingAgain = try test()
        #expect(failingAgain.status == 1 && failingAgain.stderr.contains("Running 2 tests"), "\(failingAgain.stderr)")

        // A selection is part of the key: the passing part is kept apart from the failing whole.
        let part = try test("--filter", "testZero")
        #expect(part.status == 0 && part.stderr.contains("Running 1 test"), "\(part.stderr)")
        #expect(try test("--filter", "testZero").stderr.contains("verified already: 1 test passed"))
        #expect(try test().status == 1, "the whole suite's failure is not hidden by the part's pass")
    }

    /// A pull request's check on its merge ref keeps the verdict under its change too; the squash
    /// of the branch onto a develop that moved meanwhile runs only what develop's move reaches.
    @Test("the same change over a moved base: only what the move reaches runs, the rest is the check's")
    func movedBase() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try twoTargets()

        // The branch adds a test; its check runs on the merge ref (develop merged with it).
        try Git.run(["checkout", "-q", "-b", "feature"], in: package)
        try Scratch.write(
            "import Pkg\nimport XCTest\n\nfinal class NewTests: XCTestCase {\n    func testFour() { XCTAssertEqual(twice(2), 4) }\n}\n",
            to: package.appendingPathComponent("Tests/PkgTests/NewTests.swift"))
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "a new test"], in: package)
        try Git.run(["checkout", "-q", "develop"], in: package)
        let developBefore = try Git.run(["rev-parse", "HEAD"], in: package)
        try Git.run(["checkout", "-q", "--detach"], in: package)
        try Git.run(["merge", "-q", "--no-ff", "-m", "merge ref", "feature"], in: package)
        let check = try test()
        #expect(check.status == 0 && check.stderr.contains("Running 4 tests"), "\(check.stderr)")

        // Develop moves in the other target meanwhile; the branch is squashed onto it.
        try Git.run(["checkout", "-q", "develop"], in: package)
        try commit("Sources/Other/Other.swift", "public func thrice(_ value: Int) -> Int { value + value + value }\n")
        try Git.run(["merge", "-q", "--squash", "feature"], in: package)
        try Git.run(["commit", "-q", "-m", "a new test (#1)"], in: package)
        let junit = root.appendingPathComponent("junit.xml")
        let merged = try test("--junit", junit.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stderr.contains(
                "verified already over \(developBefore.prefix(12)): this change's tests passed in run local"),
            "\(merged.stderr)")
        #expect(merged.stderr.contains("Running 1 test"), "only OtherTests runs: \(merged.stderr)")
        #expect(merged.stderr.contains("3 tests' results taken from run local"), "\(merged.stderr)")
        #expect(merged.stdout.contains("4 passed, 0 failed"), "\(merged.stdout)")
        #expect(merged.stdout.contains("3 of them not run here: verified in run local"), "\(merged.stdout)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count == 5, "\(xml)")
        #expect(xml.components(separatedBy: "name=\"verified-by\"").count == 4, "\(xml)")
        // --failed reads the same report the JUnit file holds (both written after the taken results joined).
        let last = try JSONSerialization.jsonObject(
            with: Data(contentsOf: package.appendingPathComponent(".build/pipeline/last-run.json")))
        #expect(((last as? [String: Any])?["tests"] as? [Any])?.count == 4, "\(last)")
        #expect(
            merged.stderr.contains("kept this run's verdict in \(store.path), composed on run local on commit"),
            "the tree's verdict is kept, composed of what ran and the check's results: \(merged.stderr)")

        // A move that reaches no test: nothing runs, every result is the check's.
        try Git.run(["reset", "-q", "--hard", "HEAD~2"], in: package)
        try Scratch.write("# Pkg\n", to: package.appendingPathComponent("README.md"))
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "a readme"], in: package)
        try Git.run(["merge", "-q", "--squash", "feature"], in: package)
        try Git.run(["commit", "-q", "-m", "a new test (#1)"], in: package)
        let untouched = try test()
        #expect(untouched.status == 0, "\(untouched.stderr)")
        #expect(!untouched.stderr.contains("Running "), "\(untouched.stderr)")
        #expect(untouched.stdout.contains("4 passed, 0 failed"), "\(untouched.stdout)")
    }

    /// Two targets, each with its test target, committed on develop.
    func twoTargets() throws {
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Pkg",
                targets: [
                    .target(name: "Pkg"), .target(name: "Other"),
                    .testTarget(name: "PkgTests", dependencies: ["Pkg"]),
                    .testTarget(name: "OtherTests", dependencies: ["Other"]),
                ]
            )
            """,
            "Sources/Other/Other.swift": "public func thrice(_ value: Int) -> Int { value * 3 }\n",
            "Tests/OtherTests/OtherTests.swift": """
            import Other
            import XCTest

            final class OtherTests: XCTestCase {
                func testThrice() { XCTAssertEqual(thrice(2), 6) }
            }
            """,
        ]
        for (path, text) in files { try Scratch.write(text, to: package.appendingPathComponent(path)) }
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "two targets"], in: package)
    }

    /// A branch from develop changing `path` to `text`, and its pull request's merge ref checked out.
    func pullRequest(_ branch: String, _ path: String, _ text: String) throws {
        try Git.run(["checkout", "-q", "-b", branch, "develop"], in: package)
        try commit(path, text)
        try Git.run(["checkout", "-q", "--detach", "develop"], in: package)
        try Git.run(["merge", "-q", "--no-ff", "-m", "merge ref of \(branch)", branch], in: package)
    }

    /// `branch` squashed onto develop, checked out.
    func squash(_ branch: String) throws {
        try Git.run(["checkout", "-q", "develop"], in: package)
        try Git.run(["merge", "-q", "--squash", branch], in: package)
        try Git.run(["commit", "-q", "-m", "\(branch) (#1)"], in: package)
    }

    @Test(
        "composed verdicts: a check by impact runs what its change reaches from develop's verified tree and keeps a verdict for its own; its squash runs nothing; a breaking change still fails; after two back to back, the second's post-merge runs what the first reached"
    )
    func composed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try twoTargets()
        // Develop's post-merge run: the whole suite, recording the impact map, keeping the verdict.
        let develop = try test("--record-impact")
        #expect(develop.status == 0 && develop.stderr.contains("kept this run's verdict"), "\(develop.stderr)")
        let verified = try Git.run(["rev-parse", "HEAD"], in: package)

        // A body change in Pkg: only the tests that executed it run; OtherTests' result is develop's.
        try pullRequest("pkg", "Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value + value }\n")
        let junit = root.appendingPathComponent("junit.xml")
        let check = try test("--impacted", "--json", "--junit", junit.path)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(
            check.stderr.contains("composing on the verdict of run local on commit \(verified.prefix(12))"),
            "\(check.stderr)")
        #expect(check.stderr.contains("Running 2 tests"), "BadgeTests alone: \(check.stderr)")
        #expect(check.stderr.contains("1 test's results taken from run local"), "\(check.stderr)")
        #expect(check.stderr.contains("composed on run local on commit \(verified.prefix(12))"), "\(check.stderr)")
        let tests =
            try #require(
                try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])["tests"]
            as? [[String: Any]]
        #expect(tests?.count == 3, "the whole suite's report")
        #expect(
            tests?.filter { $0["verifiedBy"] as? String == "local" }.map { $0["name"] as? String } == [
                "OtherTests.OtherTests/testThrice"
            ])
        #expect(
            try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "name=\"verified-by\"").count == 2)

        // Its squash onto the develop it was checked on: the same tree, verified: nothing runs.
        try squash("pkg")
        let postMerge = try test("--record-impact")
        #expect(postMerge.status == 0, "\(postMerge.stderr)")
        #expect(postMerge.stderr.contains("verified already: 3 tests passed"), "\(postMerge.stderr)")
        #expect(!postMerge.stderr.contains("Running "), "\(postMerge.stderr)")

        // A change that breaks a test still fails its check.
        try pullRequest("broken", "Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value * 3 }\n")
        let broken = try test("--impacted")
        #expect(broken.status == 1, "\(broken.stderr)")
        #expect(!broken.stderr.contains("kept this run's verdict"))

        // Two pull requests checked on the same develop, merged back to back.
        try pullRequest(
            "other", "Sources/Other/Other.swift", "public func thrice(_ value: Int) -> Int { value + value + value }\n")
        let first = try test("--impacted")
        #expect(first.status == 0 && first.stderr.contains("Running 1 test"), "OtherTests alone: \(first.stderr)")
        try pullRequest("shift", "Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value << 1 }\n")
        let second = try test("--impacted")
        #expect(second.status == 0 && second.stderr.contains("Running 2 tests"), "BadgeTests alone: \(second.stderr)")
        try squash("other")
        #expect(try test().stderr.contains("verified already"), "the first's squash is its check's tree")
        try squash("shift")
        let afterSecond = try test()
        #expect(afterSecond.status == 0, "\(afterSecond.stderr)")
        #expect(
            afterSecond.stderr.contains("Running 1 test") && afterSecond.stderr.contains("2 tests' results taken"),
            "what the first's change reaches runs (OtherTests), not nothing: \(afterSecond.stderr)")

        // --full-every 2: a verdict composed twice since the last whole run (the second's on
        // develop's, this one on the second's) does not stand; the whole suite runs, kept whole.
        let bounded = try test("--full-every", "2")
        #expect(
            bounded.stderr.contains("stands on 2 composed since the last whole-suite run (full-every: 2)"),
            "\(bounded.stderr)")
        #expect(
            bounded.stderr.contains("Running 3 tests") && bounded.stderr.contains("kept this run's verdict in"),
            "\(bounded.stderr)")
        #expect(!bounded.stderr.contains("composed on run"), "a whole run's verdict: \(bounded.stderr)")
        #expect(try test("--full-every", "2").stderr.contains("verified already: 3 tests passed"))

        // A check whose references differ from the verified tree's (pulled from the store, out of
        // git) runs that test file's suite: BadgeTests for its reference; OtherTests' change is a
        // comment, which reaches nothing, so its result is taken.
        let otherTests = package.appendingPathComponent("Tests/OtherTests/OtherTests.swift")
        try pullRequest(
            "reference", "Tests/OtherTests/OtherTests.swift",
            try String(contentsOf: otherTests, encoding: .utf8) + "// a note\n")
        try Scratch.write(
            "reference v2",
            to: package.appendingPathComponent("Tests/PkgTests/__Snapshots__/BadgeTests/testTwice.1.png"))
        let reference = try test("--impacted")
        #expect(reference.status == 0, "\(reference.stderr)")
        #expect(
            reference.stderr.contains("Running 2 tests") && reference.stderr.contains("1 test's results taken"),
            "\(reference.stderr)")
    }

    @Test(
        "on init's own specs: develop's post-merge run keeps its verdict and impact map; a pull request's run composes on it and runs only the suite its change reaches; the squash's post-merge runs nothing and promotes; a breaking change fails its check"
    )
    func initsSpecs() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try twoTargets()
        let references = root.appendingPathComponent("store")
        for store in ["feature", "develop"] {
            try FileManager.default.createDirectory(
                at: references.appendingPathComponent(store), withIntermediateDirectories: true)
        }
        let initialized = try PipelineBinary.run(["init", "--ci", "github", "--store", references.path], in: package)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        let spec = try String(contentsOf: package.appendingPathComponent("pipelines/pull-request.yml"), encoding: .utf8)
        #expect(spec.contains("      select: impacted\n") && spec.contains("      verdicts: reuse\n"), "\(spec)")
        try Git.run(["add", "-A"], in: package)
        try Git.run(["commit", "-q", "-m", "pipeline init"], in: package)
        func run(_ name: String) throws -> PipelineBinary.Result {
            // The pull request's spec compares with origin/develop, as a CI checkout has it.
            try Git.run(["update-ref", "refs/remotes/origin/develop", "develop"], in: package)
            return try PipelineBinary.run(["run", name], in: package, environment: ["CI": "false"])
        }

        let develop = try run("post-merge")
        #expect(develop.status == 0, "\(develop.stdout)\(develop.stderr)")
        #expect(develop.stderr.contains("Impact map of 2 suites"), "\(develop.stderr)")
        #expect(develop.stderr.contains("kept this run's verdict"), "\(develop.stderr)")

        try pullRequest("pkg", "Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value + value }\n")
        let check = try run("pull-request")
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains("composing on the verdict of run local"), "\(check.stderr)")
        #expect(check.stderr.contains("Running 2 tests"), "BadgeTests alone: \(check.stderr)")
        #expect(check.stderr.contains("composed on run local"), "\(check.stderr)")

        try squash("pkg")
        let merged = try run("post-merge")
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(merged.stderr.contains("verified already: 3 tests passed"), "\(merged.stderr)")
        #expect(!merged.stderr.contains("Running "), "\(merged.stderr)")

        try pullRequest("broken", "Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value * 3 }\n")
        let broken = try run("pull-request")
        #expect(broken.status == 1, "\(broken.stdout)\(broken.stderr)")
        #expect(broken.stderr.contains("Running 2 tests"), "\(broken.stderr)")
    }

    /// A shared run's nodes file their key in the run's folder; the run's report keeps the verdict
    /// when the whole run passed; a later run of the same tree builds nothing, its nodes run nothing,
    /// and its report is the verified run's.
    @Test("a shared run: the report keeps the verdict its nodes keyed; the next run of the tree runs nothing")
    func sharedRun() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let timings = root.appendingPathComponent("timings/timings.json").path
        func node(_ index: Int, run: String) throws -> PipelineBinary.Result {
            try test("--node", "\(index)/2", "--queue", run, "--timings", timings)
        }
        func report(run: String, junit: URL? = nil) throws -> PipelineBinary.Result {
            try PipelineBinary.run(
                ["report", "--queue", run, "--timings", timings, "--reuse-verdicts", store.path]
                    + (junit.map { ["--junit", $0.path] } ?? []), in: package, environment: ["CI": "false"])
        }
        for index in 1...2 {
            let part = try node(index, run: "check")
            #expect(part.status == 0, "\(part.stderr)")
            #expect(!part.stderr.contains("kept this run's verdict"), "a node keeps no verdict of its own")
        }
        let checked = try report(run: "check")
        #expect(
            checked.status == 0 && checked.stderr.contains("verdicts: kept this run's verdict"), "\(checked.stderr)")

        let built = try test("--build-only")
        #expect(built.status == 0 && built.stdout.contains("Nothing built: the tree was verified already."), "\(built)")
        for index in 1...2 {
            let part = try node(index, run: "merge")
            #expect(part.status == 0 && part.stderr.contains("verified already: 2 tests passed"), "\(part.stderr)")
            #expect(!part.stderr.contains("Running "), "\(part.stderr)")
        }
        let junit = root.appendingPathComponent("merge.xml")
        let merged = try report(run: "merge", junit: junit)
        #expect(merged.status == 0 && merged.stderr.contains("verified already: 2 tests passed"), "\(merged.stderr)")
        #expect(try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "<testcase ").count == 3)

        // A failing shared run keeps nothing.
        try commit("Sources/Pkg/Pkg.swift", "public func twice(_ value: Int) -> Int { value * 3 }\n")
        for index in 1...2 { _ = try node(index, run: "red") }
        let red = try report(run: "red")
        #expect(red.status == 1 && !red.stderr.contains("kept this run's verdict"), "\(red.stderr)")
    }
}
