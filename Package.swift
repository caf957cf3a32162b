// swift-tools-version:6.2
import PackageDescription

// pkg-config's flags for libgit2 would link it; on Linux it is loaded on first use instead.
#if os(Linux)
    let libgit2PkgConfig: String? = nil
#else
    let libgit2PkgConfig: String? = "libgit2"
#endif

// scripts/test.sh's AddressSanitizer lane sets PIPELINE_OPTIMISE_C_BOUNDARIES: the libraries that
// hand pointers to C are then optimised in its debug build, so they free memory as soon as the
// release build does and a pointer read after its memory was freed is reported (-Onone keeps every
// local alive to the end of its scope: it hid a use after free in init's bitrise patch).
let cBoundary: [SwiftSetting] =
    Context.environment["PIPELINE_OPTIMISE_C_BOUNDARIES"] == nil ? [] : [.unsafeFlags(["-O"])]

let package = Package(
    name: "pipeline",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pipeline", targets: ["pipeline"]),
        // `swift package pipeline …` for packages that depend on this one.
        .plugin(name: "PipelinePlugin", targets: ["PipelinePlugin"]),
    ],
    dependencies: [
        // Command-line parsing, help text and shell completion for the thin CLI.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // An established YAML parser (libyaml) giving a node tree with line/column marks for the spec.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // MARK: The command line
        // Entry point only: hands the arguments to PipelineCLI.
        .executableTarget(name: "pipeline", dependencies: ["PipelineCLI"]),
        // Argument parsing and printing: each command parses, calls one entry point of Pipelines,
        // TestRun or References, and prints; besides the flows it imports only the vocabulary at
        // the bottom (a node, a report, the spec's values, the CI).
        .target(
            name: "PipelineCLI",
            dependencies: [
                "Pipelines", "TestRun", "XcodeFlow", "CachedBuilds", "References", "ProjectSetup", "PipelineSpec",
                "PipelineCore", "TestHistory",
                "TestCore", "CISystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: The flows
        // Pipelines: the stage runner: one executor per stage kind (serving the run and the dry run),
        // the plan and stage descriptions, the list of pipelines; a test stage is a TestRun request.
        .target(
            name: "Pipelines",
            dependencies: [
                "PipelineCore", "PipelineSpec", "TestRun", "CachedBuilds", "References", "GitChanges", "TestCore",
                "Coverage",
            ]
        ),
        // TestRun: the one test flow every entry point hands its request to (`pipeline test`, a test
        // stage, `pipeline import`, `refs record`): the request, the session, shared runs across CI
        // machines, impact runs, Xcode imports, coverage, the CI's report, the snapshot check and
        // `refs record`'s recorder.
        .target(
            name: "TestRun",
            dependencies: [
                "References", "PipelineSpec", "PipelineCore", "GitChanges", "TestSharding", "TestCore", "SharedRun",
                "SnapshotReview", "Coverage", "CISystem", "TestImpact", "Verdicts", "TestHistory",
            ]
        ),
        // CachedBuilds: the build cache around a test run's build (`--build-cache`, a stage's
        // `build-cache:`): TestRun's `BuildPreparer` made of BuildCache's tree cache and test
        // products, opened where the request's stores open an address.
        .target(
            name: "CachedBuilds",
            dependencies: [
                "TestRun", "BuildCache", "CISystem", "GitChanges", "ObjectStorage", "PipelineSpec", "TestSharding",
            ]
        ),
        // XcodeFlow: Xcode teams' runs through the one test flow: a run Xcode made imported
        // (`pipeline import`), the next run's nodes planned (`plan --format xcodebuild`), references
        // recorded through xcodebuild (`refs record --xcode`), an Xcode run's verdict.
        .target(
            name: "XcodeFlow",
            dependencies: [
                "TestRun", "XcodeResults", "References", "SharedRun", "SnapshotConventions", "SnapshotReview",
                "TestCore", "Verdicts",
            ]
        ),
        // SnapshotReview: a run's snapshot check (the record switch its processes get, failed
        // snapshots paired with their references on the review page, new tests' renderings kept),
        // its findings for the CI's summary, and `refs record`'s recorder.
        .target(
            name: "SnapshotReview",
            dependencies: [
                "References", "ImageDiff", "SnapshotConventions", "TestCore", "TestSharding", "TestImpact",
                "PipelineCore", "CISystem",
            ]
        ),
        // References: the stores a spec names; pull, push, promotion, retention and accepting CI's
        // candidates; review (failed snapshots paired with their references, review pages).
        .target(
            name: "References",
            dependencies: [
                "PipelineSpec", "PipelineCore", "GitChanges", "ObjectStorage", "ImageDiff", "SnapshotConventions",
                "CISystem", "ChildProcesses",
            ]
        ),

        // MARK: What the test flow stands on
        // Builds kept in the team's store: a package's build tree by key and commit (restored from
        // the nearest ancestor, decided by content), and a CI run's test products built once for N
        // machines.
        .target(
            name: "BuildCache",
            dependencies: [
                "PipelineCore", "ObjectStorage", "ChildProcesses", "CISystem", "GitChanges", "SnapshotConventions",
            ]),
        // Verdicts: a passing run's record kept in the store under everything that decides its outcome
        // (the git tree, the build, the selection, the references compared against), so a run of the
        // same key runs nothing.
        .target(name: "Verdicts", dependencies: ["ObjectStorage", "TestCore", "BuildCache", "CISystem", "GitChanges"]),
        // TestHistory: each CI run's tests' outcomes kept in the store as an object of its own, and
        // what they say across runs (flaky tests, p50/p90 and their trend, last failures, what
        // verified runs saved); the quarantine entries it proposes (PipelineSpec's quarantine file
        // and CODEOWNERS).
        .target(name: "TestHistory", dependencies: ["ObjectStorage", "TestCore", "PipelineSpec"]),
        // Test sharding: building, listing, planning by recorded durations, running shards, reports.
        .target(name: "TestSharding", dependencies: ["PipelineCore", "ChildProcesses", "TestCore"]),
        // The test vocabulary every layer shares: a test's identity, attempts and report, the
        // recorded timings, nodes and shards and their planning, and the runner's errors.
        .target(name: "TestCore", dependencies: ["PipelineCore"]),
        // CI machines sharing a run through the team's store alone: timings kept there, a work queue
        // of batches claimed by conditional writes, the batches' reports, and the impact map's bytes.
        .target(name: "SharedRun", dependencies: ["PipelineCore", "ObjectStorage", "TestCore"]),
        // Which tests a change can reach: the package's target graph (--affected), the impact map of
        // what each suite executed and read (its traced reads placed in the package) and the selection
        // by it (--impacted), and the one Swift lexer, which also reads the test declarations
        // `refs record` selects by.
        .target(
            name: "TestImpact",
            dependencies: [
                "PipelineCore", "TestCore", "Coverage", "GitChanges", "ChildProcesses", "ReadTracing",
                "SymbolIndex", "SnapshotConventions",
            ]
        ),
        // Coverage: the test processes' profiles merged with the toolchain's tools, and written as
        // lcov, Cobertura and a JSON summary; lcov files of several nodes merged.
        .target(name: "Coverage", dependencies: ["PipelineCore", "ChildProcesses"]),
        // The read tracer: a small C library, kept as source in the binary and built with the
        // toolchain's clang on first use, that LD_PRELOAD puts into a test process to write which
        // files it opens; and the traces read back by suite.
        .target(name: "ReadTracing", dependencies: ["PipelineCore", "ChildProcesses"]),
        // Xcode's outputs (xcresult tests JSON, xcodebuild's console, test enumerations) read into
        // TestSharding's report, and the few xcodebuild invocations `refs record --xcode` makes.
        .target(
            name: "XcodeResults",
            dependencies: ["PipelineCore", "TestCore", "ChildProcesses", "SnapshotConventions"]
        ),
        // The package's declarations and every resolved use of them, read from the index store a
        // debug build writes, through the toolchain's libIndexStore (CIndexStore opens it by path).
        .target(name: "SymbolIndex", dependencies: ["CIndexStore", "ChildProcesses"], swiftSettings: cBoundary),
        // swift-snapshot-testing's conventions: its switches, its reference layout and messages,
        // and an inventory of reference files that shows what a test run wrote.
        .target(name: "SnapshotConventions", dependencies: ["CISystem"]),

        // `pipeline init`: the specs and the CI's workflow files (GitHub Actions, Bitrise, GitLab) for a
        // team starting out, written only where nothing exists; `--update` merges them anew (libgit2's
        // merge, the team's edits kept); the Swift and Xcode they use (the toolchain asked).
        .target(
            name: "ProjectSetup",
            dependencies: ["PipelineCore", "PipelineSpec", "SnapshotConventions", "ChildProcesses", "GitChanges"]),

        // MARK: What both flows stand on
        // The pipeline spec: YAML-lite reading, typed model, validation reporting every problem.
        .target(name: "PipelineSpec", dependencies: ["PipelineCore", .product(name: "Yams", package: "Yams")]),
        // Reference storage: folder and S3 (libcurl) stores, store-to-store sync.
        .target(
            name: "ObjectStorage", dependencies: ["PipelineCore", "CCurl", "CCrypto", "CCurlShims"],
            swiftSettings: cBoundary),
        // libgit2 in process: revisions, the tree walk, renames, history questions, a change's identity.
        .target(
            name: "GitChanges", dependencies: ["PipelineCore", "CLibgit2", "CLibgit2Loader", "SnapshotConventions"],
            swiftSettings: cBoundary),
        // Image comparison for snapshot review: PNG decoding and encoding by libpng, match ratio, overlay, mask.
        .target(name: "ImageDiff", dependencies: ["PipelineCore", "CPNG"], swiftSettings: cBoundary),
        // The CI system around a run, the one reader of its variables: whether this is CI, its name,
        // the run's id, where results are shown, and a pull request's branch head.
        .target(name: "CISystem"),
        // Every process the tool starts: spawned in its own process group, output and errors to
        // files, run to its end with a timeout (SIGTERM, then SIGKILL), all ended on an interrupt.
        .target(name: "ChildProcesses", dependencies: ["PipelineCore"]),
        // The vocabulary every library shares, at the bottom: exit statuses and the errors that say
        // theirs, JSON files written whole, a suite's files named by suite, a request's usage error.
        .target(name: "PipelineCore"),

        // MARK: Fuzzing
        // Every reader of outside input as a function of bytes, for libFuzzer (scripts/fuzz.sh builds
        // pipeline-fuzz with -sanitize=fuzzer,address) and for the corpus replayed in the tests.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "PipelineSpec", "GitChanges", "TestImpact", "ObjectStorage", "References", "TestCore", "Coverage",
                "ImageDiff", "XcodeResults",
            ]
        ),
        .executableTarget(name: "pipeline-fuzz", dependencies: ["FuzzTargets"]),

        // MARK: C libraries
        // libgit2's headers (libgit2-dev, installed by scripts/setup.sh). On Linux CLibgit2Loader loads
        // the library when the first command that reads git needs it, so the headers come from the
        // system's include path and nothing links it; on macOS pkg-config finds Homebrew's and
        // CLibgit2Loader links it.
        .systemLibrary(
            name: "CLibgit2",
            pkgConfig: libgit2PkgConfig,
            providers: [.apt(["libgit2-dev"]), .brew(["libgit2"])]
        ),
        // The toolchain's libIndexStore, opened at run time from beside the swift in use (its path is
        // known only then); the few functions read are declared in index_store_reader.c.
        .target(name: "CIndexStore", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // libgit2 loaded lazily (libgit2_loader.c), and the one variadic option Swift cannot set.
        .target(
            name: "CLibgit2Loader",
            dependencies: ["CLibgit2"],
            linkerSettings: [.linkedLibrary("git2", .when(platforms: [.macOS]))]
        ),
        // libcurl's headers only: on Linux CCurlShims loads the library when the first request needs
        // it (libcurl4-openssl-dev, installed by scripts/setup.sh); on macOS CCurlShims links the system's.
        .systemLibrary(name: "CCurl"),
        // Fixed-arity wrappers for libcurl's variadic functions Swift cannot call (curl_easy_setopt,
        // curl_easy_getinfo), and libcurl loaded lazily (curl_loader.c).
        .target(
            name: "CCurlShims",
            dependencies: ["CCurl"],
            linkerSettings: [.linkedLibrary("curl", .when(platforms: [.macOS]))]
        ),
        // SHA-256 (S3 payload signatures) and MD5 (S3 ETags) from the system's OpenSSL, which libcurl already uses.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),

        // MARK: The SwiftPM command plugin
        // Runs the pipeline tool in the package folder. It writes references, timings and reports
        // there, and reaches S3 stores over the network.
        .plugin(
            name: "PipelinePlugin",
            capability: .command(
                intent: .custom(verb: "pipeline", description: "Run pipelines, sharded tests and reference commands"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "pipeline writes reference images, test timings and reports in the package"),
                    .allowNetworkConnections(
                        scope: .all(), reason: "pipeline reads and writes reference images in S3 storage"),
                ]),
            dependencies: ["pipeline"]),

        // MARK: Tests
        .testTarget(name: "PipelineSpecTests", dependencies: ["PipelineSpec"], resources: [.copy("Fixtures")]),
        // Helpers the test targets share: a seeded random generator, the fault-injecting S3 proxy.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GitChangesTests", dependencies: ["GitChanges", "TestSupport"]),
        .testTarget(
            name: "TestShardingTests", dependencies: ["TestSharding", "TestCore", "ChildProcesses", "TestSupport"]),
        .testTarget(name: "SymbolIndexTests", dependencies: ["SymbolIndex", "TestSupport"]),
        .testTarget(
            name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "ObjectStorage", "PipelineSpec", "Coverage"]),
        .testTarget(
            name: "XcodeResultsTests", dependencies: ["XcodeResults", "TestSharding", "TestCore"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "CoverageTests", dependencies: ["Coverage", "ChildProcesses"]),
        .testTarget(
            name: "ReadTracingTests",
            dependencies: ["ReadTracing", "ChildProcesses", "PipelineCore", "TestSharding", "TestCore", "TestSupport"]),
        .testTarget(
            name: "TestImpactTests",
            dependencies: [
                "TestImpact", "TestSharding", "TestCore", "Coverage", "ReadTracing", "SymbolIndex", "ChildProcesses",
            ]),
        .testTarget(name: "ImageDiffTests", dependencies: ["ImageDiff"], exclude: ["make-pngs.py"]),
        .testTarget(name: "SnapshotConventionsTests", dependencies: ["SnapshotConventions"]),
        .testTarget(
            name: "TestHistoryTests",
            dependencies: ["TestHistory", "ObjectStorage", "TestCore", "TestSupport", "PipelineSpec"]),
        .testTarget(name: "CISystemTests", dependencies: ["CISystem"]),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),
        .testTarget(
            name: "SharedRunTests",
            dependencies: ["SharedRun", "ObjectStorage", "TestSharding", "TestCore", "TestSupport"]
        ),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ObjectStorage", "TestSupport"]),
        .testTarget(
            name: "BuildCacheTests", dependencies: ["BuildCache", "ObjectStorage", "CISystem", "TestSupport"]),
        .testTarget(
            name: "ReferencesTests",
            dependencies: [
                "References", "PipelineCore", "PipelineSpec", "ObjectStorage", "GitChanges", "CISystem", "TestSupport",
            ]
        ),
        .testTarget(
            name: "TestRunTests",
            dependencies: [
                "TestRun", "References", "PipelineCore", "PipelineSpec", "GitChanges", "TestSupport", "ImageDiff",
                "ObjectStorage", "TestSharding", "TestCore", "SnapshotReview",
            ]),
        .testTarget(
            name: "PipelinesTests",
            dependencies: [
                "Pipelines", "TestRun", "References", "PipelineCore", "PipelineSpec", "GitChanges", "TestSharding",
                "TestCore",
                "SharedRun", "ObjectStorage", "TestSupport",
            ]
        ),
        .testTarget(
            name: "PipelineCLITests",
            dependencies: [
                "pipeline", "PipelineCLI", "PipelineSpec", "ObjectStorage", "References", "ImageDiff",
                "SnapshotConventions", "CISystem", "TestSupport", "PipelineCore",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
    ]
)
