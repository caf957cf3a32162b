#!/usr/bin/env bash
# Benchmark: what test impact analysis costs.
# Usage: scripts/bench-impact-cost.sh [PACKAGE_PATH] [RUNS]   (defaults: Examples/ExampleSuite, 3)
# 1. Recording: `pipeline test --record-impact` (one process and profile per suite, reads traced)
#    against `pipeline test --coverage` of the same suite, and against itself with read tracing off
#    (PIPELINE_TRACE_READS=0), all --skip-build after one instrumented build, median of RUNS
#    interleaved runs. Goals: ≤ 1.5× and ≤ 1.15×.
# 2. Selection on a generated package of 10,000 tests (500 XCTest classes of 20 tests over 50 library
#    files of 10 functions): the map is recorded once, then a body change and a new overload are
#    selected with --impacted --dry-run, then a declaration change (a default parameter) by the index
#    rule (the map keeps the compiler's index: read with the map) and by the name rule. Prints the selection's own time ("selected in", which
#    reads the map, diffs, reads and parses the sources, and selects) and the whole command's
#    (which also lists the 10,000 tests). Goal: selection ≤ 0.3 s.
set -euo pipefail
cd "$(dirname "$0")/.."
source_package="$(cd "${1:-Examples/ExampleSuite}" && pwd)" runs="${2:-3}"

source scripts/lib/bench.sh
bench_prepare

bench_package "$source_package"
as_repository "$package"
echo "building $source_package with coverage…" >&2
"$bin" test --package-path "$package" --coverage --coverage-dir "$scratch/c0" --timings "$scratch/t0.json" >/dev/null 2>&1 || true
measure \
    record="$bin test --package-path $package --skip-build --coverage --record-impact --coverage-dir $scratch/c1 --timings $scratch/t1.json" \
    untraced="env PIPELINE_TRACE_READS=0 $bin test --package-path $package --skip-build --coverage --record-impact --coverage-dir $scratch/c3 --timings $scratch/t3.json" \
    coverage="$bin test --package-path $package --skip-build --coverage --coverage-dir $scratch/c2 --timings $scratch/t2.json"
echo "recording ($source_package, median of $runs): --record-impact ${t_record} s, --coverage ${t_coverage} s: $(ratio "$t_record" "$t_coverage")×   (goal ≤ 1.5×)"
echo "read tracing: --record-impact ${t_record} s traced, ${t_untraced} s with PIPELINE_TRACE_READS=0: $(ratio "$t_record" "$t_untraced")×   (goal ≤ 1.15×)"

big="$scratch/big"
echo "generating a package of 10,000 tests…" >&2
python3 - "$big" <<'PY'
import os, random, sys
root = sys.argv[1]
os.makedirs(f"{root}/Sources/Big")
os.makedirs(f"{root}/Tests/BigTests")
open(f"{root}/Package.swift", "w").write("""// swift-tools-version:5.9
import PackageDescription
let package = Package(
    name: "Big",
    targets: [.target(name: "Big"), .testTarget(name: "BigTests", dependencies: ["Big"])])
""")
for f in range(50):
    functions = "\n".join(
        f"public func f{f}_{j}(_ x: Int) -> Int {{\n    let y = x &* {j + 2}\n    return y &+ {f}\n}}\n" for j in range(10))
    open(f"{root}/Sources/Big/F{f}.swift", "w").write(f"/// File {f}.\n{functions}")
random.seed(1)
for s in range(500):
    tests = []
    for t in range(20):
        f, j = random.randrange(50), random.randrange(10)
        tests.append(f"    func test{t}() {{\n        XCTAssertEqual(f{f}_{j}(1), {j + 2} + {f})\n    }}\n")
    open(f"{root}/Tests/BigTests/S{s}Tests.swift", "w").write(
        f"import XCTest\n@testable import Big\n\nfinal class S{s}Tests: XCTestCase {{\n{''.join(tests)}}}\n")
PY
as_repository "$big"
echo "recording its impact map (500 suites, 500 processes)…" >&2
"$bin" test --package-path "$big" --coverage --record-impact --coverage-dir "$scratch/bc" --timings "$scratch/bt.json" >/dev/null 2>"$scratch/big-record.err" \
    || { tail -5 "$scratch/big-record.err" >&2; exit 1; }
grep -E "^Impact map" "$scratch/big-record.err" >&2

# select NAME: the selection's time and the whole command's, for the change now in the package.
select_once() {
    local started ended line
    started=$(date +%s.%N)
    "$bin" test --package-path "$big" --skip-build --impacted --dry-run --timings "$scratch/bt.json" >/dev/null 2>"$scratch/select.err"
    ended=$(date +%s.%N)
    line="$(grep -E "suite\(s\) run" "$scratch/select.err")"
    printf '%s: %s; the whole command %.2f s\n' "$1" "$(sed -E 's/.*: ([0-9]+ suite\(s\) run, [0-9]+ left out).*selected in ([0-9.]+ s)/\1, selected in \2/' <<<"$line")" \
        "$(python3 -c "print($ended - $started)")"
}
sed -i 's/let y = x &\* 2$/let y = x \&* 3/' "$big/Sources/Big/F7.swift"
select_once "a body change in F7.swift (10,000 tests)"
git -C "$big" checkout -q -- .
printf '\npublic func f7_0(_ x: Double) -> Double { x }\n' >>"$big/Sources/Big/F7.swift"
select_once "a new overload of f7_0 (10,000 tests)"
git -C "$big" checkout -q -- .
sed -i 's/^public func f7_0(_ x: Int) -> Int {$/public func f7_0(_ x: Int, _ z: Int = 0) -> Int {/' "$big/Sources/Big/F7.swift"
select_once "f7_0 given a parameter with a default (10,000 tests; the index rule)"
PIPELINE_IMPACT_RULE=names select_once "the same by the name rule"
git -C "$big" checkout -q -- .
echo "(goal: selection ≤ 0.3 s)"
