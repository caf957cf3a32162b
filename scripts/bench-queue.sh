#!/usr/bin/env bash
# Benchmark: N CI nodes sharing one store, the static split against the work queue, and planning a
# large simulated suite.
# Usage: scripts/bench-queue.sh [TESTS] [SECONDS]   (defaults: 120 tests, about 40 s of work in all)
#        BENCH_NODES="8" BENCH_STORES="moto" scripts/bench-queue.sh 240 120   (some node counts and stores only)
#        scripts/bench-queue.sh --estimates [TESTS] [SECONDS]   (only part 3: planning by p90 or by the mean)
#
# A generated package whose XCTest tests sleep for their profile's durations (BENCH_SCALE multiplies
# them). N node processes (`pipeline test --shards 1 --node I/N`, N = 2, 4, 8) run on this machine
# and share one store (a folder, then moto's S3 with conditional writes); node 1 runs 2× slower.
# Sleeping tests use no CPU, so 8 nodes on a small machine still behave like 8 machines.
# Prints, per store and N, the last node's finish (from the start of all nodes) against the ideal:
#   ideal = max(longest test, work / (N − ½))   the machines' capacity: N − 1 nodes at full speed, one at half
#   naive = max(longest test, work / N)         the issue's bound, which ignores the slow node
# Goal: queue ≤ 1.10× ideal, where the static split is ≥ 1.4×.
# Then a simulated 10,000-test profile for N up to 32: planning time and peak memory of one node.
# 3. Planning by p90 or by the mean (issue 73): with BENCH_RUN set, each test's duration varies from
#    run to run (a seeded log-normal around its own: 75 % of tests by 10 %, 20 % by 40 %, 5 % by 100 %).
#    8 runs on one machine record the durations (the running mean and the last 10); then the same 6
#    runs (seeds) split statically over 4 equal nodes, planned from the recorded means and from a
#    copy whose durations are each test's p90: the last node's finish, each way, and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
only_estimates=false
if [[ "${1:-}" == --estimates ]]; then
    only_estimates=true
    shift
fi
tests="${1:-120}" work_seconds="${2:-40}"

scripts/setup.sh
source scripts/lib/bench.sh
build_release
scratch="$(mktemp -d)"
port=18190
start_moto "$port"
trap 'kill $moto 2>/dev/null; rm -rf "$scratch"' EXIT

# The package and its profile: durations from a seeded log-normal, scaled to $work_seconds in all.
package="$scratch/BenchSuite"
python3 - "$package" "$tests" "$work_seconds" <<'PY'
import json, os, random, sys
root, count, total = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng = random.Random(7)
raw = [rng.lognormvariate(0, 0.8) for _ in range(count)]
durations = [round(r * total / sum(raw), 3) for r in raw]
os.makedirs(f"{root}/Sources/Bench", exist_ok=True)
os.makedirs(f"{root}/Tests/BenchTests", exist_ok=True)
open(f"{root}/Package.swift", "w").write('''// swift-tools-version:5.9
import PackageDescription
let package = Package(name: "BenchSuite", targets: [
    .target(name: "Bench"), .testTarget(name: "BenchTests", dependencies: ["Bench"])])
''')
open(f"{root}/Sources/Bench/Bench.swift", "w").write("public let bench = 1\n")
suites = {}
for index, seconds in enumerate(durations):
    suites.setdefault(f"Suite{index % 12:02d}Tests", []).append((index, seconds))
