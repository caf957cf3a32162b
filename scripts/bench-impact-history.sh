#!/usr/bin/env bash
# Benchmark: how much of a suite `pipeline test --impacted` runs, on real history.
# Usage: scripts/bench-impact-history.sh REPOSITORY [COMMITS] [FIXUP]   (default 40 commits)
#   e.g. scripts/bench-impact-history.sh ../shared/histories/swift-algorithms.bundle 40
# For each of the last COMMITS non-merge commits that change Sources/, the impact map is recorded at
# the commit's parent (the tests built there with coverage), then the commit is checked out and
# --impacted --dry-run says what it would run. Prints each commit's selected share of the suite's
# expected time, and the distribution: mean, median and the commits that run every test. The tests are listed from the parent's
# build, so a suite the commit adds is not counted (it would run, with no recorded time yet).
# FIXUP, a shell command, is for parents that no longer build here (an old dependency this machine
# cannot fetch): it runs in such a parent's checkout, the result is committed as the map's commit,
# and the commit's own change is applied over it (a commit whose change does not apply is skipped).
# For swift-algorithms before it required swift-numerics 1.0, offline:
#   fixup='sed -i -E "s#(swift-numerics[^)]*), from: \"0[^\"]*\"#\1, from: \"1.0.0\"#" Package.swift; rm -f Tests/LinuxMain.swift'
#   scripts/bench-impact-history.sh ../shared/histories/swift-algorithms.bundle 40 "$fixup"
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$1" commits="${2:-40}" fixup="${3:-}"

source scripts/lib/bench.sh
bench_prepare
git clone -q "$repository" "$scratch/repo"
cd "$scratch/repo"
timings="$scratch/timings.json"
record() {
    "$bin" test --record-impact --timings "$timings" >/dev/null 2>"$scratch/record.err" || true
    grep -q "^Impact map" "$scratch/record.err"
}
mapfile -t picked < <(git log --no-merges --format=%H -n "$commits" -- Sources | tac)
: > "$scratch/shares.txt"
for commit in "${picked[@]}"; do
    git checkout -q --force "$commit^"
    fixed=""
    if ! record; then
        if [[ -z "$fixup" ]]; then
            echo "  ${commit:0:12}: parent did not record (skipped): $(grep -m1 -E "error" "$scratch/record.err" | cut -c1-160)"
            continue
        fi
        # The parent with the fix-up committed is the map's commit; the commit's change goes over it.
        sh -c "$fixup"
        git add -A && git -c user.name=bench -c user.email=bench@example.com commit -q -m fixup
        record || { echo "  ${commit:0:12}: parent did not record, even fixed up (skipped)"; continue; }
        git cherry-pick -n "$commit" >/dev/null 2>&1 || { echo "  ${commit:0:12}: does not apply over the fix-up (skipped)"; continue; }
        fixed=" (fixed up)"
    else
        git checkout -q --force "$commit"
    fi
    "$bin" test --impacted --dry-run --skip-build --timings "$timings" >"$scratch/plan.out" 2>"$scratch/plan.err" || true
    python3 - "$commit" "$scratch/plan.out" "$scratch/plan.err" "$timings" "$scratch/shares.txt" "$fixed" <<'PY'
import json, re, sys
commit, plan, err, timings, shares, fixed = sys.argv[1:7]
text = open(err).read()
tests = json.load(open(timings)).get("tests", {})
total = sum(t.get("seconds", t.get("mean", 0)) if isinstance(t, dict) else 0 for t in tests.values())
every = "every test runs" in text
m = re.search(r"(\d+) suite\(s\) run, (\d+) left out \(expected ([0-9.]+) s\)", text)
if every:
    share, why = 1.0, re.search(r"every test runs, since (.*)", text).group(1)
elif "No test is reachable" in open(plan).read() + text:
    share, why = 0.0, "nothing reachable"
elif m:
    # The plan's shards hold the selected tests' expected time; the selection line, the rest's.
    selected = sum(float(x) for x in re.findall(r"^shard \d+: \d+ tests, expected ([0-9.]+) s", open(plan).read(), re.M))
    left = float(m.group(3))
    share = selected / (selected + left) if selected + left > 0 else 1.0
    why = f"{m.group(1)} suites run, {m.group(2)} left out"
else:
    share, why = 1.0, "no selection line"
open(shares, "a").write(f"{share}\n")
print(f"  {commit[:12]}: {share * 100:5.1f} %  ({why}){fixed}")
PY
done
python3 - "$scratch/shares.txt" <<'PY'
import statistics, sys
shares = sorted(float(x) for x in open(sys.argv[1]) if x.strip())
if not shares: sys.exit("no commit measured")
q = statistics.quantiles(shares, n=4) if len(shares) > 1 else [shares[0]] * 3
print(f"commits measured {len(shares)}: selected share of the suite's time: mean {statistics.mean(shares)*100:.1f} %, "
      f"median {statistics.median(shares)*100:.1f} %, quartiles {q[0]*100:.1f} % / {q[2]*100:.1f} %, "
      f"min {shares[0]*100:.1f} %, max {shares[-1]*100:.1f} %   (goals: mean ≤ 10 %, median ≤ 5 %)")
full = sum(1 for s in shares if s >= 0.999)
print(f"  every test: {full} (goal: at most 3 of 40), nothing: {sum(1 for s in shares if s == 0)}")
PY
