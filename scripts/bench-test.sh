#!/usr/bin/env bash
# Benchmark: `pipeline test` against `swift test` and the bare test binary, on any package.
# Usage: scripts/bench-test.sh [PACKAGE_PATH] [RUNS] [--quick]   (defaults: Examples/ExampleSuite, 3 runs)
# A real open-source package works too, e.g.:
#   git clone -q --branch 1.2.1 https://github.com/apple/swift-algorithms /tmp/swift-algorithms
#   scripts/bench-test.sh /tmp/swift-algorithms
# Prints, in one run, the median wall time of each way of running the whole suite, the ideal
# bound max(longest test, sum of test times / cores) from the measured durations, and the ratios.
# Two pipeline runs are timed: a first run, with no recorded durations (a new CI machine), and an
# informed one, planned from durations recorded beforehand. --quick times only those two and
# `swift test --parallel` (for suites whose every run takes minutes).
# The example package made to have one long test: EXAMPLE_LONG_SECONDS=4 scripts/bench-test.sh
# (its SlowRenderingTests.testRendersLargeCanvas then takes 4 s instead of 1.6 s).
# Then the same suite built by Swift Build (--build-system swiftbuild, SwiftPM 6.4's default): pipeline
# (first and informed) against `swift test --build-system swiftbuild --parallel`.
set -euo pipefail
cd "$(dirname "$0")/.."
package="$(cd "${1:-Examples/ExampleSuite}" && pwd)" runs="${2:-3}" quick="${3:-}"
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)"

scripts/setup.sh
source scripts/lib/bench.sh
build_release

echo "building the tests of $package…" >&2
swift build --build-tests --package-path "$package" >/dev/null
product="$(ls -d "$(swift build --package-path "$package" --show-bin-path)"/*PackageTests.xctest | head -1)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
timings="$scratch/timings.json"

# Durations from earlier runs are the planner's input: record them first, as CI would have.
"$bin" test --package-path "$package" --skip-build --timings "$timings" >/dev/null 2>&1 || true
# The ideal bound comes from measured durations, which vary from run to run: take the median over
# $runs runs of its own (each run's ideal from that run's durations), and each run's own wall time.
for index in $(seq "$runs"); do
    "$bin" test --package-path "$package" --skip-build --timings "$timings" --no-update-timings --json > "$scratch/report-$index.json" 2>/dev/null || true
done
read -r tests ideal_cores inner inner_ratio < <(python3 - "$scratch" "$runs" "$cores" <<'PY'
import json, statistics, sys
folder, runs, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reports = [json.load(open(f"{folder}/report-{index}.json")) for index in range(1, runs + 1)]
ideals, walls = [], []
for report in reports:
    durations = [t["seconds"] for t in report["tests"]]
    ideals.append(max(max(durations), sum(durations) / cores))
    walls.append(report["summary"]["seconds"])
ratios = [wall / ideal for wall, ideal in zip(walls, ideals)]
print(len(reports[0]["tests"]), f"{statistics.median(ideals):.4f}", f"{statistics.median(walls):.4f}",
      f"{statistics.median(ratios):.2f}")
PY
)

# The bare binary, one process at a time: all XCTest tests, then all Swift Testing tests, serially.
cat > "$scratch/direct.sh" <<SH
"$product" --testing-library xctest >/dev/null 2>&1
NO_COLOR=1 "$product" --testing-library swift-testing --no-parallel >/dev/null 2>&1
true
SH
q_package="$(printf %q "$package")"
run_pipeline="$(printf %q "$bin") test --package-path $q_package --skip-build --timings $(printf %q "$timings") --no-update-timings"
# A first run: a timings file that never exists (--no-update-timings writes none).
run_first="$(printf %q "$bin") test --package-path $q_package --skip-build --timings $(printf %q "$scratch/none.json") --no-update-timings"
parallel="swift_parallel=swift test --package-path $q_package --skip-build --parallel"
if [[ "$quick" == --quick ]]; then
    measure "first=$run_first" "pipeline=$run_pipeline" "$parallel"
else
    measure "first=$run_first" "pipeline=$run_pipeline" "pipeline_one=$run_pipeline --shards 1" \
        "swift=swift test --package-path $q_package --skip-build" "$parallel" \
        "direct=bash $(printf %q "$scratch/direct.sh")"
fi

# Swift Build: its own products (a runner per test target), its own swift test --parallel.
echo "building the tests of $package with Swift Build…" >&2
swift build --build-tests --build-system swiftbuild --package-path "$package" >/dev/null
sb_timings="$scratch/sb-timings.json"
"$bin" test --package-path "$package" --build-system swiftbuild --skip-build --timings "$sb_timings" >/dev/null 2>&1 || true
sb_run="$(printf %q "$bin") test --package-path $q_package --build-system swiftbuild --skip-build --no-update-timings"
measure "sb_first=$sb_run --timings $(printf %q "$scratch/sb-none.json")" \
    "sb_pipeline=$sb_run --timings $(printf %q "$sb_timings")" \
    "sb_parallel=swift test --package-path $q_package --build-system swiftbuild --skip-build --parallel"

echo "package: $package ($tests tests, $cores cores, median of $runs runs)"
printf '%-58s %8.2f s\n' \
    "pipeline test, first run (no recorded durations)" "$t_first" \
    "pipeline test, informed (auto shards: $cores)" "$t_pipeline" \
    "swift test --skip-build --parallel" "$t_swift_parallel" \
    "ideal: max(longest test, sum of test times / $cores), median" "$ideal_cores"
[[ "$quick" == --quick ]] || printf '%-58s %8.2f s\n' \
    "pipeline test --shards 1" "$t_pipeline_one" \
    "swift test --skip-build (serial)" "$t_swift" \
    "test binary directly, serially" "$t_direct"
echo "ratio first run / ideal:                              $(ratio "$t_first" "$ideal_cores")   (target ≤ 1.05)"
echo "ratio first run / swift test --parallel:              $(ratio "$t_first" "$t_swift_parallel")   (target ≤ 1.00)"
echo "ratio pipeline test (informed) / ideal:               $(ratio "$t_pipeline" "$ideal_cores")   (target ≤ 1.02)"
echo "  the same within each run (its shards' wall time / its own ideal; start-up and listing excluded): $inner_ratio"
echo "ratio pipeline test (informed) / swift test --parallel: $(ratio "$t_pipeline" "$t_swift_parallel")   (target ≤ 0.60 on many small tests)"
printf '%-58s %8.2f s\n' \
    "Swift Build: pipeline test, first run" "$t_sb_first" \
    "Swift Build: pipeline test, informed" "$t_sb_pipeline" \
    "Swift Build: swift test --skip-build --parallel" "$t_sb_parallel"
echo "Swift Build: ratio first run / swift test --parallel:   $(ratio "$t_sb_first" "$t_sb_parallel")"
echo "Swift Build: ratio informed / swift test --parallel:    $(ratio "$t_sb_pipeline" "$t_sb_parallel")"
[[ "$quick" == --quick ]] && exit 0
echo "ratio pipeline test --shards 1 / direct binary:       $(ratio "$t_pipeline_one" "$t_direct")   (target ≤ 1.03)"
echo "ratio pipeline test / swift test (serial):            $(ratio "$t_pipeline" "$t_swift")"