for suite, members in suites.items():
    body = "\n".join(f"    func test{index:04d}() {{ nap({seconds}, {index}) }}" for index, seconds in members)
    open(f"{root}/Tests/BenchTests/{suite}.swift", "w").write(f"""import Foundation
import XCTest

final class {suite}: XCTestCase {{
{body}
}}
""")
open(f"{root}/Tests/BenchTests/Nap.swift", "w").write("""import Foundation

/// Sleeps for a test's duration, times BENCH_SCALE; with BENCH_RUN, times a log-normal factor of
/// mean 1 seeded by the test and the run (sigma 0.1, 0.4 or 1.0 by the test's index).
func nap(_ seconds: Double, _ index: Int) {
    let environment = ProcessInfo.processInfo.environment
    let scale = environment["BENCH_SCALE"].flatMap(Double.init) ?? 1
    var factor = 1.0
    if let run = environment["BENCH_RUN"].flatMap(UInt64.init) {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ run &* 0xBF58_476D_1CE4_E5B9
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(UInt64(1) << 53)
        }
        let (u1, u2) = (max(next(), 1e-12), next())
        let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        let sigma = index % 20 == 0 ? 1.0 : index % 4 == 0 ? 0.4 : 0.1
        factor = exp(sigma * normal - sigma * sigma / 2)
    }
    Thread.sleep(forTimeInterval: seconds * scale * factor)
}
""")

timings = {f"BenchTests.Suite{index % 12:02d}Tests/test{index:04d}": {"seconds": seconds, "samples": 5}
           for index, seconds in enumerate(durations)}
json.dump({"version": 1, "tests": timings}, open(f"{root}/profile.json", "w"))
print(f"{sum(durations):.3f} {max(durations):.3f}", file=open(f"{root}/profile.txt", "w"))
PY
read -r work longest < "$package/profile.txt"
echo "building the generated package ($tests tests, ${work} s of work, longest ${longest} s)…" >&2
swift build --build-tests --package-path "$package" >/dev/null

# One shared run of N nodes, node 1 at half speed (SLOW, the 5th argument: its time factor, 2 by
# default); prints the seconds until the last node finished.
# Timings are the profile's (--no-update-timings keeps them), so the static split is as good as it gets.
run_nodes() {
    local count="$1" timings="$2" mode="$3" env_file="$4" slow="${5:-2}" run="r$RANDOM$RANDOM"
    local extra=()
    [[ "$mode" == queue ]] && extra=(--queue "$run")
    local start end pids=()
    start="$(date +%s.%N)"
    for index in $(seq "$count"); do
        scale=1
        [[ "$index" == 1 ]] && scale=$slow
        (set -a; source "$env_file"; BENCH_SCALE=$scale CI=true "$bin" test --package-path "$package" --skip-build --shards 1 \
            --no-update-timings --node "$index/$count" --timings "$timings" "${extra[@]}" >"$scratch/node-$index.out" 2>"$scratch/node-$index.err") &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || { echo "a node failed: $(cat "$scratch"/node-*.err | grep error: | head -3)" >&2; exit 1; }
    done
    end="$(date +%s.%N)"
    if [[ "$mode" == queue ]]; then
        (set -a; source "$env_file"; "$bin" report --timings "$timings" --queue "$run" >/dev/null) \
            || { echo "the merged report of $run failed" >&2; exit 1; }
    fi
    python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$end"
}

# 3. Planning by p90 or by the mean.
estimates() {
    local history="$scratch/history.json"
    rm -f "$history"
    echo "recording 8 runs of varying durations on one machine…" >&2
    for run in $(seq 1 8); do
        BENCH_RUN=$run "$bin" test --package-path "$package" --skip-build --shards 4 --timings "$history" \
            >/dev/null 2>&1 || { echo "a recording run failed" >&2; exit 1; }
    done
    python3 - "$history" "$scratch/by-p90.json" <<'PY'
import json, math, sys
timings = json.load(open(sys.argv[1]))
for entry in timings["tests"].values():
    recent = sorted(entry.get("recent") or [entry["seconds"]])
    entry["seconds"] = recent[max(0, math.ceil(0.9 * len(recent)) - 1)]
json.dump(timings, open(sys.argv[2], "w"))
PY
    echo "" > "$scratch/none.env"
    printf '%-5s  %9s  %9s  %8s\n' seed "by mean" "by p90" "p90/mean"
    local sum_mean=0 sum_p90=0
    for seed in 101 102 103 104 105 106; do
        local mean p90
        mean="$(BENCH_RUN=$seed run_nodes 4 "$history" static "$scratch/none.env" 1)"
        p90="$(BENCH_RUN=$seed run_nodes 4 "$scratch/by-p90.json" static "$scratch/none.env" 1)"
        printf '%-5s  %8.2fs  %8.2fs  %8s\n' "$seed" "$mean" "$p90" "$(ratio "$p90" "$mean")"
        sum_mean="$(python3 -c "print($sum_mean + $mean)")"
        sum_p90="$(python3 -c "print($sum_p90 + $p90)")"
    done
    printf '%-5s  %8.2fs  %8.2fs  %8s\n' all "$sum_mean" "$sum_p90" "$(ratio "$sum_p90" "$sum_mean")"
}
if $only_estimates; then
    estimates
    exit 0
