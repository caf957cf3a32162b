#!/usr/bin/env bash
# Benchmark: N CI nodes sharing one store, the static split against the work queue, and planning a
# large simulated suite.
# Usage: scripts/bench-queue.sh [TESTS] [SECONDS]   (defaults: 120 tests, about 40 s of work in all)
#        BENCH_NODES="8" BENCH_STORES="moto" scripts/bench-queue.sh 240 120   (some node counts and stores only)
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
set -euo pipefail
cd "$(dirname "$0")/.."
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
    body = "\n".join(f"    func test{index:04d}() {{ nap({seconds}) }}" for index, seconds in members)
    open(f"{root}/Tests/BenchTests/{suite}.swift", "w").write(f"""import Foundation
import XCTest

final class {suite}: XCTestCase {{
{body}
}}
""")
open(f"{root}/Tests/BenchTests/Nap.swift", "w").write("""import Foundation

func nap(_ seconds: Double) {
    let scale = ProcessInfo.processInfo.environment["BENCH_SCALE"].flatMap(Double.init) ?? 1
    Thread.sleep(forTimeInterval: seconds * scale)
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

# One shared run of N nodes, node 1 at half speed; prints the seconds until the last node finished.
# Timings are the profile's (--no-update-timings keeps them), so the static split is as good as it gets.
run_nodes() {
    local count="$1" timings="$2" mode="$3" env_file="$4" run="r$RANDOM$RANDOM"
    local extra=()
    [[ "$mode" == queue ]] && extra=(--queue "$run")
    local start end pids=()
    start="$(date +%s.%N)"
    for index in $(seq "$count"); do
        scale=1
        [[ "$index" == 1 ]] && scale=2
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
