#!/usr/bin/env bash
# Benchmark: `pipeline refs promote` against the aws CLI on a local S3 server (moto).
# Usage: scripts/bench-promote.sh [OBJECTS] [FOLDERS] [RUNS]   (defaults: 1000 objects of ~20 KB in 50 test folders, 5 runs)
# Prints, in one run, the median wall time of promoting every object to a fresh prefix with
# `pipeline refs promote`, `aws s3 cp --recursive` and `aws s3 sync`, of the no-op re-run against
# `aws s3 sync` with nothing to do, the ratios, and pipeline's peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
objects="${1:-1000}" folders="${2:-50}" runs="${3:-5}" port="${BENCH_S3_PORT:-9000}"

source scripts/lib/bench.sh
bench_s3_setup

bench_images "$work/refs"
$aws cp --recursive --quiet "$work/refs" s3://bench/feature
tests=$(ls "$work/refs")
git init -q "$work/repo"
git -C "$work/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m bench
stores="--feature s3://bench/feature --endpoint $endpoint"
# The no-op destinations start out identical to feature.
$aws sync --quiet s3://bench/feature s3://bench/sync-noop
"$bin" refs promote -C "$work/repo" $tests $stores --develop s3://bench/noop >/dev/null 2>&1

measure "pipeline=$bin refs promote -C $work/repo $tests $stores --develop s3://bench/pipeline-{run}" \
    "cp=$aws cp --recursive --quiet s3://bench/feature s3://bench/cp-{run}" \
    "sync=$aws sync --quiet s3://bench/feature s3://bench/sync-{run}" \
    "pipeline_noop=$bin refs promote -C $work/repo $tests $stores --develop s3://bench/noop" \
    "sync_noop=$aws sync --quiet s3://bench/feature s3://bench/sync-noop"

copied=$("$bin" refs promote -C "$work/repo" $tests $stores --develop s3://bench/check --json 2>/dev/null \
    | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["copied"]))')
in_cp=$($aws ls --recursive s3://bench/cp-0/ | wc -l)
[[ "$copied" == "$objects" && "$in_cp" == "$objects" ]] || { echo "bench: expected $objects objects, pipeline copied $copied, aws cp $in_cp" >&2; exit 1; }
peak=$(python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
    "$bin" refs promote -C "$work/repo" $tests $stores --develop s3://bench/memory)

# The server's own CPU time during one more run of each: the floor no client can go below.
server_cpu() {
    local before after
    before=$(awk '{print $14 + $15}' "/proc/$moto/stat")
    "$@" >/dev/null 2>&1
    after=$(awk '{print $14 + $15}' "/proc/$moto/stat")
    python3 -c "print(f'{($after - $before) / $(getconf CLK_TCK):.2f}')"
}
cpu_pipeline=$(server_cpu "$bin" refs promote -C "$work/repo" $tests $stores --develop s3://bench/cpu)
cpu_cp=$(server_cpu $aws cp --recursive --quiet s3://bench/feature s3://bench/cpu-cp)

# The requests one promotion makes, counted by the fault proxy (no faults) in front of moto.
proxy_log="$work/proxy.log"
python3 scripts/fault-proxy.py "$endpoint" "" >"$proxy_log" 2>/dev/null &
proxy=$!
for _ in $(seq 100); do grep -q '^port ' "$proxy_log" 2>/dev/null && break; sleep 0.05; done
proxied="http://127.0.0.1:$(head -1 "$proxy_log" | cut -d' ' -f2)"
"$bin" refs promote -C "$work/repo" $tests --feature s3://bench/feature --endpoint "$proxied" \
    --develop s3://bench/counted >/dev/null 2>&1
kill $proxy 2>/dev/null
requests=$(python3 - "$proxy_log" "$objects" <<'PY'
import collections, re, sys
lines = open(sys.argv[1]).read().splitlines()[1:]
kinds = collections.Counter()
for line in lines:
    match = re.match(r"(GET|PUT|HEAD|DELETE|POST) (\S+) -> ", line)
    if not match:
        continue
    method, path = match.groups()
    if method == "PUT" and "/counted/" in path and "/.promot" not in path:
        kinds["copy"] += 1
    elif method == "GET" and "list-type=2" in path:
        kinds["list"] += 1
    elif "/.promotions/" in path or "/.promoting/" in path:
        kinds["ledger"] += 1
    else:
        kinds[method.lower()] += 1
total = sum(kinds.values())
detail = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
print(f"{total / int(sys.argv[2]):.2f} ({total} requests: {detail})")
PY
)

echo "promoting $objects objects (~20 KB) in $folders test folders on moto at $endpoint, median of $runs runs:"
printf '%-60s %8.3f s\n' "pipeline refs promote (to a fresh prefix)" "$t_pipeline" \
    "aws s3 cp --recursive (server-side copies)" "$t_cp" \
    "aws s3 sync (to a fresh prefix)" "$t_sync" \
    "pipeline refs promote, nothing to do" "$t_pipeline_noop" \
    "aws s3 sync, nothing to do" "$t_sync_noop"
echo "ratio pipeline / aws s3 cp --recursive: $(ratio "$t_pipeline" "$t_cp")   (target <= 1.0)"
echo "ratio pipeline / aws s3 sync:           $(ratio "$t_pipeline" "$t_sync")"
echo "ratio no-op pipeline / no-op aws s3 sync: $(ratio "$t_pipeline_noop" "$t_sync_noop")   (target <= 0.5)"
echo "moto's own CPU time during one more promotion: pipeline $cpu_pipeline s, aws s3 cp --recursive $cpu_cp s"
echo "pipeline peak memory (maxrss) promoting $objects objects: $peak MB"
echo "requests per promoted object (pipeline): $requests; aws s3 cp --recursive: 1 copy each and its listing"
