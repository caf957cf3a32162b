#!/usr/bin/env bash
# Kill points, deterministically: each operation that writes to a store (refs push, refs promote,
# refs prune) is run once to count its writes, then once per write killed (SIGKILL) right after it,
# then re-run; what a kill leaves and the end state are checked (scripts/lib/kill.py says which
# invariants). On the folder store (the debug build's kill points count its file operations) and
# on moto (the fault proxy counts requests and holds every one after the K-th while the job is
# killed). Exits 1 on any inconsistency.
# Usage: scripts/bench-kill.sh [--unsafe]   (PIPELINE_KILL_ONLY=cache-save,cache-restore: those alone)
#   --unsafe switches a safeguard off (a push writes its record before its files), to show the
#   harness catches what it guards against: it must then exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product pipeline >/dev/null
bin="$(swift build --show-bin-path)/pipeline"
work="$(mktemp -d)"
source scripts/lib/bench.sh
start_moto 18290
trap 'kill $moto 2>/dev/null; rm -rf "$work"' EXIT
if [[ "${1:-}" == "--unsafe" ]]; then export PIPELINE_TEST_UNSAFE=push-record-first; fi
python3 scripts/lib/kill.py "$bin" "$work" "http://127.0.0.1:18290"
