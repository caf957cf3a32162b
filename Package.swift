// swift-tools-version:6.2
import PackageDescription

// pkg-config's flags for libgit2 would link it; on Linux it is loaded on first use instead.
#if os(Linux)
    let libgit2PkgConfig: String? = nil
#else
    let libgit2PkgConfig: String? = "libgit2"
#endif

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
        // Entry point only: hands the arguments to PipelineCLI.
        .executableTarget(name: "pipeline", dependencies: ["PipelineCLI"]),
        // Argument parsing and printing: each command parses, calls one entry point of Pipelines or
        // References, and prints. It imports nothing below those two and the spec.
        .target(
            name: "PipelineCLI",
            dependencies: [
                "PipelineSpec", "Pipelines", "References", "XcodeResults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The pipeline spec: YAML-lite reading, typed model, validation reporting every problem.
        .target(name: "PipelineSpec", dependencies: [.product(name: "Yams", package: "Yams")]),
        // Pipelines: the runner with one executor per stage kind (serving the run and the dry run),
        // the plan and stage descriptions, the one test flow every entry point hands its request to
        // (`pipeline test`, the test stage, `refs record`) and its shared runs, and the errors' exit statuses.
        .target(
            name: "Pipelines",
            dependencies: [
                "PipelineSpec", "References", "GitChanges", "TestSharding", "SharedRun", "ReferenceStore",
                "ImageDiff", "SnapshotConventions", "Coverage", "CISystem", "TestImpact", "ChildProcesses",
                "ReadTracing", "XcodeResults",
            ]
        ),
        // References: the stores a spec names; pull, push, promotion, retention and accepting CI's
        // candidates; what `refs record` checks before and after its run; and review (failed snapshots
        // paired with their references, review pages).
        .target(
            name: "References",
            dependencies: [
                "PipelineSpec", "GitChanges", "ReferenceStore", "TestSharding", "ImageDiff", "SnapshotConventions",
                "CISystem", "TestImpact", "ChildProcesses",
            ]
        ),
        // CI machines sharing a run through the team's store alone: timings kept there, a work queue
        // of batches claimed by conditional writes, the batches' reports, and the impact map's bytes.
        .target(name: "SharedRun", dependencies: ["ReferenceStore", "TestSharding"]),
        // Which tests a change can reach: the package's target graph (--affected), the impact map of
        // what each suite executed and read (its traced reads placed in the package) and the selection
        // by it (--impacted), and the one Swift lexer, which also reads the test declarations
        // `refs record` selects by.
        .target(
            name: "TestImpact",
            dependencies: ["TestSharding", "Coverage", "GitChanges", "ChildProcesses", "ReadTracing"]
        ),
        // The read tracer: a small C library, kept as source in the binary and built with the
        // toolchain's clang on first use, that LD_PRELOAD puts into a test process to write which
        // files it opens; and the traces read back by suite.
        .target(name: "ReadTracing", dependencies: ["TestSharding", "ChildProcesses"]),
        // swift-snapshot-testing's conventions: its switches, its reference layout and messages,
        // and an inventory of reference files that shows what a test run wrote.
        .target(name: "SnapshotConventions", dependencies: ["CISystem"]),
        // The CI system around a run, the one reader of its variables: whether this is CI, its name,
        // the run's id, where results are shown, and a pull request's branch head.
        .target(name: "CISystem"),
        // libgit2 wrapper: revisions, merge bases, tree diffs.
        .target(name: "GitChanges", dependencies: ["CLibgit2", "CLibgit2Loader"]),
        // Test sharding: building, listing, planning by recorded durations, running shards, reports.
        .target(name: "TestSharding", dependencies: ["ChildProcesses"]),
        // Xcode's outputs (xcresult tests JSON, xcodebuild's console, test enumerations) read into
        // TestSharding's report; nothing here runs Xcode.
        // Every reader of outside input as a function of bytes, for libFuzzer (scripts/fuzz.sh builds
        // pipeline-fuzz with -sanitize=fuzzer,address) and for the corpus replayed in the tests.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "PipelineSpec", "GitChanges", "TestImpact", "ReferenceStore", "References", "TestSharding", "Coverage",
                "ImageDiff",
                "XcodeResults",
            ]),
        .executableTarget(name: "pipeline-fuzz", dependencies: ["FuzzTargets"]),
        .target(name: "XcodeResults", dependencies: ["TestSharding", "ChildProcesses", "SnapshotConventions"]),
        // Every process the tool starts: spawned in its own process group, output and errors to
        // files, run to its end with a timeout (SIGTERM, then SIGKILL), all ended on an interrupt.
        .target(name: "ChildProcesses"),
        // Coverage: the test processes' profiles merged with the toolchain's tools, and written as
        // lcov, Cobertura and a JSON summary; lcov files of several nodes merged.
        .target(name: "Coverage", dependencies: ["TestSharding", "ChildProcesses"]),
        // Reference storage: folder and S3 (libcurl) stores, store-to-store sync.
        .target(name: "ReferenceStore", dependencies: ["CCurl", "CCrypto", "CCurlShims"]),
        // libgit2's headers (libgit2-dev, installed by scripts/setup.sh). On Linux CLibgit2Loader loads
        // the library when the first command that reads git needs it, so the headers come from the
        // system's include path and nothing links it; on macOS pkg-config finds Homebrew's and
        // CLibgit2Loader links it.
        .systemLibrary(
            name: "CLibgit2",
            pkgConfig: libgit2PkgConfig,
            providers: [.apt(["libgit2-dev"]), .brew(["libgit2"])]
        ),
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
        // Image comparison for snapshot review: PNG decoding and encoding by libpng, match ratio, overlay, mask.
        .target(name: "ImageDiff", dependencies: ["CPNG"]),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),

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

        .testTarget(name: "PipelineSpecTests", dependencies: ["PipelineSpec"], resources: [.copy("Fixtures")]),
        // Helpers the test targets share: a seeded random generator, the fault-injecting S3 proxy.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GitChangesTests", dependencies: ["GitChanges", "TestSupport"]),
        .testTarget(name: "TestShardingTests", dependencies: ["TestSharding", "TestSupport"]),
        .testTarget(
            name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "ReferenceStore", "PipelineSpec", "Coverage"]),
        .testTarget(
            name: "XcodeResultsTests", dependencies: ["XcodeResults", "TestSharding"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CoverageTests", dependencies: ["Coverage", "ChildProcesses", "TestSupport"]),
        .testTarget(
            name: "ReadTracingTests", dependencies: ["ReadTracing", "ChildProcesses", "TestSharding", "TestSupport"]),
        .testTarget(name: "TestImpactTests", dependencies: ["TestImpact", "TestSharding", "Coverage", "TestSupport"]),
        .testTarget(name: "ImageDiffTests", dependencies: ["ImageDiff"], exclude: ["make-pngs.py"]),
        .testTarget(name: "SnapshotConventionsTests", dependencies: ["SnapshotConventions"]),
        .testTarget(name: "CISystemTests", dependencies: ["CISystem"]),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),
        .testTarget(
            name: "SharedRunTests",
            dependencies: ["SharedRun", "ReferenceStore", "TestSharding", "TestSupport"]
        ),
        .testTarget(name: "ReferenceStoreTests", dependencies: ["ReferenceStore", "TestSupport"]),
        .testTarget(
            name: "ReferencesTests",
            dependencies: [
                "References", "PipelineSpec", "ReferenceStore", "TestSharding", "GitChanges", "TestSupport",
            ]
        ),
        .testTarget(
            name: "PipelinesTests",
            dependencies: [
                "Pipelines", "References", "PipelineSpec", "GitChanges", "TestSharding", "SharedRun", "ReferenceStore",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "PipelineCLITests",
            dependencies: [
                "pipeline", "PipelineCLI", "PipelineSpec", "ReferenceStore", "References", "ImageDiff",
                "SnapshotConventions", "CISystem", "TestSupport",
            ]
        ),
    ]
)