fi

# The stores: a folder, and a bucket on moto (which honours If-None-Match and If-Match).
echo "" > "$scratch/folder.env"
mkdir -p "$scratch/store"
cp "$package/profile.json" "$scratch/store/timings.json"
cat > "$scratch/moto.env" <<ENV
AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
AWS_ACCESS_KEY_ID=bench
AWS_SECRET_ACCESS_KEY=bench-secret
AWS_REGION=us-east-1
ENV
python3 - "$port" <<'PY'
import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/bench", method="PUT")).read()
PY
(set -a; source "$scratch/moto.env"; "$bin" timings merge "$package/profile.json" -o s3://bench/ci 2>/dev/null)

printf '%-7s %3s  %9s  %9s  %9s  %12s  %12s  %12s\n' store N ideal static queue "static/ideal" "queue/ideal" "queue/naive"
for store in ${BENCH_STORES:-folder moto}; do
    timings="$scratch/store/timings.json"
    [[ "$store" == moto ]] && timings="s3://bench/ci"
    for count in ${BENCH_NODES:-2 4 8}; do
        static="$(run_nodes "$count" "$timings" static "$scratch/$store.env")"
        queue="$(run_nodes "$count" "$timings" queue "$scratch/$store.env")"
        read -r ideal naive < <(python3 -c "import sys; w, l, n = map(float, sys.argv[1:]); print(f'{max(l, w / (n - 0.5)):.2f} {max(l, w / n):.2f}')" "$work" "$longest" "$count")
        printf '%-7s %3s  %8.2fs  %8.2fs  %8.2fs  %12s  %12s  %12s\n' "$store" "$count" "$ideal" "$static" "$queue" \
            "$(ratio "$static" "$ideal")" "$(ratio "$queue" "$ideal")" "$(ratio "$queue" "$naive")"
    done
done

# A simulated suite of 10,000 tests (generated timings): what planning costs one node.
python3 - "$scratch/large.json" <<'PY'
import json, random, sys
rng = random.Random(11)
tests = {f"App{index % 40}Tests.Case{index % 400}/test{index:05d}": {"seconds": round(rng.lognormvariate(-1, 1.2), 4), "samples": 3}
         for index in range(10_000)}
json.dump({"version": 1, "tests": tests}, open(sys.argv[1], "w"))
PY
echo
printf '%-4s  %-22s  %8s  %10s  %-22s  %8s  %10s\n' N "queue plan" seconds "peak RSS" "static plan" seconds "peak RSS"
for count in 2 8 32; do
    for mode in queue static; do
        extra=()
        [[ "$mode" == queue ]] && extra=(--queue sim)
        /usr/bin/time -f "%e %M" -o "$scratch/time" "$bin" plan --nodes "$count" --timings "$scratch/large.json" "${extra[@]}" \
            > "$scratch/plan.json"
        read -r seconds kilobytes < "$scratch/time"
        what="$(python3 -c "import json, sys; p = json.load(open(sys.argv[1])); print(f\"{len(p['batches'])} batches\" if isinstance(p, dict) else f\"{len(p)} nodes\")" "$scratch/plan.json")"
        printf -v "${mode}_line" '%-22s  %7ss  %7d KB' "$what" "$seconds" "$kilobytes"
    done
    printf '%-4s  %s  %s\n' "$count" "$queue_line" "$static_line"
done

echo
estimates
