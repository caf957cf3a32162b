#!/usr/bin/env bash
# Benchmark: what flaky-test handling costs and how well it measures.
# Usage: scripts/bench-flaky.sh [RUNS] [RATE]   (defaults: 200 runs, a 0.3 failure rate)
#
# 1. The flake hunt: `pipeline test --repeat RUNS` on the example package's flaky test, whose
#    EXAMPLE_FLAKY_RATE switch makes it fail at random at RATE. Prints the measured rate against
#    RATE, and the time per run against the loop a person writes instead
#    (`for i in …; do swift test --skip-build --filter …; done`, timed over 10 runs).
# 2. Re-running what failed: a generated package of 200 tests (about 20 s of work), 2 of which fail
#    when BENCH_FAIL=1. A full run, then `pipeline test --failed`: how many tests it ran, and its
#    time against the full run's and against `swift test --parallel` (a re-run CI job without it).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}" rate="${2:-0.3}"

scripts/setup.sh
source scripts/lib/bench.sh
build_release
scratch="$(mktemp -d)"
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(date +%s.%N)"; }
trap 'rm -rf "$scratch"' EXIT
example="$PWD/Examples/ExampleSuite"
swift build --build-tests --package-path "$example" >/dev/null 2>&1

echo "== flake hunt: --repeat $runs on FaultyTests/testFlakyWhenAsked, EXAMPLE_FLAKY_RATE=$rate"
start=$(date +%s.%N)
EXAMPLE_FLAKY_RATE="$rate" "$bin" test --package-path "$example" --skip-build --filter 'FaultyTests/testFlakyWhenAsked$' \
    --repeat "$runs" --json > "$scratch/hunt.json" 2>/dev/null || true
hunt=$(since "$start")
loop_runs=10
start=$(date +%s.%N)
for _ in $(seq "$loop_runs"); do
    EXAMPLE_FLAKY_RATE="$rate" swift test --package-path "$example" --skip-build --filter 'FaultyTests/testFlakyWhenAsked$' \
        >/dev/null 2>&1 || true
done
loop=$(since "$start")
python3 - "$scratch/hunt.json" "$rate" "$hunt" "$loop" "$loop_runs" <<'PY'
import json, sys
report, rate, hunt, loop, loop_runs = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
test = report["tests"][0]
measured = test["failureRate"]
per_run, per_loop = hunt / report["completed"], loop / loop_runs
print(f"measured {measured:.3f} over {test['runs']} runs (set {rate:.3f}; off by {abs(measured - rate) * 100:.1f} points)")
print(f"--repeat: {hunt:.2f} s in all, {per_run * 1000:.0f} ms per run; swift test loop: {per_loop * 1000:.0f} ms per run; "
      f"ratio {per_run / per_loop:.3f}")
PY

echo "== --failed after a run with 2 failures of 200 tests"
package="$scratch/FlakySuite"
python3 - "$package" <<'PY'
import os, sys
root = sys.argv[1]
os.makedirs(f"{root}/Sources/Flaky", exist_ok=True)
os.makedirs(f"{root}/Tests/FlakyTests", exist_ok=True)
open(f"{root}/Package.swift", "w").write('''// swift-tools-version:5.9
import PackageDescription
let package = Package(name: "FlakySuite", targets: [
    .target(name: "Flaky"), .testTarget(name: "FlakyTests", dependencies: ["Flaky"])])
''')
open(f"{root}/Sources/Flaky/Flaky.swift", "w").write("public let flaky = 1\n")
for suite in range(10):
    body = "\n".join(
        f"    func test{suite:02d}_{index:02d}() {{ Thread.sleep(forTimeInterval: 0.1)"
        + (' ; XCTAssertNil(ProcessInfo.processInfo.environment["BENCH_FAIL"], "BENCH_FAIL is set")' if index == 7 and suite in (3, 8) else "")
        + " }"
        for index in range(20))
    open(f"{root}/Tests/FlakyTests/Suite{suite:02d}Tests.swift", "w").write(
        f"import Foundation\nimport XCTest\n\nfinal class Suite{suite:02d}Tests: XCTestCase {{\n{body}\n}}\n")
PY
swift build --build-tests --package-path "$package" >/dev/null
timings="$scratch/timings.json"
"$bin" test --package-path "$package" --skip-build --timings "$timings" >/dev/null 2>&1 || true
start=$(date +%s.%N)
BENCH_FAIL=1 "$bin" test --package-path "$package" --skip-build --timings "$timings" --json > "$scratch/full.json" 2>/dev/null || true
full=$(since "$start")
start=$(date +%s.%N)
"$bin" test --package-path "$package" --skip-build --timings "$timings" --failed --json > "$scratch/failed.json" 2>/dev/null || true
failed=$(since "$start")
start=$(date +%s.%N)
swift test --package-path "$package" --skip-build --parallel >/dev/null 2>&1 || true
peer=$(since "$start")
python3 - "$scratch/full.json" "$scratch/failed.json" "$full" "$failed" "$peer" <<'PY'
import json, sys
full, again = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t_full, t_failed, t_peer = map(float, sys.argv[3:6])
print(f"full run: {full['summary']['total']} tests, {full['summary']['failed']} failed, {t_full:.2f} s")
print(f"--failed: ran {again['summary']['total']} tests ({again['summary']['passed']} passed), {t_failed:.2f} s; "
      f"ratio to the full run {t_failed / t_full:.3f}, to swift test --parallel ({t_peer:.2f} s) {t_failed / t_peer:.3f}")
PY
