#!/usr/bin/env bash
# Benchmark: timeouts from history (docs/test-runner.md, "Timeouts from history").
# Usage: scripts/bench-timeouts.sh [RUNS] [LOAD]   (defaults: 12 runs, 2 busy processes beside them)
#        BENCH_HANG_TIMEOUT=600s scripts/bench-timeouts.sh   (the whole timeout of the baseline hangs)
#
# 1. The factor: RUNS whole runs of the example package, with LOAD processes spinning on the CPU
#    beside them (a shared CI machine), each folding its durations into one timings file. For each
#    test and run after the fifth, its duration over the p90 of its runs before: the largest ratio
#    a passing test reached is what the factor must stay above (its floor covers tests of a few ms).
# 2. The cost of a hang: the example's two hang mutants (EXAMPLE_HANG, a hung XCTest; and
#    EXAMPLE_TESTING_HANG, a hung Swift Testing test), each in a run of its own, with the timings
#    of part 1 and the default 10x/60s, against --history-timeout off with the spec's default
#    timeout (BENCH_HANG_TIMEOUT, 600s): the seconds each run took.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-12}" load="${2:-2}" hang_timeout="${BENCH_HANG_TIMEOUT:-600s}"

scripts/setup.sh
source scripts/lib/bench.sh
build_release
scratch="$(mktemp -d)"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$scratch"' EXIT
example="$PWD/Examples/ExampleSuite"
swift build --build-tests --package-path "$example" >/dev/null 2>&1
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

echo "== 1. $runs whole runs of the example package, $load busy processes beside them"
for _ in $(seq "$load"); do (while :; do :; done) & pids+=($!); done
for run in $(seq "$runs"); do
    "$bin" test --package-path "$example" --skip-build --timings "$scratch/timings.json" --json \
        > "$scratch/run-$run.json" 2>/dev/null || true
done
kill "${pids[@]}" 2>/dev/null || true
pids=()
python3 - "$scratch" "$runs" <<'PY'
import json, math, sys
folder, runs = sys.argv[1], int(sys.argv[2])
seconds = {}
for run in range(1, runs + 1):
    for test in json.load(open(f"{folder}/run-{run}.json"))["tests"]:
        if test["status"] == "passed":
            seconds.setdefault(test["name"], []).append(test["seconds"])
def p90(values):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]
worst = []
for name, values in seconds.items():
    for index in range(5, len(values)):
        before = values[max(0, index - 10):index]
        limit = p90(before)
        if limit > 0:
            worst.append((values[index] / limit, values[index], limit, name))
worst.sort(reverse=True)
print(f"{len(seconds)} tests, {len(worst)} runs measured against their p90 before")
for ratio, value, limit, name in worst[:5]:
    print(f"  x{ratio:6.2f}  {value:8.3f} s against p90 {limit:.3f} s  {name}")
over = [w for w in worst if w[1] > 1]
print("the largest ratio: x%.2f; of tests over 1 s: x%.2f" % (worst[0][0] if worst else 0, over[0][0] if over else 0))
PY

echo "== 2. the two hang mutants in one run (two shards), with the timings of part 1"
for mode in 10x/60s off; do
    start=$(date +%s.%N)
    EXAMPLE_HANG=1 EXAMPLE_TESTING_HANG=1 "$bin" test --package-path "$example" --skip-build --shards 2 \
        --timings "$scratch/timings.json" --no-update-timings --timeout "$hang_timeout" --history-timeout "$mode" \
        --json > "$scratch/hang.json" 2>/dev/null || true
    wall=$(since "$start")
    python3 - "$scratch/hang.json" "$mode" "$wall" "$hang_timeout" <<'PY'
import json, sys
report, mode, wall, timeout = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
hung = [t for t in report["tests"] if t["status"] == "timed-out"]
costs = ", ".join(f"{t['name'].split('.')[-1]} {t['seconds']:.1f} s" for t in hung)
print(f"--history-timeout {mode:8} (timeout {timeout}): the run {wall} s; stopped: {costs}")
PY
done
