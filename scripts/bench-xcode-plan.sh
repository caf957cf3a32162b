#!/usr/bin/env bash
# Benchmark: how well `pipeline plan --format xcodebuild` balances an Xcode suite's nodes on its
# recorded durations, against alphabetical splitting (the identifiers sorted and cut into N runs of
# equal count, as Bitrise's shard step and hand-written -only-testing lists do).
# Usage: scripts/bench-xcode-plan.sh [RESULTS.json] [NODES…]
#   RESULTS: an xcresulttool tests JSON (default: the package's Xcode 16 fixture); its durations
#   are imported as the recorded ones, and its tests are the suite. NODES default: 2 3 4.
# Prints, per node count, the slowest node's seconds for both splits, their ratio, and the best any
# split could do (max of the longest test and the total over N).
set -euo pipefail
cd "$(dirname "$0")/.."
results="$(cd "$(dirname "${1:-Tests/XcodeResultsTests/Fixtures/xcresult-tests/Xcode16-Mixed-XCTest-SwiftTesting.json}")" && pwd)/$(basename "${1:-Xcode16-Mixed-XCTest-SwiftTesting.json}")"
shift || true
nodes=("${@:-2 3 4}")
# shellcheck disable=SC2206
nodes=(${nodes[*]})

source scripts/lib/bench.sh
build_release
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin" import xcresult "$results" --package-path "$work" --timings "$work/timings.json" --json >"$work/report.json" 2>/dev/null || true
for n in "${nodes[@]}"; do
    "$bin" plan --nodes "$n" --format xcodebuild --tests "$results" --timings "$work/timings.json" >"$work/plan-$n.json"
done
python3 - "$work" "${nodes[@]}" <<'PY'
import json, sys
work, counts = sys.argv[1], [int(n) for n in sys.argv[2:]]
report = json.load(open(f"{work}/report.json"))
seconds = {t["name"]: t["seconds"] for t in report["tests"]}

def key(argument):
    # -only-testing:Target/Class/method() → Target.Class/method (docs/xcode.md)
    parts = argument.split(":", 1)[1].split("/")
    method = parts[-1][:-2] if parts[-1].endswith("()") else parts[-1]
    return parts[0] + "." + "/".join(parts[1:-1] + [method])

print(f"{len(seconds)} tests, {sum(seconds.values()):.2f} s recorded ({sys.argv[1] and 'imported'})")
for n in counts:
    plan = json.load(open(f"{work}/plan-{n}.json"))
    ours = [sum(seconds.get(key(a), 0) for a in node["arguments"]) for node in plan]
    planned = sorted(key(a) for node in plan for a in node["arguments"])
    assert planned == sorted(seconds), "every test in exactly one node"
    names = sorted(seconds)
    size, extra = divmod(len(names), n)
    alphabetical, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        alphabetical.append(sum(seconds[x] for x in names[start:end]))
        start = end
    best = max(max(seconds.values()), sum(seconds.values()) / n)
    print(f"{n} nodes: pipeline {max(ours):.2f} s, alphabetical {max(alphabetical):.2f} s "
          f"({max(alphabetical) / max(ours):.2f}× slower), best possible {best:.2f} s")
PY
