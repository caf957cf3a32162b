#!/usr/bin/env bash
# Benchmark: `pipeline test --coverage` against `swift test --enable-code-coverage` (with and without
# --parallel), whole runs including the coverage report, on any package; and a check that the
# per-file line counts equal SwiftPM's own coverage JSON.
# Usage: scripts/bench-coverage.sh [PACKAGE_PATH] [RUNS]   (defaults: Examples/ExampleSuite, 3 runs)
# A real open-source package works too, e.g. swift-algorithms from this project's shared histories:
#   git clone -q ../shared/histories/swift-algorithms.bundle /tmp/swift-algorithms
#   scripts/bench-coverage.sh /tmp/swift-algorithms
# The package is copied first, so its own .build is left alone. Exits 1 when a count differs.
set -euo pipefail
cd "$(dirname "$0")/.."
source_package="$(cd "${1:-Examples/ExampleSuite}" && pwd)" runs="${2:-3}"

source scripts/lib/bench.sh
bench_prepare
bench_package "$source_package"
q_package="$(printf %q "$package")"

echo "building the tests of $source_package with coverage…" >&2
swift build --build-tests --enable-code-coverage --package-path "$package" >/dev/null
# Durations from an earlier run are the planner's input, as CI would have them.
"$bin" test --package-path "$package" --coverage >/dev/null 2>&1 || true

run_pipeline="$(printf %q "$bin") test --package-path $q_package --coverage --no-record"
measure "pipeline=$run_pipeline" \
    "swift_parallel=swift test --package-path $q_package --enable-code-coverage --parallel" \
    "swift=swift test --package-path $q_package --enable-code-coverage"

# One more of each, to read what each reported: pipeline's own cost of coverage, and the counts.
"$bin" test --package-path "$package" --coverage --no-record >/dev/null 2>"$scratch/pipeline.err" || true
merge="$(sed -n 's/.*(merged in \([0-9.]*\) s).*/\1/p' "$scratch/pipeline.err" | head -1)"
swift test --package-path "$package" --enable-code-coverage >/dev/null 2>&1 || true
codecov="$(swift test --package-path "$package" --show-codecov-path)"

echo "package: $source_package (median of $runs runs)"
printf '  pipeline test --coverage:                       %6.2f s (coverage merge and export %s s)\n' "$t_pipeline" "${merge:-?}"
printf '  swift test --enable-code-coverage --parallel:   %6.2f s\n' "$t_swift_parallel"
printf '  swift test --enable-code-coverage:              %6.2f s\n' "$t_swift"
echo "  ratio pipeline / swift test --parallel:   $(ratio "$t_pipeline" "$t_swift_parallel")   (goal ≤ 0.9)"
echo "  ratio pipeline / swift test:              $(ratio "$t_pipeline" "$t_swift")"
[[ -n "$merge" ]] && echo "  coverage's share of pipeline's run:       $(ratio "$merge" "$t_pipeline")   (goal ≤ 0.10)"

python3 - "$codecov" "$package/.build/pipeline/coverage/summary.json" "$package" <<'PY'
import json, sys
swiftpm = json.load(open(sys.argv[1]))["data"][0]["files"]
ours = {f["path"]: f for f in json.load(open(sys.argv[2]))["files"]}
root = sys.argv[3].rstrip("/") + "/"
theirs = {f["filename"][len(root):]: f["summary"] for f in swiftpm if f["filename"].startswith(root)}
sources = {path for path in theirs if not path.startswith(("Tests/", ".build/"))}
differ = []
for path in sorted(sources | set(ours)):
    mine, swift = ours.get(path), theirs.get(path)
    if mine is None or swift is None:
        differ.append(f"{path}: {'missing from pipeline' if mine is None else 'not in SwiftPM'}")
    elif (mine["lines"]["covered"], mine["lines"]["total"]) != (swift["lines"]["covered"], swift["lines"]["count"]):
        differ.append(f"{path}: pipeline {mine['lines']['covered']}/{mine['lines']['total']}, "
                      f"SwiftPM {swift['lines']['covered']}/{swift['lines']['count']}")
if differ:
    print("  per-file line counts DIFFER from swift test --enable-code-coverage:")
    for line in differ: print("    " + line)
    sys.exit(1)
covered = sum(f["lines"]["covered"] for f in ours.values()); total = sum(f["lines"]["total"] for f in ours.values())
print(f"  per-file line counts equal SwiftPM's for all {len(ours)} source files ({covered}/{total} lines)")
PY
