#!/usr/bin/env bash
# Stress: promotions of one test racing each other, on the folder store and on moto (conditional
# writes). Each round starts the promotions of three merges of one history at the same moment
# (random delays between their S3 requests through the fault proxy, random start offsets); then the
# same with one job killed (SIGKILL) at a random point and re-run. A round passes when develop holds,
# for every file, what the latest merge that changed it pushed.
# Usage: scripts/bench-race.sh [ROUNDS]   (default 50 per store and variant)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-50}"

source scripts/lib/bench.sh
build_release
work="$(mktemp -d)"
start_moto 18190
proxy_log="$work/proxy.log"
faults=$(python3 -c 'import random; random.seed(7); print(",".join("delay=%.3f" % random.uniform(0, 0.04) for _ in range(8000)))')
python3 scripts/fault-proxy.py http://127.0.0.1:18190 "$faults" >"$proxy_log" 2>&1 &
proxy=$!
trap 'kill $moto $proxy 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q '^port ' "$proxy_log" 2>/dev/null && break; sleep 0.1; done
proxy_port=$(awk '/^port /{print $2; exit}' "$proxy_log")

python3 scripts/lib/race.py "$bin" "$work" "$rounds" "http://127.0.0.1:$proxy_port" "http://127.0.0.1:18190"
