import ArgumentParser
import Foundation
import PipelineSpec
import References

struct RefsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refs",
        abstract: "Move reference images between the checkout and the feature and develop stores.",
        discussion: """
            Stores come from the spec's references (the one pipeline that sets them, or --pipeline NAME); \
            flags override it. Locally, a test's references live beside its test file in \
            __Snapshots__/<Test>/ (swift-snapshot-testing's layout), or in references.local/<Test>/. \
            Every transfer copies only what differs and is safe to re-run.
            """,
        subcommands: [
            Pull.self, Push.self, Record.self, Accept.self, Promote.self, Prune.self, Orphans.self, Diff.self,
            Report.self, CheckAccess.self, Migrate.self,
        ]
    )

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Replace the checkout's references with those in develop (or feature).",
            discussion: """
                Developers: after switching branches, 'pipeline refs pull' makes every test's local \
                references what develop holds (tests with local references only are kept). Reviewers: \
                'pipeline refs pull TEST… --from feature' fetches a pull request's references of those tests.
                """
        )

        @OptionGroup var options: ReferenceOptions
        @Argument(help: ArgumentHelp("Only these tests (test file names, such as LoginViewTests).", valueName: "test"))
        var tests: [String] = []
        @Option(help: "The store to pull from: develop or feature.")
        var from: StoreRole = .develop

        @Option(
            help: ArgumentHelp(
                "With --from feature: the branch's push from this commit or its ancestors (default: HEAD).",
                valueName: "rev"))
        var commit: String?

        func validate() throws {
            if commit != nil, from != .feature || tests.isEmpty {
                throw ValidationError("--commit goes with named tests and --from feature")
            }
        }

        func run() async throws {
            let reports = try await options.context().pull(
                tests: tests, from: from, commit: commit, dryRun: options.dryRun)
            try options.finish(reports)
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Upload the named tests' local references to feature.",
            discussion: """
                Developers: when opening a pull request, push the references you recorded so reviewers \
                and the post-merge promotion find them. Each name must be a test file of the checkout \
                with local references.
                """
        )

        @OptionGroup var options: ReferenceOptions
        @Argument(help: ArgumentHelp("The tests (test file names, such as LoginViewTests).", valueName: "test"))
        var tests: [String] = []
        @Flag(help: "Every test that has local references.")
        var all = false
        @Flag(help: "Also delete what feature has of these tests and the checkout no longer does.")
        var prune = false

        func validate() throws {
            if all == !tests.isEmpty { throw ValidationError("name the tests to push, or pass --all") }
        }

        func run() async throws {
            let reports = try await options.context().push(
                tests: tests, all: all, prune: prune, dryRun: options.dryRun)
            try options.finish(reports)
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Make what CI rendered of failed snapshots the branch's references.",
            discussion: """
                Reviewers: when the review page of a pull request's run shows an intended change, \
                'pipeline refs accept TEST…' (the page gives the command) copies the new values CI kept \
                in feature (its candidates) into feature as the commit's push, so the merge promotes them, \
                and into the checkout where it commits its references in git. No re-recording on a machine \
                that draws pixels differently. A test that passed in a later run of the commit, or whose \
                references in feature changed after the run, is refused; --force accepts it anyway.
                """
        )

        @OptionGroup var options: ReferenceOptions
        @Argument(
            help: ArgumentHelp(
                "The tests (test file names, such as LoginViewTests), or one device's image of a test "
                    + "(LoginViewTests/testLogin_iPhone15.1.png: that file alone).", valueName: "test"))
        var tests: [String] = []
        @Flag(help: "Every test the run kept candidates of.")
        var all = false
        @Option(help: ArgumentHelp("The commit CI rendered at (default: HEAD).", valueName: "rev"))
        var commit: String?
        @Option(help: ArgumentHelp("The CI run, as the review page names it (default: the latest).", valueName: "run"))
        var run: String?
        @Flag(help: "Accept although the test passed since, or feature's references changed after the run.")
        var force = false

        func validate() throws {
            if all == !tests.isEmpty { throw ValidationError("name the tests to accept, or pass --all") }
        }

        func run() async throws {
            let outcome = try await options.context().accept(
                tests: tests, all: all, commit: commit, run: run, force: force, dryRun: options.dryRun)
            for (test, reason) in outcome.overridden.sorted(by: { $0.key < $1.key }) {
                Console.error("warning: accepting \(test) with --force although \(reason)")
            }
            if options.json {
                try Console.json(outcome)
                return try TransferReport.requireComplete(outcome.reports)
            }
            Console.out(
                "CI's run \(outcome.run) of \(outcome.commit.prefix(12)): \(outcome.tests.joined(separator: ", "))"
                    + (outcome.pushedAs.map {
                        " (a synthetic merge commit: pushed as the branch's commit \($0.prefix(12)), its parent)"
                    } ?? ""))
            try options.finish(outcome.reports)
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "promote",
            abstract: "Copy the changed tests' references from feature to develop.",
            discussion: """
                CI, after a merge: 'pipeline refs promote' finds the tests the merge changed and copies to \
                develop, file by file, what the merged branch itself pushed of them (feature keeps every \
                push under its commit), recording the merge commit. What a later merge promoted is never \
                overwritten. A squash or rebase merge is matched to its branch by what the branch changed \
                (kept in feature with its pushes and CI's runs); a test the merge touched whose references \
                do not reach develop fails the command (exit 10), naming the fix. \
                References committed in git are promoted from the merge commit itself: \
                the files the merge changed in git. A test feature holds no push record of (pushed by an older pipeline or a \
                script) is promoted from feature's latest copy, and if a merge promoted develop's copy \
                after the branch was cut, it stops; --overwrite overwrites.

                Developers, after changing a shared component: 'pipeline refs promote TEST… --force' \
                pushes those tests' local references to feature and develop, although their test files \
                did not change; 'pipeline refs promote --all --force' pushes every test's, as a team's \
                first recording does. It asks first; --yes answers for CI, and without a terminal or --yes it refuses.
                """
        )

        @OptionGroup var options: ReferenceOptions
        @OptionGroup var changeOptions: ChangeOptions
        @Argument(help: ArgumentHelp("These tests instead of the ones the merge changed.", valueName: "test"))
        var tests: [String] = []
        @Flag(help: "With --force: every test that has local references.")
        var all = false
        @Flag(help: "Push the named tests' (or --all) local references to feature and develop.")
        var force = false
        @Flag(help: "Overwrite develop references that later merges promoted after the branch was cut.")
        var overwrite = false
        @Flag(help: "Do not ask for confirmation.")
        var yes = false
        @Flag(help: "Also delete what develop has of these tests and feature no longer does.")
        var prune = false
        @Option(
            name: .customLong("branch-head"),
            help: ArgumentHelp(
                "The merged branch's last commit, when a squash or rebase merge cannot be matched to its branch.",
                valueName: "rev"))
        var branchHead: String?

        func validate() throws {
            if all, !tests.isEmpty { throw ValidationError("name the tests or pass --all, not both") }
            if all, !force { throw ValidationError("--all goes with --force: every test's local references") }
            if force, overwrite { throw ValidationError("--overwrite is for a merge's promotion, not --force's push") }
        }

        func run() async throws {
            let reports = try await options.context().promote(
                tests: tests, all: all, changes: changeOptions.query, force: force, overwrite: overwrite, prune: prune,
                dryRun: options.dryRun, branchHead: branchHead
            ) { question in try Confirmation.ask(question, yes: yes) }
            try options.finish(reports)
        }
    }

    struct CheckAccess: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-access",
            abstract: "Check what this job's credentials can do with the spec's stores, before it relies on it.",
            discussion: """
                A CI job's first step: each store the spec names (feature, develop) is listed, and in each \
                store given with --write a small object is written, read back and deleted \
                (.pipeline-access/<uuid> below the store's prefix). One line per store; exit 5 when a store \
                cannot be read or written as asked, naming the store and what it answered.
                """
        )

        @OptionGroup var options: ReferenceOptions

        @Option(
            name: .customLong("write"),
            help: ArgumentHelp("A store this job writes: feature or develop (repeatable).", valueName: "store"))
        var writes: [StoreRole] = []

        func run() async throws {
            let context = try await options.context()
            let results = await AccessCheck.run(context.transfers.stores, writing: Set(writes))
            if options.json { try Console.json(results) } else { results.forEach { Console.out($0.line) } }
            guard results.allSatisfy(\.passed) else {
                throw QuietExit(status: .storage)
            }
            if results.isEmpty {
                throw CLIFailure(
                    status: .spec, message: "the spec names no store (references.feature, references.develop)")
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Remove feature's kept pushes that are old, or already merged and promoted.",
            discussion: """
                Maintainers, now and then (or a scheduled CI job): feature keeps every push under its \
                commit (docs/references.md). This removes those a promotion already took in (their commit \
                is an ancestor of the merge that last promoted the test) and, with --older-than, those \
                pushed longer ago than that. Feature's latest copies are never touched.
                """
        )

        @OptionGroup var options: ReferenceOptions
        @Option(
            help: ArgumentHelp("Also remove pushes older than this (e.g. 30d, 12h).", valueName: "duration"),
            transform: duration("--older-than"))
        var olderThan: Duration?

        @Option(
            name: .customLong("keep-branch"),
            help: ArgumentHelp(
                "Also keep old pushes this branch holds (repeatable), beside every branch of the checkout not "
                    + "merged into HEAD.", valueName: "rev"))
        var keepBranches: [String] = []

        @Flag(help: "Remove old pushes even when an open branch still holds them.")
        var force = false

        func run() async throws {
            let outcome = try await options.context().prune(
                olderThan: olderThan, keeping: keepBranches, force: force, dryRun: options.dryRun)
            for push in outcome.kept { Console.error("kept \(push.place) \(push.commit.prefix(12)): \(push.reason)") }
            if options.json { return try Console.json(outcome.removed) }
            for push in outcome.removed { Console.out("\(push.place) \(push.commit.prefix(12)): \(push.reason)") }
            Console.out("\(options.dryRun ? "would remove" : "removed") \(outcome.removed.count) kept push(es)")
        }
    }

    struct Orphans: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "orphans",
            abstract: "List references in develop whose test file no longer exists.",
            discussion: "Maintainers, now and then: these tests were deleted or renamed, and their references linger."
        )

        @OptionGroup var options: ReferenceOptions
        @Option(name: .customLong("in"), help: "The store to look in: develop or feature.")
        var store: StoreRole = .develop

        func run() async throws {
            let orphans = try await options.context().transfers.orphans(in: store)
            if options.json { return try Console.json(orphans) }
            if orphans.isEmpty { return Console.out("No orphaned references in \(store.rawValue).") }
            Console.out("References in \(store.rawValue) with no test file in the checkout:")
            for orphan in orphans {
                Console.out("  \(orphan.place)  \(orphan.objects) file(s), \(orphan.bytes) bytes")
            }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract:
                "Move the records an earlier release kept inside feature and develop beside them, below .pipeline/.",
            discussion: """
                Maintainers, once, after every job runs this release: feature's and develop's pushes, \
                candidates, review pages, verdicts, promotion ledger, timings and shared runs move from \
                below each store's prefix to <parent>/.pipeline/<scope>/<store>/ (docs/references.md#records-beside-the-references-by-scope), \
                so feature/ and develop/ hold references only and bucket policies can fence each \
                credential's records. Each record is copied, checked (MD5) and only then deleted: a run \
                stopped anywhere loses nothing, and running it again finishes it. Until then this release \
                reads both layouts.
                """
        )

        @OptionGroup var options: ReferenceOptions

        func run() async throws {
            let dryRun = options.dryRun
            let moved = try await options.context().transfers.migrateRecords(dryRun: dryRun) { store, done, total in
                if done == total || done % 200 == 0 { Console.progress("\(store): \(done)/\(total) records") }
            }
            if options.json { return try Console.json(moved) }
            for store in moved {
                let verb = dryRun ? "would move" : "moved"
                Console.out(
                    store.moved == 0
                        ? "\(store.store): no records in the earlier layout; nothing to move"
                        : "\(store.store): \(verb) \(store.moved) record(s), \(store.bytes) bytes, to \(store.destination)"
                )
            }
        }
    }
}
